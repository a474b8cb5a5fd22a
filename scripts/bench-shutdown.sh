#!/usr/bin/env bash
# MPI shutdown benchmark: for 2, 4, 8 and 16 ranks (NPS; issue 51's goals
# name 4, 8 and 16, which a 2-core machine runs oversubscribed) and four
# record patterns (1 shared file, 1,024 shared files, 1 file per rank,
# 1,024 files per rank), the time MPI_Finalize takes without the library
# and with it, and the runtime's own split (reduce, compress, write; the
# slowest rank's, from DARSHAN_INTERNAL_TIMING), and MPI_Init's time (the slowest rank's).
# With C_DARSHAN_MPI_LIB set to C Darshan's MPI build, its MPI_Init and
# MPI_Finalize are timed too, side by side. Median of RUNS runs; each
# figure is recorded for the benchmark gate (scripts/bench_figures.py).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
LIB=${LIB:-$PWD/target/release/libdarshan.so}
OUT=${OUT:-target/bench-shutdown}
# A relative OUT is the repository's (the script works from its root); an
# absolute one is taken as given (it was once put under the root too).
case "$OUT" in /*) ;; *) OUT=$PWD/$OUT ;; esac
rm -rf "$OUT" && mkdir -p "$OUT/logs"
mpicc -O2 -o "$OUT/shutdown_bench" tests/programs/shutdown_bench.c
# Not /dev/shm: Darshan (and we) never record paths under /dev/.
DATA=$OUT/data
mkdir -p "$DATA"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
CLIB=${C_DARSHAN_MPI_LIB:-}
mkdir -p "$OUT/clogs"
printf "%-6s %-11s %9s %9s %9s %9s %9s %9s %7s %9s %9s %9s %9s\n" ranks case plain_ms with_ms reduce_ms compr_ms write_ms total_ms records \
  init_plain init_with finalize_c init_c
for np in ${NPS:-2 4 8 16}; do
  for case in shared1 shared1024 fpp1 fpp1024; do
    plain=(); with=(); red=(); comp=(); wr=(); tot=(); recs=0; ip=(); iw=(); fc=(); ic=()
    for i in $(seq "$RUNS"); do
      rm -rf "${DATA:?}"/* "$OUT"/logs/*
      pl=$(mpirun --allow-run-as-root --oversubscribe -np "$np" "$OUT/shutdown_bench" "$DATA" "$case")
      p=$(echo "$pl" | awk '/finalize_s/ {print $2}'); ip+=("$(echo "$pl" | awk '/init_s/ {print $2}')")
      rm -rf "${DATA:?}"/*
      if [ -n "$CLIB" ]; then
        cl=$(mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$CLIB" -x DARSHAN_LOGPATH="$OUT/clogs" \
             "$OUT/shutdown_bench" "$DATA" "$case" 2>&1)
        fc+=("$(echo "$cl" | awk '/finalize_s/ {print $2}')"); ic+=("$(echo "$cl" | awk '/init_s/ {print $2}')")
        rm -rf "${DATA:?}"/* "$OUT"/clogs/*
      fi
      line=$(mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$LIB" -x DARSHAN_LOGPATH="$OUT/logs" \
             -x DARSHAN_INTERNAL_TIMING=1 "$OUT/shutdown_bench" "$DATA" "$case" 2>&1)
      w=$(echo "$line" | awk '/finalize_s/ {print $2}'); iw+=("$(echo "$line" | awk '/init_s/ {print $2}')")
      op() { echo "$line" | awk -F'\t' -v op="darshan:$1" '$1 == op {print $3}'; }
      plain+=("$p"); with+=("$w")
      red+=("$(op reduce)"); comp+=("$(op compress)"); wr+=("$(op write)"); tot+=("$(op core_shutdown)")
      recs=$(target/release/darshan-parser "$OUT"/logs/*.darshan | grep -c '_OPENS' || true)
    done
    ms() { if [ $# -gt 0 ] && [ -n "$1" ]; then printf "%s\n" "$@" | median | awk '{printf "%.2f", $1*1000}'; else echo -; fi; }
    printf "%-6s %-11s %9s %9s %9s %9s %9s %9s %7s %9s %9s %9s %9s\n" "$np" "$case" "$(ms "${plain[@]}")" "$(ms "${with[@]}")" \
      "$(ms "${red[@]}")" "$(ms "${comp[@]}")" "$(ms "${wr[@]}")" "$(ms "${tot[@]}")" "$recs" \
      "$(ms "${ip[@]}")" "$(ms "${iw[@]}")" "$(ms "${fc[@]}")" "$(ms "${ic[@]}")"
    k="mpi.np${np}_${case}"
    fig() { [ "$2" != - ] && python3 scripts/bench_figures.py "$k.$1" "$2" ms; true; }
    fig finalize_plain "$(ms "${plain[@]}")"; fig finalize_with "$(ms "${with[@]}")"
    fig init_plain "$(ms "${ip[@]}")"; fig init_with "$(ms "${iw[@]}")"
    fig finalize_c "$(ms "${fc[@]}")"; fig init_c "$(ms "${ic[@]}")"
  done
done
