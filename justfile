# Set up, build, and run the main job on a real example: parse a real
# Darshan log (written by the C runtime on an HPC machine) with our parser.
demo:
    scripts/setup.sh
    cargo build --release
    target/release/darshan-parser --all ../shared/corpus/logs/release_logs__mpi-io-test-x86_64-3.5.0.darshan | head -60
    target/release/darshan-parser --perf ../shared/corpus/logs/imbalanced_io__imbalanced-io.darshan | tail -20

# All tests (installs what it needs).
test:
    scripts/test.sh

# Benchmarks; figures go to docs/performance.md.
bench:
    scripts/setup.sh
    cargo build --release
    scripts/bench-parser.sh
