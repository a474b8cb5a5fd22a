#!/usr/bin/env bash
# Runtime overhead benchmark (see scripts/bench_runtime.py); results go to
# docs/performance.md by hand, with the machine and date.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
python3 scripts/bench_runtime.py target/release/libdarshan.so target/release/darshan-parser target/bench-runtime "${PAIRS:-11}"
