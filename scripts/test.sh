#!/usr/bin/env bash
# Every test: Rust unit + integration tests (corpus byte-identity against
# the C darshan-util output, round trips, mutation test) and PyDarshan
# reading every log our darshan-convert writes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release
cargo test --release --workspace
.venv/bin/python tests/pydarshan/check_converted.py target/release/darshan-convert ../shared/corpus/logs "$(mktemp -d)"
