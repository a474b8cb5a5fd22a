#!/usr/bin/env bash
# POSIX_META's per-call cost (see scripts/bench_meta.py); results go to
# docs/performance.md by hand, with the machine and date.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
python3 scripts/bench_meta.py target/release/libdarshan.so target/bench-meta "${PAIRS:-9}"
