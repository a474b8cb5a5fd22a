#!/usr/bin/env bash
# darshan-summary --history on the facility benchmark's database (10,000
# generated logs, scripts/bench-facility.sh; made here if that has not
# run): what the history section adds to a report, for three logs of
# applications with hundreds of earlier runs. Prints a markdown table for
# docs/performance.md and records the largest (scripts/bench_history.py).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/target/bench-facility
if [ ! -f $out/a.db ]; then
    rm -rf $out && mkdir -p $out
    cargo build --release -q -p darshan-ingest --example synth-corpus
    target/release/examples/synth-corpus $out/tree 10000 42 >/dev/null
    target/release/darshan-ingest -q --db $out/a.db $out/tree
fi
mapfile -t logs < <(find $out/tree -name '*.darshan' | sort | awk 'NR % 3331 == 1' | head -3)
echo "$(sqlite3 $out/a.db 'SELECT COUNT(*) FROM jobs' 2>/dev/null || echo 10000) jobs in the database"
python3 scripts/bench_history.py target/release/darshan-summary $out/a.db "${logs[@]}"
