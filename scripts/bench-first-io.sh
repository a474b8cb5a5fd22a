#!/usr/bin/env bash
# The first file I/O of a threaded program (issue 36): open + write 4 KiB
# + close, timed inside the program (tests/programs/first_io_threaded.c),
# without the library and under it, each run alternating, with and
# without an idle second thread, under open-file limits of 1,024 and
# 1,048,576. Prints the median of RUNS runs per case, in microseconds, and
# the descriptor table size (FDSize) each left. With C_DARSHAN_LIB set to
# a C Darshan libdarshan.so, its runs are timed too (a third column).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-21}
lib=$PWD/target/release/libdarshan.so
# Absolute: C Darshan takes a relative DARSHAN_LOGPATH or
# DARSHAN_MMAP_LOGPATH as one under / ("unable to create darshan log file
# /target/..."), and then ran without its crash-safe file.
w=$PWD/target/bench-first-io
rm -rf "$w" && mkdir -p "$w/logs" "$w/mmap"
cc -O2 -pthread -o "$w/first_io" tests/programs/first_io_threaded.c
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
clib=${C_DARSHAN_LIB:-}
printf '%-9s %-7s %12s %12s %12s %8s %8s\n' limit thread "without(us)" "with(us)" "C(us)" fd_w/o fd_with
for limit in 1024 1048576; do
    for thread in "" thread; do
        : > "$w/without" ; : > "$w/with" ; : > "$w/c"
        kinds=(without with)
        [ -n "$clib" ] && kinds+=(c)
        for i in $(seq "$RUNS"); do
            # The order rotates and each run starts after a pause: run back
            # to back, whichever came right after a run without the library
            # found the file system idle and the caches warm (the same
            # library measured 277 and 440 us in two places of one loop).
            for j in "${!kinds[@]}"; do
                kind=${kinds[$(((i + j) % ${#kinds[@]}))]}
                sleep 0.03
                case $kind in
                    without) pre= ;;
                    with) pre="env LD_PRELOAD=$lib DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH=$w/logs DARSHAN_MMAP_LOGPATH=$w/mmap" ;;
                    c) pre="env LD_PRELOAD=$clib DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH=$w/logs DARSHAN_MMAP_LOGPATH=$w/mmap" ;;
                esac
                sh -c "ulimit -n $limit 2>/dev/null; exec $pre $w/first_io $w/f.dat $thread" >> "$w/$kind"
            done
        done
        a=$(sed 's/.*first_io_ns=\([0-9]*\).*/\1/' "$w/without" | median)
        b=$(sed 's/.*first_io_ns=\([0-9]*\).*/\1/' "$w/with" | median)
        c=$(sed 's/.*first_io_ns=\([0-9]*\).*/\1/' "$w/c" | median)
        fa=$(sed 's/.*fdsize=\([0-9]*\).*/\1/' "$w/without" | median)
        fb=$(sed 's/.*fdsize=\([0-9]*\).*/\1/' "$w/with" | median)
        us() { if [ -n "$1" ]; then awk -v n="$1" 'BEGIN {printf "%.1f", n / 1000}'; else echo -; fi; }
        printf '%-9s %-7s %12s %12s %12s %8s %8s\n' "$limit" "${thread:-no}" "$(us "$a")" "$(us "$b")" "$(us "$c")" "$fa" "$fb"
        key="first_io.limit_${limit}_${thread:-nothread}"
        python3 scripts/bench_figures.py "$key.added" "$(awk -v a="$a" -v b="$b" 'BEGIN {print (b - a) / 1000}')" us
        if [ -n "$c" ]; then
            python3 scripts/bench_figures.py "$key.added_c" "$(awk -v a="$a" -v c="$c" 'BEGIN {print (c - a) / 1000}')" us
        fi
    done
done
