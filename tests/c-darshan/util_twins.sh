#!/usr/bin/env bash
# C Darshan 3.5.0's programs built twice from one source: against C's own
# libdarshan-util 3.5.0 (the one PyDarshan 3.5.0's wheel bundles, with
# C's headers) and against our install tree (our headers, our library).
# What the twins print must be the same, byte for byte, stdout, stderr
# and exit status:
#
#   * darshan-dxt-parser.c (dxt_log_print_posix_file and _mpiio_file, a
#     Lustre file's stripes and OSTs) on every corpus log and on
#     twins/make_logs.c's lustre-dxt log;
#   * darshan-diff.c (each module's log_print_diff; with
#     diff/darshan-diff-3.5.0-fixes.patch, without which C's dies on
#     every log with heat maps) on make_logs.c's MDHIM and Lustre logs,
#     and ours on every pair of diff/pairs.txt against what C's printed
#     there (diff/record.sh; C's library is left out there: it was built
#     with AutoPerf's modules and diffs their records, a default build and
#     ours do not). The pairs with big-endian logs older than 3.1.7 are
#     left out: C misreads three POSIX fcounters there, our library does
#     not (docs/deployment.md);
#   * darshan-parser.c (each module's log_print_record) on the corpus
#     logs both libraries print alike by design, and on the made logs;
#   * twins/get_mod.c (darshan_log_get_mod after a record, in chunks, to
#     the region's end and once past it) on every corpus log and
#     make_logs.c's.
#
# And our own tools on make_logs.c's logs: darshan-diff against C's
# darshan-diff.c, darshan-dxt-parser against what darshan main's
# darshan-dxt-parser printed (twins/record.sh: ours prints main's layout),
# darshan-convert against the log it converts (MDHIM's histograms, which
# darshan-util's own writer cuts to one entry).
#
# make_logs.c writes its logs through C's library. The programs come from
# a C Darshan source tree on this machine (source.sh), never from the
# network.
set -euo pipefail
. "$(dirname "$0")/source.sh"
. "$root/tests/c-darshan/twins/common.sh"
cd "$root"
w=$(c_darshan_workdir c-util-twins)
twins_c_tree "$w"
c_util_lib > /dev/null
scripts/install.sh target/release "$w/prefix" > /dev/null
export PKG_CONFIG_PATH="$w/prefix/lib/pkgconfig"
# Built apart from C's headers, which sit beside its sources.
mkdir -p "$w/src" "$w/c-bin" "$w/our-bin"
cp "$w/c/darshan-util/darshan-dxt-parser.c" "$w/c/darshan-util/darshan-diff.c" "$w/c/darshan-util/darshan-parser.c" \
    tests/c-darshan/twins/get_mod.c "$w/src/"
for p in darshan-dxt-parser darshan-diff darshan-parser get_mod; do
    twins_build_c "$w" "$w/c-bin/$p" "$w/src/$p.c"
    cc -O1 -Wall -DPACKAGE_VERSION='"3.5.0"' $(pkg-config --cflags darshan-util) -o "$w/our-bin/$p" "$w/src/$p.c" \
        $(pkg-config --libs darshan-util) -Wl,-rpath,"$w/prefix/lib"
done
twins_logs "$w"
gen=$w/gen
corpus=../shared/corpus/logs
failed=0

# `twins WHAT PROG ARGS...`: C's and our build of PROG on ARGS alike.
twins() {
    local what=$1 prog=$2 name
    shift 2
    name=$(echo "$*" | md5sum | cut -c1-12)
    run "$w/out/c" "$name" "$w/c-bin/$prog" "$@"
    run "$w/out/ours" "$name" "$w/our-bin/$prog" "$@"
    if ! same "$w/out/c/$name" "$w/out/ours/$name"; then
        echo "util_twins: $what: $prog on $(basename "${@: -1}") differs between C's library and ours:"
        diff "$w/out/c/$name.out" "$w/out/ours/$name.out" | head -n 6 || true
        diff "$w/out/c/$name.err" "$w/out/ours/$name.err" | head -n 4 || true
        return 1
    fi
}

count() {
    local what=$1 n=$2 bad=$3
    echo "util_twins: $what: $((n - bad)) of $n alike"
    [ "$bad" = 0 ] || failed=$((failed + 1))
}

