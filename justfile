# Set up, build, and run the main job on a real example: instrument a real
# program (tar archiving this source tree) with libdarshan.so, show what it
# did and its log through our parser; a 4-rank MPI job's one log; then
# parse a log the C runtime wrote on an HPC machine.
demo:
    @scripts/setup.sh
    @echo "set-up: building (scripts/build.sh) ..." && scripts/build.sh -q 2> target/build.log || { tail -20 target/build.log; exit 1; }
    rm -rf target/demo && mkdir -p target/demo
    target/release/darshan-run --log-dir target/demo/logs -- tar cf target/demo/src.tar crates core modules ffi
    target/release/darshan-parser --perf target/demo/logs/*.darshan | tail -12
    # an MPI job on 4 ranks (Open MPI): one log, shared files reduced
    mpicc -O2 -o target/demo/mpi_mix tests/programs/mpi_mix.c
    mkdir -p target/demo/mpi-data target/demo/mpi-logs
    mpirun --allow-run-as-root --oversubscribe -np 4 -x LD_PRELOAD=$PWD/target/release/libdarshan.so -x DARSHAN_LOGPATH=$PWD/target/demo/mpi-logs target/demo/mpi_mix $PWD/target/demo/mpi-data
    # a real C-Darshan log from an HPC machine, read by our parser (byte-identical to darshan-parser's)
    target/release/darshan-parser --all ../shared/corpus/logs/release_logs__mpi-io-test-x86_64-3.5.0.darshan | sed -n '1,12p'
    # what the MPI job did: processes, files, bytes and I/O time per interface, busiest files
    target/release/darshan-run --summary target/demo/mpi-logs/*.darshan
    # and Darshan's own performance estimate per interface
    target/release/darshan-parser --perf target/demo/mpi-logs/*.darshan | grep -E '^# (\*+$|[A-Z-]+ module data|agg_perf_by_slowest|total_bytes)' | grep -v '^# \*'
    # the job's report: what its I/O did and what to change (HTML; --text for a terminal)
    target/release/darshan-summary --text target/demo/mpi-logs/*.darshan | sed -n '/^Diagnosis/,$p'
    target/release/darshan-summary target/demo/mpi-logs/*.darshan -o target/demo/mpi-job-report.html
    # the job's I/O as a benchmark without the program: IOR and mdtest commands (--fio for a fio job)
    target/release/darshan-replay --ior target/demo/mpi-logs/*.darshan | sed -n '/^mkdir/,$p'
    @echo "demo: the MPI job's report is $PWD/target/demo/mpi-job-report.html (open it in a browser)"


# Install the runtime, the tools, darshan-config and the compiler wrappers
# into PREFIX (bin/, lib/, lib/pkgconfig/); the tree can be moved.
# `just install PREFIX --log-path /lus/darshan-logs`: the site's dated log
# tree, as C Darshan's configure --with-log-path.
install PREFIX *OPTIONS:
    scripts/build.sh
    scripts/install.sh target/release {{PREFIX}} {{OPTIONS}}

# All tests (installs what it needs).
test:
    scripts/test.sh

# The mutation harness, long: 200 mutants of every corpus log and of the
# logs the runtime's tests wrote (run `just test` first for those), and a
# few of the 200,000-record log; every tool that reads logs on each, under
# an address-space limit and a timeout (docs/robustness.md).
fuzz:
    scripts/setup.sh
    scripts/build.sh
    mkdir -p target/log-mutants-long
    target/release/log-mutants --per-log 200 --max-seed-size 1000000 --timeout 120 --work target/log-mutants-long --json target/log-mutants-long/report.json ../shared/corpus/logs $(test -d target/preload-tests && echo target/preload-tests)
    target/release/log-mutants --per-log 12 --seed 7 --max-seed-size 20000000 --timeout 300 --work target/log-mutants-big --json target/log-mutants-big/report.json ../shared/corpus/big

# Random programs under C Darshan's library and ours, every counter that
# is not a time compared (C's log is the oracle): KIND posix, fork,
# threads, fio, fortran or python (C_LIB a non-MPI build), mpi or mpiposix
# (an MPI build; DIFFERENTIAL_MPI=mpich for MPICH's), hdf5
# (--enable-hdf5-mod), pnetcdf or h5mpi (docs/differential.md), e.g.
# `just differential posix /path/to/c-darshan/lib/libdarshan.so 1 501`;
# DIFFERENTIAL_DXT=1 compares DXT's segments too, DIFFERENTIAL_CONFIG=1
# runs each program under a random configuration.
differential KIND C_LIB first="1" last="201" calls="":
    scripts/build.sh
    scripts/differential/run.py {{KIND}} {{C_LIB}} {{first}} {{last}} {{calls}}

# Benchmarks: each figure beside the previous run's (docs/bench-figures.json,
# rewritten with this run's, machine and date); the story goes to
# docs/performance.md. C_DARSHAN_LIB=<C Darshan's libdarshan.so> adds
# C's figures side by side (C_DARSHAN_MPI_LIB its MPI build's,
# C_DARSHAN_HDF5_LIB a non-MPI build with --enable-hdf5-mod,
# C_DARSHAN_APMPI_LIB an MPI build with --enable-apmpi-mod).
bench:
    scripts/setup.sh
    scripts/build.sh
    rm -f target/bench/figures.jsonl
    scripts/bench-parser.sh
    scripts/bench-runtime.sh
    scripts/bench-meta.sh
    scripts/bench-first-io.sh
    scripts/bench-shutdown.sh
    scripts/bench-uring.sh
    scripts/bench-apmpi.sh
    scripts/bench-report.sh
    scripts/bench-facility.sh
    scripts/bench-history.sh
    scripts/bench-job-merge.sh
    scripts/bench-live.sh
    python3 scripts/bench-gate.py target/bench/figures.jsonl docs/bench-figures.json

# The per-call cost of this checkout's runtime beside another revision's,
# alternately in one sitting (the gate's run-to-run comparison cannot
# tell a code change from a sitting): `just bench-ab main~3`.
bench-ab base="HEAD~1" rounds="7":
    scripts/bench-ab.sh {{base}} {{rounds}}
