# Sourced: `writer_cases BIN PARSER OUT` runs every case of cases.txt with
# BIN/darshan-convert or BIN/darshan-merge, and prints the log each wrote
# with PARSER (`darshan-parser --all`, without the lines of compressed
# sizes, which depend on the deflate implementation, not on the log) into
# OUT/<case>.txt, the tool's exit status into OUT/<case>.status.
writer_cases() {
    local bin=$1 parser=$2 out=$3 corpus=${WRITER_CORPUS:-$root/../shared/corpus/logs}
    local name tool args a
    mkdir -p "$out"
    grep -v '^#' "$(dirname "${BASH_SOURCE[0]}")/cases.txt" | while read -r name tool rest; do
        args=()
        for a in $rest; do
            case $a in
                @*) args+=("$corpus/${a#@}") ;;
                =*) args+=("$(dirname "${BASH_SOURCE[0]}")/${a#=}") ;;
                OUT) args+=("$out/$name.darshan") ;;
                *) args+=("$a") ;;
            esac
        done
        rm -f "$out/$name.darshan"
        set +e
        timeout 300 "$bin/darshan-$tool" "${args[@]}" > /dev/null 2>"$out/$name.err"
        echo $? > "$out/$name.status"
        set -e
        if [ -f "$out/$name.darshan" ]; then
            timeout 300 "$parser" --all "$out/$name.darshan" 2>&1 | grep -v ' bytes (compressed)' > "$out/$name.txt" || true
        else
            : > "$out/$name.txt"
        fi
    done
}
