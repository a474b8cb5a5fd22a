#!/usr/bin/env bash
# Build everything, then the runtime library on its own (usage:
# scripts/build.sh [-q]). A workspace build unifies the features of every
# crate's dependencies: the tools' async-nats turns on regex's Unicode
# tables, which the runtime's regex-automata then links too. That
# libdarshan.so is 4.05 MB with 12,676 relative relocations and costs
# every process it is preloaded into about 0.15 ms more to load than the
# runtime built alone (3.08 MB, 4,043; docs/performance.md, 2026-11-28).
# The second build writes target/release/libdarshan.so and .a again with
# the runtime's own features; `cargo test` does not replace them.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release "$@"
cargo build --release -p darshan-ffi "$@"
# The linker orders the library's text by ffi/text-order.txt as resolved
# against the last build (ffi/build.rs): names ThinLTO suffixed with a
# module's hash are looked up again in the library just built, and when
# they moved the library is linked once more (about 15 s), in the order
# the list means.
target=${CARGO_TARGET_DIR:-$PWD/target}/release
if command -v python3 >/dev/null && command -v nm >/dev/null && [ -f "$target/text-order.resolved.txt" ] &&
    python3 scripts/text_order.py --resolve "$target/libdarshan.so" ffi/text-order.txt "$target/text-order.resolved.txt"; then
    cargo build --release -p darshan-ffi "$@"
fi
