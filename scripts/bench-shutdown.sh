#!/usr/bin/env bash
# MPI shutdown benchmark: for 2, 4 and 8 ranks and four record patterns
# (1 shared file, 1,024 shared files, 1 file per rank, 1,024 files per
# rank), the time MPI_Finalize takes without the library and with it, and
# the runtime's own split (reduce, compress, write; the slowest rank's,
# from DARSHAN_INTERNAL_TIMING). Median of RUNS runs. Results go to
# docs/performance.md by hand, with the machine and date.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
LIB=${LIB:-$PWD/target/release/libdarshan.so}
OUT=${OUT:-target/bench-shutdown}
rm -rf "$OUT" && mkdir -p "$OUT/logs"
mpicc -O2 -o "$OUT/shutdown_bench" tests/programs/shutdown_bench.c
# Not /dev/shm: Darshan (and we) never record paths under /dev/.
DATA=$PWD/$OUT/data
mkdir -p "$DATA"
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "%-6s %-11s %9s %9s %9s %9s %9s %9s %7s\n" ranks case plain_ms with_ms reduce_ms compr_ms write_ms total_ms records
for np in 2 4 8; do
  for case in shared1 shared1024 fpp1 fpp1024; do
    plain=(); with=(); red=(); comp=(); wr=(); tot=(); recs=0
    for i in $(seq "$RUNS"); do
      rm -rf "${DATA:?}"/* "$OUT"/logs/*
      p=$(mpirun --allow-run-as-root --oversubscribe -np "$np" "$OUT/shutdown_bench" "$DATA" "$case" | awk '/finalize_s/ {print $2}')
      rm -rf "${DATA:?}"/*
      line=$(mpirun --allow-run-as-root --oversubscribe -np "$np" -x LD_PRELOAD="$LIB" -x DARSHAN_LOGPATH="$OUT/logs" \
             -x DARSHAN_INTERNAL_TIMING=1 "$OUT/shutdown_bench" "$DATA" "$case" 2>&1)
      w=$(echo "$line" | awk '/finalize_s/ {print $2}')
      t=$(echo "$line" | grep 'darshan: shutdown' | sed 's/.*(finalize //; s/[,;)]//g')
      plain+=("$p"); with+=("$w")
      red+=("$(echo "$t" | awk '{print $3}')"); comp+=("$(echo "$t" | awk '{print $5}')")
      wr+=("$(echo "$t" | awk '{print $7}')")
      tot+=("$(echo "$line" | grep 'darshan: shutdown' | awk '{print $4}')")
      recs=$(target/release/darshan-parser "$OUT"/logs/*.darshan | grep -c '_OPENS' || true)
    done
    ms() { printf "%s\n" "$@" | median | awk '{printf "%.2f", $1*1000}'; }
    printf "%-6s %-11s %9s %9s %9s %9s %9s %9s %7s\n" "$np" "$case" "$(ms "${plain[@]}")" "$(ms "${with[@]}")" \
      "$(ms "${red[@]}")" "$(ms "${comp[@]}")" "$(ms "${wr[@]}")" "$(ms "${tot[@]}")" "$recs"
  done
done
