#!/usr/bin/env bash
# AutoPerf's APMPI and APXC records, read by a tree installed with
# `--enable-apmpi-mod --enable-apxc-mod` (darshan-util's configure
# options) as by the C darshan-util built with them: the libdarshan-util
# 3.5.0 PyDarshan's wheel bundles (C's library, with C's headers:
# twins/common.sh). On every corpus log with an APMPI region (one of them
# with an APXC region too):
#
#   * C's darshan-parser.c and darshan-dxt-parser.c built twice, on C's
#     library and on ours: the same stdout, stderr and status (and
#     darshan-parser.c a third time, fully static on our
#     libdarshan-util.a);
#   * our darshan-parser as C's darshan-parser.c on C's library;
#   * C's darshan-convert.c built twice (each library's log_put_record):
#     the logs they write read alike by C's darshan-parser.c on C's
#     library, and as the log they converted; and so does the log our
#     darshan-convert writes (it left AutoPerf's records out, in a tree
#     installed to read them, until 2026-12-07);
#   * PyDarshan's APMPI records and counter names through our library as
#     through C's (a process per log: C's reader takes the first record
#     of a process for the header, not of a log), and through ours with
#     every log read in one process;
#   * the mutation harness over these logs with the tree's tools (and
#     libdarshan-util's reader set alike);
#   * a tree installed without the option still prints what a default C
#     build prints (the corpus's recordings of C's darshan-parser).
set -euo pipefail
. "$(dirname "$0")/source.sh"
. "$root/tests/c-darshan/twins/common.sh"
cd "$root"
w=$(c_darshan_workdir c-util-autoperf)
twins_c_tree "$w"
c_util_lib > /dev/null
scripts/install.sh target/release "$w/prefix" --enable-apmpi-mod --enable-apxc-mod > /dev/null 2> "$w/install.err"
scripts/install.sh target/release "$w/plain" > /dev/null
failed=0
if ! grep -F 'the runtime records AutoPerf' "$w/install.err" > /dev/null ||
    ! grep -F "read AutoPerf's APXC records" "$w/install.err" > /dev/null; then
    echo "util_autoperf: install.sh did not say what --enable-apmpi-mod and --enable-apxc-mod do"
    failed=$((failed + 1))
fi
mkdir -p "$w/src" "$w/c-bin" "$w/our-bin"
for f in darshan-parser.c darshan-dxt-parser.c darshan-convert.c darshan-diff.c lookup3.c; do cp "$w/c/darshan-util/$f" "$w/src/"; done
# darshan-convert.c with the lookup3.c darshan-util's Makefile links in.
for p in darshan-parser darshan-dxt-parser darshan-convert darshan-diff; do
    extra=()
    [ $p = darshan-convert ] && extra=("$w/src/lookup3.c")
    twins_build_c "$w" "$w/c-bin/$p" "$w/src/$p.c" "${extra[@]}"
    cc -O1 -Wall -DPACKAGE_VERSION='"3.5.0"' -I"$w/prefix/include" -o "$w/our-bin/$p" "$w/src/$p.c" "${extra[@]}" \
        -L"$w/prefix/lib" -ldarshan-util -Wl,-rpath,"$w/prefix/lib"
done
# darshan-parser.c linked fully static against the tree's
# libdarshan-util.a, which install.sh set to read AutoPerf's records as
# it set the shared library.
cc -O1 -static -DPACKAGE_VERSION='"3.5.0"' -I"$w/prefix/include" -o "$w/our-bin/darshan-parser-static" \
    "$w/src/darshan-parser.c" "$w/prefix/lib/libdarshan-util.a" -lpthread -lm -ldl -lrt -lutil 2> /dev/null

count() {
    echo "util_autoperf: $1: $(($2 - $3)) of $2 alike"
    [ "$3" = 0 ] || failed=$((failed + 1))
}
# `alike WHAT A B`: the runs A and B (run's DIR/NAME) are alike, else
# says how.
alike() {
    local what=$1 a=$2 b=$3
    if ! same "$a" "$b"; then
        echo "util_autoperf: $what differs:"
        diff "$a.out" "$b.out" | head -n 6 || true
        diff "$a.err" "$b.err" | head -n 4 || true
        return 1
    fi
}

