#!/usr/bin/env bash
# The APMPI module's cost per MPI call (tests/programs/apmpi_bench.c, one
# rank, Open MPI): MPI_Test on a null request, MPI_Iprobe without a
# message, MPI_Allreduce of one int; without the library, with it and the
# module off (the default: the wrappers pass through), and on
# (DARSHAN_MOD_ENABLE=APMPI); with C_DARSHAN_APMPI_LIB (C Darshan 3.5.0's
# MPI build configured with --enable-apmpi-mod) C's too. RUNS alternating
# runs, medians; the figures are ns added per call.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-9}
N=${N:-2000000}
lib=$PWD/target/release/libdarshan.so
w=target/bench-apmpi
rm -rf "$w" && mkdir -p "$w/logs"
mpicc -O2 -o "$w/apmpi_bench" tests/programs/apmpi_bench.c
run() { # run NAME [env...]: one run's three figures appended to $w/NAME.<call>
    local name=$1; shift
    local line
    line=$(timeout 300 mpirun --allow-run-as-root -np 1 "$@" "$w/apmpi_bench" "$N")
    for call in test iprobe allreduce; do
        echo "$line" | tr ' ' '\n' | sed -n "s/^$call=//p" >> "$w/$name.$call"
    done
}
cases=(none off on)
[ -n "${C_DARSHAN_APMPI_LIB:-}" ] && cases+=(c)
for i in $(seq "$RUNS"); do
    for c in "${cases[@]}"; do
        case $c in
            none) run none ;;
            off) run off -x LD_PRELOAD="$lib" -x DARSHAN_LOGPATH="$w/logs" ;;
            on) run on -x LD_PRELOAD="$lib" -x DARSHAN_LOGPATH="$w/logs" -x DARSHAN_MOD_ENABLE=APMPI ;;
            c) run c -x LD_PRELOAD="$C_DARSHAN_APMPI_LIB" -x DARSHAN_LOGPATH="$w/logs" ;;
        esac
    done
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for call in test iprobe allreduce; do
    base=$(median < "$w/none.$call")
    for c in "${cases[@]:1}"; do
        m=$(median < "$w/$c.$call")
        added=$(awk -v a="$base" -v b="$m" 'BEGIN {printf "%.1f", b - a}')
        echo "MPI_${call}: $base ns without the library, $m with ($c): +$added ns"
        python3 scripts/bench_figures.py "apmpi.${call}_${c}_added" "$added" ns
    done
done
