#!/usr/bin/env bash
# Issue 40: the live view's cost (scripts/bench_live.py).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/bench_live.py target/release target/bench-live "${N:-100}"