logs=()
for log in ../shared/corpus/logs/*.darshan; do
    # (grep reads it all: a grep -q that stops early fails the pipe.)
    heads=$(target/release/darshan-parser "$log" 2> /dev/null | grep -E '^# (APMPI|APXC) module: ' || true)
    case $heads in *APMPI*) ;; *) continue ;; esac
    case $heads in *APXC*) apxc=$log ;; esac
    logs+=("$log")
done
[ ${#logs[@]} -ge 10 ] || { echo "util_autoperf: only ${#logs[@]} corpus logs with APMPI records"; exit 1; }
[ -n "${apxc:-}" ] || { echo "util_autoperf: no corpus log with APXC records"; exit 1; }

# Our runtime's own APMPI records: an MPI job (4 ranks, Open MPI) under
# the tree installed with the option, which records them with nothing in
# the environment; its log goes through every check below with the
# corpus's. The same job under the default tree records none.
mpicc -O1 -o "$w/apmpi_calls" tests/programs/apmpi_calls.c
for tree in prefix plain; do
    rm -rf "$w/run-$tree" && mkdir -p "$w/run-$tree"
    timeout 300 mpirun --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$w/$tree/lib/libdarshan.so" \
        -x DARSHAN_LOGPATH="$w/run-$tree" -x DARSHAN_MMAP_LOGPATH="$w/run-$tree" "$w/apmpi_calls" 3 > /dev/null
done
ours=$(ls "$w"/run-prefix/*.darshan)
# Two more of our runs, for darshan-diff: 2 ranks and one round; 4 ranks
# with sync times.
for v in two sync; do rm -rf "$w/run-$v" && mkdir -p "$w/run-$v"; done
timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 -x LD_PRELOAD="$w/prefix/lib/libdarshan.so" \
    -x DARSHAN_LOGPATH="$w/run-two" -x DARSHAN_MMAP_LOGPATH="$w/run-two" "$w/apmpi_calls" 1 > /dev/null
timeout 300 mpirun --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD="$w/prefix/lib/libdarshan.so" -x DARSHAN_APMPI_COLL_SYNC=1 \
    -x DARSHAN_LOGPATH="$w/run-sync" -x DARSHAN_MMAP_LOGPATH="$w/run-sync" "$w/apmpi_calls" 3 > /dev/null
region() { target/release/darshan-parser "$1" 2> /dev/null | grep -E '^# APMPI module: ' || true; }
if [ -z "$(region "$ours")" ]; then
    echo "util_autoperf: the runtime installed with --enable-apmpi-mod wrote no APMPI region"
    failed=$((failed + 1))
fi
if [ -n "$(region "$w"/run-plain/*.darshan)" ]; then
    echo "util_autoperf: the runtime installed without --enable-apmpi-mod wrote an APMPI region"
    failed=$((failed + 1))
fi
logs+=("$ours")

n=0 bad=0
for log in "${logs[@]}"; do
    b=$(basename "$log" .darshan)
    for opts in "" "--all --show-incomplete" "--total --perf"; do
        n=$((n + 1))
        k="$b${opts// /}"
        run "$w/out/c" "$k" "$w/c-bin/darshan-parser" $opts "$log"
        run "$w/out/ours" "$k" "$w/our-bin/darshan-parser" $opts "$log"
        run "$w/out/tool" "$k" "$w/prefix/bin/darshan-parser" $opts "$log"
        run "$w/out/static" "$k" "$w/our-bin/darshan-parser-static" $opts "$log"
        ok=1
        alike "C's darshan-parser.c $opts on $b, C's library and ours," "$w/out/c/$k" "$w/out/ours/$k" || ok=0
        alike "C's darshan-parser.c $opts on $b, C's library and our libdarshan-util.a," "$w/out/c/$k" "$w/out/static/$k" || ok=0
        alike "our darshan-parser $opts on $b against C's" "$w/out/c/$k" "$w/out/tool/$k" || ok=0
        [ $ok = 1 ] || bad=$((bad + 1))
    done
    n=$((n + 1))
    run "$w/out/c" "$b.dxt" "$w/c-bin/darshan-dxt-parser" "$log"
    run "$w/out/ours" "$b.dxt" "$w/our-bin/darshan-dxt-parser" "$log"
    run "$w/out/tool" "$b.dxt" "$w/prefix/bin/darshan-dxt-parser" "$log"
    ok=1
    alike "C's darshan-dxt-parser.c on $b" "$w/out/c/$b.dxt" "$w/out/ours/$b.dxt" || ok=0
    # Ours prints darshan main's DXT layout; with no DXT here, its
    # warnings (none for APMPI) are C's.
    cmp -s "$w/out/c/$b.dxt.err" "$w/out/tool/$b.dxt.err" || { echo "util_autoperf: our darshan-dxt-parser's warnings on $b differ"; ok=0; }
    [ $ok = 1 ] || bad=$((bad + 1))
done
count "C's darshan-parser.c and darshan-dxt-parser.c on both libraries, and our tools, on ${#logs[@]} logs with APMPI records" $n $bad

# What a converted log holds, read by C's program on C's library (the
# compressed sizes depend on the zlib that wrote it).
records() { "$w/c-bin/darshan-parser" --show-incomplete "$1" | grep -v ' bytes (compressed)'; }
n=0 bad=0
for log in "${logs[@]}"; do
    b=$(basename "$log" .darshan)
    n=$((n + 1))
    timeout 60 "$w/c-bin/darshan-convert" "$log" "$w/out/$b.c.darshan" > /dev/null 2>&1 || true
    timeout 60 "$w/our-bin/darshan-convert" "$log" "$w/out/$b.ours.darshan" > /dev/null 2>&1 || true
    rm -f "$w/out/$b.tool.darshan"
    timeout 60 "$w/prefix/bin/darshan-convert" "$log" "$w/out/$b.tool.darshan" > /dev/null 2>&1 || true
    if ! [ -s "$w/out/$b.ours.darshan" ] || ! cmp -s <(records "$w/out/$b.c.darshan") <(records "$w/out/$b.ours.darshan") ||
        ! cmp -s <(records "$w/out/$b.c.darshan") <(records "$w/out/$b.tool.darshan") ||
        ! cmp -s <(records "$log" | grep -E '^AP(MPI|XC)') <(records "$w/out/$b.ours.darshan" | grep -E '^AP(MPI|XC)'); then
        echo "util_autoperf: darshan-convert of $b: through our library or by our tool, not as C's:"
        diff <(records "$w/out/$b.c.darshan") <(records "$w/out/$b.ours.darshan") | head -n 6 || true
        bad=$((bad + 1))
    fi
done
count "C's darshan-convert.c through both libraries, and our darshan-convert (APMPI and APXC records written back)" $n $bad

# PyDarshan, one process per log.
py=$w/py
mkdir -p "$py"
cp -r "$(.venv/bin/python -c 'import darshan, os; print(os.path.dirname(darshan.__file__))')" "$py/"
n=0 bad=0
for log in "${logs[@]}"; do
    b=$(basename "$log" .darshan)
    n=$((n + 1))
    timeout 300 .venv/bin/python tests/pydarshan/apmpi_dump.py "$log" "$w/out/$b.py.c.json"
    PYTHONPATH=$py PATH="$w/prefix/bin:$PATH" timeout 300 .venv/bin/python tests/pydarshan/apmpi_dump.py "$log" "$w/out/$b.py.ours.json"
    if ! python3 tests/pydarshan/apmpi_dump.py --compare "$w/out/$b.py.c.json" "$w/out/$b.py.ours.json" "$w/prefix/lib"; then
        bad=$((bad + 1))
    fi
done
count "PyDarshan's APMPI and APXC records and names through our library as through C's" $n $bad

# PyDarshan over every log in one process, through our library: each log
# read as C's library reads it alone (C's misreads every log after the
# first one of a process).
rm -rf "$w/out/many" && mkdir -p "$w/out/many"
PYTHONPATH=$py PATH="$w/prefix/bin:$PATH" timeout 600 .venv/bin/python tests/pydarshan/apmpi_dump.py --many "$w/out/many" "${logs[@]}"
n=0 bad=0
for log in "${logs[@]}"; do
    b=$(basename "$log" .darshan)
    n=$((n + 1))
    python3 tests/pydarshan/apmpi_dump.py --compare "$w/out/$b.py.c.json" "$w/out/many/$b.json" "$w/prefix/lib" || bad=$((bad + 1))
done
count "PyDarshan reading all of them in one process through our library, against C's one per process" $n $bad

# darshan-diff: APMPI and APXC lines as made from C's parser output of
# both logs. A second log with APXC records, its values moved, written by
# C's library: darshan-convert.c changing the records it copies (the
# header's blades, memory-mode agreement and application id; a router's
# node and two of its counters).
sed 's|^\( *\)base_rec = (struct darshan_base_record \*)tmp_mod_buf;|&\n\1if(i == DARSHAN_APXC_MOD) { int64_t *v = (int64_t *)tmp_mod_buf; if(v[2] == 0x4155544f50455246LL) { v[3] += 2; v[6] \|= (int64_t)1 << 31; v[8] += 1; } else { v[5] += 1; v[9] += 5; v[397] = 0; } }|' \
    "$w/src/darshan-convert.c" > "$w/src/apxc-vary.c"
grep -q 'DARSHAN_APXC_MOD' "$w/src/apxc-vary.c" || { echo "util_autoperf: darshan-convert.c did not take the APXC change"; exit 1; }
twins_build_c "$w" "$w/c-bin/apxc-vary" "$w/src/apxc-vary.c" "$w/src/lookup3.c"
rm -f "$w/out/apxc-varied.darshan"
timeout 60 "$w/c-bin/apxc-vary" "$apxc" "$w/out/apxc-varied.darshan" > /dev/null
varied=$w/out/apxc-varied.darshan
two=$(ls "$w"/run-two/*.darshan)
sync=$(ls "$w"/run-sync/*.darshan)
none=$(ls "$w"/run-plain/*.darshan)
rel=../shared/corpus/logs/release_logs__mpi-io-test-x86_64
pairs=("$rel-3.3.0.darshan $rel-3.3.1.darshan" "$rel-3.4.0.darshan $rel-3.4.7.darshan"
    "../shared/corpus/logs/apmpi__darshan-apmpi-2nodes-64mpi.darshan $rel-3.4.6.darshan"
    "$ours $two" "$two $ours" "$ours $sync" "$sync $two" "$sync $sync" "$ours ../shared/corpus/logs/apmpi__darshan-apmpi-2nodes-64mpi.darshan"
    "$ours $none" "$none $sync" "$apxc $varied" "$varied $apxc" "$apxc $rel-3.4.7.darshan" "$ours $apxc")
n=0 bad=0 lines=0 xlines=0 c_died=0
for pair in "${pairs[@]}"; do
    read -r l1 l2 <<< "$pair"
    n=$((n + 1))
    k=diff$n
    timeout 120 "$w/c-bin/darshan-parser" "$l1" > "$w/out/$k.p1" 2> /dev/null
    timeout 120 "$w/c-bin/darshan-parser" "$l2" > "$w/out/$k.p2" 2> /dev/null
    run "$w/out/tool" "$k" "$w/prefix/bin/darshan-diff" "$l1" "$l2"
    run "$w/out/ours" "$k" "$w/our-bin/darshan-diff" "$l1" "$l2"
    (run "$w/out/c" "$k" "$w/c-bin/darshan-diff" "$l1" "$l2") 2> /dev/null # (the shell says how it died)
    run "$w/out/plain" "$k" "$w/plain/bin/darshan-diff" "$l1" "$l2"
    [ "$(cat "$w/out/c/$k.status")" = 0 ] || c_died=$((c_died + 1))
    lines=$((lines + $(grep -c '^[-+] APMPI' "$w/out/tool/$k.out" || true)))
    xlines=$((xlines + $(grep -c '^[-+] APXC' "$w/out/tool/$k.out" || true)))
    what="darshan-diff $(basename "$l1") $(basename "$l2")"
    if ! timeout 120 python3 tests/c-darshan/apmpi_diff_expect.py "$w/out/$k.p1" "$w/out/$k.p2" "$w/out/tool/$k.out"; then
        echo "util_autoperf: $what: APMPI lines not as C's parser output makes them"
        bad=$((bad + 1))
    elif ! timeout 120 python3 tests/c-darshan/apmpi_diff_expect.py "$w/out/$k.p1" "$w/out/$k.p2" "$w/out/tool/$k.out" APXC; then
        echo "util_autoperf: $what: APXC lines not as C's parser output makes them"
        bad=$((bad + 1))
    elif ! alike "$what, C's darshan-diff.c on our library against our tool," "$w/out/ours/$k" "$w/out/tool/$k"; then
        bad=$((bad + 1))
    elif ! cmp -s "$w/out/tool/$k.err" "$w/out/plain/$k.err" || grep -qE '^[-+] AP(MPI|XC)' "$w/out/plain/$k.out"; then
        echo "util_autoperf: $what: stderr not the default tree's, or AutoPerf lines from the default tree"
        bad=$((bad + 1))
    fi
done
[ $lines -gt 1000 ] || { echo "util_autoperf: darshan-diff printed only $lines APMPI lines over ${#pairs[@]} pairs"; failed=$((failed + 1)); }
[ $xlines -gt 800 ] || { echo "util_autoperf: darshan-diff printed only $xlines APXC lines over ${#pairs[@]} pairs"; failed=$((failed + 1)); }
count "darshan-diff's APMPI and APXC lines against C's parser output of both logs ($lines and $xlines lines; C's darshan-diff.c on C's library died on $c_died)" $n $bad

# darshan-merge in the tree that reads APXC: a job's routers come in one
# log, so the merge leaves them out with its one line, and merges the rest
# (it stopped at the region before the tree read it: "module_reader").
rm -f "$w/out/apxc-merged.darshan"
if ! timeout 60 "$w/prefix/bin/darshan-merge" --output "$w/out/apxc-merged.darshan" "$apxc" "$varied" 2> "$w/out/apxc-merge.err" ||
    ! grep -q 'APXC records are left out' "$w/out/apxc-merge.err"; then
    echo "util_autoperf: darshan-merge of two logs with APXC records did not merge them without APXC:"
    head -n 3 "$w/out/apxc-merge.err"
    failed=$((failed + 1))
fi

# Hostile input on the code that reads APMPI records, which only a tree
# installed with the option runs: the mutation harness (crates/log-mutants)
# over these logs with the tree's tools, and libdarshan-util's reader with
# the same setting written in (no crash, a documented status, within the
# memory bound).
rm -rf "$w/mutbin" && mkdir -p "$w/mutbin"
for f in "$w"/prefix/bin/*; do ln -s "$(realpath "$f")" "$w/mutbin/$(basename "$f")"; done
cp target/release/darshan-util-read "$w/mutbin/"
(. scripts/site-config.sh && util_config="APMPI"$'\n'"APXC"$'\n' && util_config_write "$w/mutbin/darshan-util-read")
rm -rf "$w/mutseeds" && mkdir -p "$w/mutseeds"
for log in "${logs[@]}"; do cp "$log" "$w/mutseeds/"; done
if ! timeout 1200 target/release/log-mutants --bin "$w/mutbin" --per-log 12 --seed 3 --timeout 60 \
    --work "$w/mutants" --json "$w/mutants/report.json" "$w/mutseeds" > "$w/mutants.out" 2>&1; then
    echo "util_autoperf: the mutation harness with the tree's tools failed:"
    head -n 30 "$w/mutants.out"
    failed=$((failed + 1))
else
    echo "util_autoperf: $(head -n 1 "$w/mutants.out")"
fi

# Installed without the option: a default C build's darshan-parser.
n=0 bad=0
for log in "${logs[@]}"; do
    gz=../shared/corpus/expected/$(basename "$log" .darshan).all.txt.gz
    [ -f "$gz" ] || continue
    n=$((n + 1))
    if ! "$w/plain/bin/darshan-parser" --all "$log" 2> /dev/null | cmp -s - <(gzip -dc "$gz"); then
        echo "util_autoperf: a default install's darshan-parser --all on $(basename "$log") is not C's recording"
        bad=$((bad + 1))
    fi
done
[ $n -ge 3 ] || { echo "util_autoperf: only $n recordings of logs with APMPI records"; failed=$((failed + 1)); }
count "a default install's darshan-parser against C's recordings" $n $bad
[ "$failed" = 0 ]
