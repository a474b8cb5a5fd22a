# Set up, build, and run the main job on a real example: instrument a real
# program (tar archiving this source tree) with libdarshan.so, show what it
# did and its log through our parser; then parse a log the C runtime wrote
# on an HPC machine.
demo:
    scripts/setup.sh
    cargo build --release
    rm -rf target/demo && mkdir -p target/demo
    target/release/darshan-run --log-dir target/demo/logs -- tar cf target/demo/src.tar crates core modules ffi
    target/release/darshan-parser --perf target/demo/logs/*.darshan | tail -12
    target/release/darshan-parser --all ../shared/corpus/logs/release_logs__mpi-io-test-x86_64-3.5.0.darshan | head -40

# All tests (installs what it needs).
test:
    scripts/test.sh

# Benchmarks; figures go to docs/performance.md.
bench:
    scripts/setup.sh
    cargo build --release
    scripts/bench-parser.sh
    scripts/bench-runtime.sh
    scripts/bench-shutdown.sh
