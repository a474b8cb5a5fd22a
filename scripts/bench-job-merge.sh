#!/usr/bin/env bash
# Issue 39: darshan-merge --job over the per-process logs of one job
# without MPI, at 1,000 and 10,000 processes (generated logs, our own
# writer: each task reads its own input and writes its slice of one shared
# output), wall time and peak RSS by GNU time, one run each; and the log
# it makes read back (nprocs, the shared record once). Prints a markdown
# table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/target/bench-job-merge && rm -rf "$out" && mkdir -p "$out"
cargo build --release -q -p darshan-ingest --example synth-job
echo "| processes | logs (MB) | wall | peak RSS | records out |"
echo "|---|---|---|---|---|"
for n in 1000 10000; do
    d=$out/p$n && mkdir -p "$d"
    target/release/examples/synth-job "$d" "$n" >/dev/null
    mb=$(du -sm "$d" | cut -f1)
    if /usr/bin/time -f '%e %M' -o "$out/time.txt" timeout 600 \
        target/release/darshan-merge --job --output "$out/job$n.darshan" "$d" 2> "$out/merge.err"; then
        read -r secs kb < "$out/time.txt"
        recs=$(sed -n 's/.* \([0-9]*\) records.*/\1/p' "$out/merge.err")
        nprocs=$(target/release/darshan-parser "$out/job$n.darshan" | sed -n 's/^# nprocs: //p')
        [ "$nprocs" = "$n" ] || { echo "nprocs $nprocs, expected $n" >&2; exit 1; }
        printf '| %s | %s | %.2f s | %.0f MB | %s |\n' "$n" "$mb" "$secs" "$((kb / 1024))" "$recs"
    else
        echo "| $n | $mb | failed: $(tail -1 "$out/merge.err") | | |"
    fi
done
