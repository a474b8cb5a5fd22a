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
# A FUSE mount a killed earlier run left under the test tree (the LUSTRE
# tests' file system) would make its removal fail: detach it first.
awk -v t="$PWD/target/preload-tests/" 'index($2, t) == 1 {print $2}' /proc/mounts | while read -r m; do
    fusermount3 -u -z "$m" 2>/dev/null || true
done
rm -rf target/preload-tests
cargo test --release --workspace
# PyDarshan reads every log the runtime wrote during the tests.
.venv/bin/python tests/pydarshan/check_runtime_logs.py target/release/darshan-parser target/preload-tests
# Its converted logs in target/, not a /tmp directory left behind each run.
rm -rf target/converted && mkdir -p target/converted
.venv/bin/python tests/pydarshan/check_converted.py target/release/darshan-convert ../shared/corpus/logs target/converted
