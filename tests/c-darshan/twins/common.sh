# Sourced by util_twins.sh and twins/record.sh (after ../source.sh):
# C's libdarshan-util and the way programs are built against it.

# The C libdarshan-util 3.5.0 that PyDarshan 3.5.0's wheel bundles (in
# the project's .venv, scripts/setup.sh): built by Darshan's release
# process from tag 3.5.0, with AutoPerf's two modules.
c_util_lib() {
    local lib
    lib=$(ls "$root"/.venv/lib/python3*/site-packages/darshan.libs/libdarshan-util-*.so* 2>/dev/null | head -n 1)
    if [ -z "$lib" ]; then
        echo "$(basename "$0"): no C libdarshan-util in .venv (PyDarshan's wheel bundles it: scripts/setup.sh)" >&2
        return 1
    fi
    echo "$lib"
}

# `twins_c_tree W`: C Darshan 3.5.0's darshan-util sources and headers
# under W/c (darshan-diff.c with diff/darshan-diff-3.5.0-fixes.patch),
# and W/inc with what its headers include from its build: uthash 1.9.2
# (from the tarball darshan-util ships) and an empty
# darshan-util-config.h (configure's; nothing used here depends on it).
twins_c_tree() {
    local w=$1
    c_darshan_source "$w/c" darshan-util include
    (cd "$w/c" && patch -p1 < "$root/tests/c-darshan/diff/darshan-diff-3.5.0-fixes.patch" > /dev/null)
    mkdir -p "$w/inc"
    tar -xjf "$w/c/darshan-util/extern/uthash-1.9.2.tar.bz2" -C "$w/inc"
    : > "$w/inc/darshan-util-config.h"
}

# `twins_build_c W OUT SRC...`: SRC built against C's headers and C's
# library.
twins_build_c() {
    local w=$1 out=$2 lib
    shift 2
    lib=$(c_util_lib)
    cc -O1 -Wall -DPACKAGE_VERSION='"3.5.0"' -I"$w/inc" -I"$w/c/darshan-util" -I"$w/c/include" \
        -o "$out" "$@" "$lib" -Wl,-rpath,"$(dirname "$lib")"
}

# `twins_logs W`: the logs twins/make_logs.c writes through C's library,
# in W/gen.
twins_logs() {
    local w=$1
    twins_build_c "$w" "$w/make_logs" "$root/tests/c-darshan/twins/make_logs.c"
    rm -rf "$w/gen" && mkdir -p "$w/gen"
    timeout 60 "$w/make_logs" "$w/gen"
}

# A darshan-dxt-parser output without its compressed sizes (which depend
# on the zlib that wrote the log).
without_sizes() {
    grep -v ' bytes (compressed)' || true
}

# `run DIR NAME PROG ARGS...`: PROG's stdout, stderr and status in DIR/NAME.*
run() {
    local dir=$1 name=$2
    shift 2
    mkdir -p "$dir"
    set +e
    timeout 120 "$@" > "$dir/$name.out" 2> "$dir/$name.err"
    echo $? > "$dir/$name.status"
    set -e
}

# `same A B`: two runs (run's DIR/NAME) printed and ended alike.
same() {
    cmp -s "$1.out" "$2.out" && cmp -s "$1.err" "$2.err" && cmp -s "$1.status" "$2.status"
}
