#!/usr/bin/env bash
# Facility-scale benchmark (issue 15): a generated facility of N logs
# (default 10,000, our own writer), ingested by darshan-ingest (SQLite, and
# SQLite + Parquet), the study's queries (darshan-study --json), beside the
# usual pipelines on the same logs: darshan-parser --total per log piped to
# a Python script, and PyDarshan's job_stats. Wall time and peak RSS by GNU
# time, one run each. Prints a markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-10000}
out=$PWD/target/bench-facility && rm -rf $out && mkdir -p $out
cargo build --release -q -p darshan-ingest --example synth-corpus
target/release/examples/synth-corpus $out/tree "$N" 42 >/dev/null
find $out/tree -name '*.darshan' | sort > $out/logs.txt
n=$(wc -l < $out/logs.txt)
size=$(du -sm $out/tree | cut -f1)
measure() { # label, command... -> table row
    local label=$1; shift
    if /usr/bin/time -f '%e %M' -o $out/time.txt timeout 1800 "$@" > $out/last.out 2> $out/last.err; then
        awk -v l="$label" -v n="$n" '{printf "| %s | %.2f s | %.0f logs/s | %.0f MB |\n", l, $1, ($1 > 0 ? n / $1 : 0), $2/1024}' $out/time.txt
    else
        echo "| $label | failed or over 1800 s | | |"
    fi
}
echo "$n logs, $size MB, $(nproc) cores"
echo
echo "| step | wall | rate | peak RSS |"
echo "|---|---|---|---|"
measure "darshan-ingest → SQLite" target/release/darshan-ingest -q --db $out/a.db $out/tree
measure "darshan-ingest again (nothing new)" target/release/darshan-ingest -q --db $out/a.db $out/tree
measure "darshan-ingest → SQLite + Parquet" target/release/darshan-ingest -q --db $out/b.db --parquet $out/pq $out/tree
measure "darshan-study --json (every query + timeline)" target/release/darshan-study --db $out/a.db --json
python3 -c "import json,sys; s=json.load(open('$out/last.out')); print(f\"(SQL queries {s['query_seconds']:.3f} s, timeline {s['timeline_seconds']:.3f} s)\")" >&2
measure "darshan-study HTML page" target/release/darshan-study --db $out/a.db -o $out/study.html
measure "usual: darshan-parser --total per log + Python script" \
    bash -c "xargs -a $out/logs.txt -n 1 target/release/darshan-parser --total | python3 scripts/bench_facility_usual.py"
measure "usual: PyDarshan job_stats (POSIX)" .venv/bin/python -m darshan job_stats --log_paths_file $out/logs.txt --module POSIX --limit 10
echo
echo "SQLite database $(du -m $out/a.db | cut -f1) MB, Parquet dataset $(du -sm $out/pq | cut -f1) MB"
