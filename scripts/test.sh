#!/usr/bin/env bash
# Every test: Rust unit + integration tests (corpus byte-identity against
# the C darshan-util output, round trips, mutation test, the runtime under
# LD_PRELOAD with C programs compiled at test time), PyDarshan reading every
# log the runtime wrote, and PyDarshan reading every log darshan-convert
# writes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release
rm -rf target/preload-tests
cargo test --release --workspace
# PyDarshan reads every log the runtime wrote during the tests.
.venv/bin/python tests/pydarshan/check_runtime_logs.py target/release/darshan-parser target/preload-tests
# Its converted logs in target/, not a /tmp directory left behind each run.
rm -rf target/converted && mkdir -p target/converted
.venv/bin/python tests/pydarshan/check_converted.py target/release/darshan-convert ../shared/corpus/logs target/converted