n=0 bad=0
for log in "$corpus"/*.darshan "$gen/lustre-dxt.darshan"; do
    n=$((n + 1))
    twins dxt-parser darshan-dxt-parser "$log" || bad=$((bad + 1))
done
count "C's darshan-dxt-parser.c on the corpus and the Lustre DXT log" $n $bad

n=0 bad=0
for log in "$corpus"/*.darshan "$gen"/*.darshan; do
    n=$((n + 1))
    twins get_mod get_mod "$log" || bad=$((bad + 1))
done
count "darshan_log_get_mod on the corpus and the made logs" $n $bad

# darshan-parser.c prints every record through log_print_record. Left
# out: logs with records the two libraries are built to print apart
# (AutoPerf's, which C's wheel decodes; DFS and DAOS pool and container
# ids, which it was built without libuuid to print) and the big-endian
# logs older than 3.1.7 (C misreads three POSIX fcounters there).
apart() {
    case $(basename "$1") in *ppc64-3.0.*|*ppc64-3.1.[0-6].*) return 0 ;; esac
    # (grep reads it all: a grep -q that stops early fails the pipe.)
    target/release/darshan-parser "$1" 2>/dev/null | grep -E '^# (APMPI|APXC|DFS|DAOS) module: ' > /dev/null
}
n=0 bad=0
for log in "$corpus"/*.darshan "$gen"/*.darshan; do
    apart "$log" && continue
    n=$((n + 1))
    twins parser darshan-parser --all --show-incomplete "$log" || bad=$((bad + 1))
done
count "C's darshan-parser.c on the corpus (but what the libraries print apart) and the made logs" $n $bad
n=0 bad=0
pairs=("mdhim-1 mdhim-2" "mdhim-2 mdhim-1" "mdhim-1 mdhim-1" "lustre-dxt lustre-dxt")
for pair in "${pairs[@]}"; do
    set -- $pair
    n=$((n + 1))
    ok=1
    twins diff darshan-diff "$gen/$1.darshan" "$gen/$2.darshan" || ok=0
    # Our darshan-diff against C's program on C's library.
    run "$w/out/tool" "$1-$2" target/release/darshan-diff "$gen/$1.darshan" "$gen/$2.darshan"
    name=$(echo "$gen/$1.darshan $gen/$2.darshan" | md5sum | cut -c1-12)
    if ! same "$w/out/c/$name" "$w/out/tool/$1-$2"; then
        echo "util_twins: our darshan-diff on $1 $2 differs from C's:"
        diff "$w/out/c/$name.out" "$w/out/tool/$1-$2.out" | head -n 6 || true
        ok=0
    fi
    [ $ok = 1 ] || bad=$((bad + 1))
done
count "C's darshan-diff.c (twice) and our darshan-diff on the MDHIM and Lustre logs" $n $bad

n=0 bad=0 k=0
cd "$corpus"
while read -r a b _; do
    k=$((k + 1))
    case "$a $b" in *ppc64-3.0.*|*ppc64-3.1.[0-6].*) continue ;; esac
    n=$((n + 1))
    run "$w/out/rec" "$k" "$w/our-bin/darshan-diff" "$a" "$b"
    r=$root/tests/c-darshan/diff/$k
    if ! { gzip -dc "$r.out.gz" | cmp -s - "$w/out/rec/$k.out" && cmp -s "$r.err" "$w/out/rec/$k.err" &&
        cmp -s "$r.status" "$w/out/rec/$k.status"; }; then
        echo "util_twins: darshan-diff.c on our library, pair $k ($a $b), differs from C's recording:"
        gzip -dc "$r.out.gz" | diff - "$w/out/rec/$k.out" | head -n 6 || true
        bad=$((bad + 1))
    fi
done < <(grep -v '^#' "$root/tests/c-darshan/diff/pairs.txt")
cd "$root"
count "C's darshan-diff.c on our library against its recordings" $n $bad

# Our darshan-convert keeps an MDHIM record's whole histogram (darshan-
# util's writes its first entry alone): the converted log's records, as
# C's darshan-parser.c on C's library reads them, are the ones C's writer
# wrote.
records() { "$w/c-bin/darshan-parser" "$1" | grep -v '^#' | grep .; }
timeout 60 target/release/darshan-convert "$gen/mdhim-1.darshan" "$w/mdhim-converted.darshan" > /dev/null
if [ "$(records "$w/mdhim-converted.darshan" | grep -c MDHIM_SERVER_)" = 7 ] &&
    cmp -s <(records "$gen/mdhim-1.darshan") <(records "$w/mdhim-converted.darshan"); then
    echo "util_twins: our darshan-convert of the MDHIM log: every server kept"
else
    echo "util_twins: our darshan-convert of the MDHIM log changed its records:"
    diff <(records "$gen/mdhim-1.darshan") <(records "$w/mdhim-converted.darshan") | head -n 6 || true
    failed=$((failed + 1))
fi

# In UTC, as recorded (the start and end times print in local time).
run "$w/out/tool" dxt env TZ=UTC target/release/darshan-dxt-parser "$gen/lustre-dxt.darshan"
if ! without_sizes < "$w/out/tool/dxt.out" | cmp -s tests/c-darshan/twins/lustre-dxt.main.txt - ||
    [ "$(cat "$w/out/tool/dxt.status")" != 0 ]; then
    echo "util_twins: our darshan-dxt-parser on the Lustre DXT log differs from darshan main's:"
    without_sizes < "$w/out/tool/dxt.out" | diff tests/c-darshan/twins/lustre-dxt.main.txt - | head -n 8 || true
    failed=$((failed + 1))
else
    echo "util_twins: our darshan-dxt-parser on the Lustre DXT log: as darshan main's"
fi
[ "$failed" = 0 ]
