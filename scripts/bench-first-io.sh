#!/usr/bin/env bash
# The first file I/O of a threaded program (issue 36): open + write 4 KiB
# + close, timed inside the program (tests/programs/first_io_threaded.c),
# without the library and under it, each run alternating, with and
# without an idle second thread, under open-file limits of 1,024 and
# 1,048,576. Prints the median of RUNS runs per case, in microseconds, and
# the descriptor table size (FDSize) each left.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-21}
lib=$PWD/target/release/libdarshan.so
w=target/bench-first-io
rm -rf "$w" && mkdir -p "$w/logs" "$w/mmap"
cc -O2 -pthread -o "$w/first_io" tests/programs/first_io_threaded.c
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-9s %-7s %12s %12s %8s %8s\n' limit thread "without(us)" "with(us)" fd_w/o fd_with
for limit in 1024 1048576; do
    for thread in "" thread; do
        : > "$w/without" ; : > "$w/with"
        for i in $(seq "$RUNS"); do
            sh -c "ulimit -n $limit 2>/dev/null; exec $w/first_io $w/f.dat $thread" >> "$w/without"
            sh -c "ulimit -n $limit 2>/dev/null; exec env LD_PRELOAD=$lib DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH=$w/logs DARSHAN_MMAP_LOGPATH=$w/mmap $w/first_io $w/f.dat $thread" >> "$w/with"
        done
        a=$(sed 's/.*first_io_ns=\([0-9]*\).*/\1/' "$w/without" | median)
        b=$(sed 's/.*first_io_ns=\([0-9]*\).*/\1/' "$w/with" | median)
        fa=$(sed 's/.*fdsize=\([0-9]*\).*/\1/' "$w/without" | median)
        fb=$(sed 's/.*fdsize=\([0-9]*\).*/\1/' "$w/with" | median)
        printf '%-9s %-7s %12s %12s %8s %8s\n' "$limit" "${thread:-no}" "$(awk -v n="$a" 'BEGIN {printf "%.1f", n / 1000}')" \
            "$(awk -v n="$b" 'BEGIN {printf "%.1f", n / 1000}')" "$fa" "$fb"
    done
done
