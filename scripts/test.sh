#!/usr/bin/env bash
# Every test: Rust unit + integration tests (corpus byte-identity against
# the C darshan-util output, round trips, the runtime under LD_PRELOAD
# with C programs compiled at test time), PyDarshan reading every log the
# runtime wrote, and PyDarshan reading every log darshan-convert writes,
# and every corpus log through our libdarshan-util, PyDarshan's own test
# suite through it;
# darshan-summary against PyDarshan and Drishti, its pages and the study
# page in headless Chromium (hostile names included); the facility tools'
# Parquet dataset read by DuckDB and Spark; a short pass of the mutation
# harness over every tool that reads logs.
#
# Every step runs even when an earlier one failed; the last line is
# "N passed, N failed" over every Rust test and every other check.
set -uo pipefail
cd "$(dirname "$0")/.."
# Everything this run prints is kept, so the last check can read it: a
# passing run prints no line starting with "Error:".
mkdir -p target && rm -rf target/checks
exec > >(tee target/test-output.log) 2>&1
PASSED=0
FAILED=0
FAILURES=()
# CI keeps only the last lines of a run: a failed check's own last lines
# are printed again under its name there, so the tail says why.
summary() {
    for f in "${FAILURES[@]}"; do
        echo "FAILED: $f"
        local out="target/checks/${f//[^A-Za-z0-9]/_}.log"
        [ -f "$out" ] && tail -n 8 "$out" | sed 's/^/    /'
        case $f in "cargo test"*) grep -E '^test .* FAILED$' target/cargo-test.log | head -n 20 | sed 's/^/    /' ;; esac
    done
    echo "$PASSED passed, $FAILED failed"
}
# One check: its name, then the command. Counted as one test; its output
# also kept in target/checks/ for summary().
check() {
    local name=$1; shift
    echo "== $name"
    mkdir -p target/checks
    "$@" 2>&1 | tee "target/checks/${name//[^A-Za-z0-9]/_}.log"
    if [ "${PIPESTATUS[0]}" = 0 ]; then
        PASSED=$((PASSED + 1))
    else
        FAILED=$((FAILED + 1))
        FAILURES+=("$name")
    fi
}
# Set-up and build: nothing else can run without them.
if ! scripts/setup.sh || ! scripts/build.sh; then
    FAILED=$((FAILED + 1))
    FAILURES+=("set-up and build")
    summary
    exit 1
fi
# The lint gate: formatting, then clippy over every crate and target with
# warnings as errors (the workspace's lints: every unsafe block with its
# SAFETY comment, no unsafe operation unmarked in an unsafe fn).
check "cargo fmt --check" cargo fmt --check
# The runtime library is built with its own features (scripts/build.sh),
# not the workspace's: regex's Unicode tables in it are the tools' and
# cost every process a tenth of a millisecond to relocate.
check "the runtime library carries no tool's features" scripts/check-runtime-lib.sh target/release/libdarshan.so
# The functions a short process runs lie together in its text, so that the
# kernel maps them in a few faults (ffi/build.rs, scripts/text-order.sh).
check "the code a short process runs lies together in the runtime library" \
    python3 scripts/text_order.py --check target/release/libdarshan.so ffi/text-order.txt
check "the text order survives a change that moves ThinLTO's suffixes" \
    python3 tests/bench/check_text_order.py target/release/libdarshan.so ffi/text-order.txt target/check-text-order
check "cargo clippy -D warnings" cargo clippy --release --workspace --all-targets -q -- -D warnings
# A FUSE mount a killed earlier run left under the test tree (the LUSTRE
# tests' file system) would make its removal fail: detach it first.
awk -v t="$PWD/target/preload-tests/" 'index($2, t) == 1 {print $2}' /proc/mounts | while read -r m; do
    fusermount3 -u -z "$m" 2>/dev/null || true
done
rm -rf target/preload-tests
# The Rust tests, each counted: the "test result" lines of every binary.
# The runtime's tests preload the library a centre installs, the one
# scripts/build.sh linked with the runtime's own features, not the copy
# cargo test links into deps/ with the tools' features unified.
mkdir -p target
DARSHAN_TEST_LIB="$PWD/target/release/libdarshan.so" cargo test --release --workspace --no-fail-fast 2>&1 | tee target/cargo-test.log
cargo_rc=${PIPESTATUS[0]}
read -r p f < <(awk '/^test result:/ {for (i = 1; i <= NF; i++) {if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i}} END {print p + 0, f + 0}' target/cargo-test.log)
PASSED=$((PASSED + p))
FAILED=$((FAILED + f))
if [ "$cargo_rc" != 0 ]; then
    [ "$f" = 0 ] && FAILED=$((FAILED + 1))
    FAILURES+=("cargo test (status $cargo_rc)")
fi
# Random programs that fork, every process killed at its end, under our
# library alone: each crash-safe file left must read as C's readers need
# it (PyDarshan opens it, darshan-parser prints no error). A forked
# child's once mapped POSIX_META in its header, where they cannot.
check "killed forked processes leave files C's readers read" \
    env DIFFERENTIAL_KILL=1 timeout 900 python3 scripts/differential/run.py fork none 1 61
# PyDarshan reads every log the runtime wrote during the tests.
check "PyDarshan reads the runtime's logs" \
    .venv/bin/python tests/pydarshan/check_runtime_logs.py target/release/darshan-parser target/preload-tests
# Its converted logs in target/, not a /tmp directory left behind each run.
rm -rf target/converted && mkdir -p target/converted
check "PyDarshan reads darshan-convert's logs" \
    .venv/bin/python tests/pydarshan/check_converted.py target/release/darshan-convert ../shared/corpus/logs target/converted
# PyDarshan built against darshan-util (no bundled library) finds the
# installed tree's libdarshan-util by the darshan-parser on the PATH, and
# reads every corpus log through it as through C's; its summary pages are
# byte-identical.
rm -rf target/util-prefix target/util-lib
check "PyDarshan reads every corpus log through our libdarshan-util as through C's" \
    bash -c 'scripts/install.sh target/release target/util-prefix > /dev/null &&
        timeout 1200 .venv/bin/python tests/pydarshan/check_util_lib.py target/util-prefix target/util-lib ../shared/corpus/logs/*.darshan'
# The installed dxt_analyzer.py (C's name and options) takes every corpus
# log's DXT segments as PyDarshan reads them, and draws its PDF.
rm -rf target/dxt-analyzer
check "dxt_analyzer.py's segments are PyDarshan's" \
    timeout 900 .venv/bin/python tests/pydarshan/check_dxt_analyzer.py target/util-prefix target/dxt-analyzer ../shared/corpus
# PyDarshan's own test suite (C Darshan's developers' expectations, with
# the darshan-logs repository's logs when its mirror is here) through our
# libdarshan-util: every test that passes through C's library passes.
rm -rf target/pydarshan-suite
check "PyDarshan's own test suite passes through our libdarshan-util as through C's" \
    timeout 2400 .venv/bin/python tests/pydarshan/check_suite.py target/util-prefix target/pydarshan-suite
# darshan-summary: its figures equal PyDarshan's, its Drishti codes
# Drishti's, on every corpus log; its HTML pages render in headless
# Chromium (not blank, every section, no request, no console error).
S=target/release/darshan-summary
rm -rf target/report-pages && mkdir -p target/report-pages
check "report against PyDarshan" \
    timeout 1200 .venv/bin/python tests/report/check_against_pydarshan.py $S ../shared/corpus/logs/*.darshan
check "diagnosis against Drishti" \
    timeout 1200 .venv/bin/python tests/report/check_against_drishti.py target/report-pages/drishti $S .venv/bin/drishti ../shared/corpus/logs/*.darshan
pages_ok=0
for l in imbalanced_io__imbalanced-io e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only \
         mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1 \
         ior_pnetcdf_hdf5__shane_ior-HDF5_id438090-438090_11-9-41522-17417065676046418211_1 \
         partial_data_stdio__partial_data_stdio empty_log__empty_log release_logs__mpi-io-test-ppc64-3.0.0; do
    timeout 120 $S ../shared/corpus/logs/$l.darshan -o target/report-pages/$l.html 2>/dev/null || pages_ok=1
    timeout 120 $S --json ../shared/corpus/logs/$l.darshan -o target/report-pages/$l.json || pages_ok=1
done
# and a log our runtime wrote in the tests above
runtime_log=$(find target/preload-tests -name '*.darshan' -size +2k | sort | head -1)
timeout 120 $S "$runtime_log" -o target/report-pages/runtime.html || pages_ok=1
timeout 120 $S --json "$runtime_log" -o target/report-pages/runtime.json || pages_ok=1
# and the metadata-storm log of the report's known-answer tests (POSIX_META)
storm=target/tmp/ns-storm/storm.darshan
if [ -f "$storm" ]; then timeout 120 $S "$storm" -o target/report-pages/metadata-storm.html || pages_ok=1; else pages_ok=1; fi
# The DLIO training run's 24 logs merged as a job (a Python/AI job without
# MPI): its figures against PyDarshan's reading of each process's log, its
# page through the DOM; its page then joins the others below.
rm -rf target/dlio-job && mkdir -p target/dlio-job
check "DLIO job: processes, passes, software apart, no MPI advice (JSON, PyDarshan, Chromium)" \
    timeout 900 .venv/bin/python tests/report/check_dlio_job.py target/dlio-job target/release/darshan-merge $S ../shared/corpus/logs
if [ -f target/dlio-job/dlio_job.darshan ]; then
    timeout 120 $S target/dlio-job/dlio_job.darshan -o target/report-pages/dlio_job.html || pages_ok=1
    timeout 120 $S --json target/dlio-job/dlio_job.darshan -o target/report-pages/dlio_job.json || pages_ok=1
fi
check "report pages written" test $pages_ok = 0
# The header's cost line (issue 51): a log the runtime wrote says what it
# cost, the page shows the log's own figures; a C log shows none.
check "report's cost line in Chromium" \
    timeout 300 .venv/bin/python tests/report/check_cost_line.py target/report-pages/cost $S target/release/darshan-parser \
    "$(ls -t target/preload-tests/cost-serial-*/logs/*.darshan 2>/dev/null | head -1)" \
    ../shared/corpus/logs/release_logs__mpi-io-test-x86_64-3.5.0.darshan \
    "$(ls -t target/preload-tests/crash-std-first-run-time-*/mmap/*.darshan 2>/dev/null | head -1)"
# The io_uring section (issue 52) against the known patterns of the
# liburing copy and the inline-syscall program ffi/tests/io_uring.rs ran.
check "report's io_uring section (JSON, Chromium)" \
    timeout 300 .venv/bin/python tests/report/check_io_uring.py target/report-pages/io-uring $S \
    "$(ls -t target/preload-tests/uring-copy-*/logs/*.darshan 2>/dev/null | head -1)" \
    "$(ls -t target/preload-tests/uring-inline-*/logs/*.darshan 2>/dev/null | head -1)"
# The MPI communication section: AutoPerf's APMPI records (C Darshan
# built with them) against PyDarshan's reading of them, a page through
# the DOM.
check "report's MPI communication section (JSON against PyDarshan, Chromium)" \
    timeout 900 .venv/bin/python tests/report/check_mpi_comm.py target/report-pages/mpi $S ../shared/corpus/logs/*.darshan
# The history section (issue 53) on the real runs ffi/tests/history.rs
# made: an identical run, 20-byte writes, an extra file and a slow rank,
# an application with 3 runs; the page through the DOM against --json.
check "report's history section (JSON, Chromium)" \
    timeout 600 .venv/bin/python tests/report/check_history.py target/report-pages/history $S target/history-test
# The DXT traces for Perfetto (issue 54): every corpus log with DXT,
# drawn by a small Trace Event viewer of our own, one slice per segment.
check "DXT traces for Perfetto drawn in Chromium" \
    timeout 900 .venv/bin/python tests/report/check_trace_viewer.py target/report-pages/traces target/release/darshan-dxt-parser \
    ../shared/corpus/logs/*.darshan
# The benchmark gate marks changes beyond the spread, and only those.
check "benchmark gate" python3 tests/bench/check_gate.py target/check-gate
# The stated cost against the time measured outside the process.
check "stated cost against an outside measurement" \
    timeout 1800 python3 scripts/check-cost.py target/release/libdarshan.so target/release/darshan-parser target/check-cost
check "report pages in Chromium" \
    timeout 900 .venv/bin/python tests/report/check_html_in_chromium.py target/report-pages/shots target/report-pages/*.html
# The pictures: every category labelled, no overlapping labels, units on
# axes, whole ranks, a colour scale on every heat map, no sideways scroll
# (the study page's charts are checked after it is built, below).
chart_pairs=()
for h in target/report-pages/*.html; do
    [ -f "${h%.html}.json" ] && chart_pairs+=("$h:${h%.html}.json")
done
check "report charts in Chromium" \
    timeout 900 .venv/bin/python tests/report/check_charts.py target/report-pages/charts "${chart_pairs[@]}"
# Our page and PyDarshan's for the same three logs, screenshotted side by
# side for docs/report.md (target/report-pages/side-by-side/).
check "report beside PyDarshan's in Chromium" \
    timeout 1500 .venv/bin/python tests/report/side_by_side.py target/report-pages/side-by-side $S .venv/bin/python \
    ../shared/corpus/logs/imbalanced_io__imbalanced-io.darshan \
    ../shared/corpus/logs/e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only.darshan \
    tests/diagnosis/logs/collective.darshan
# darshan-ingest and darshan-study: the corpus and 2,000 generated logs
# into SQLite and a Parquet dataset; DuckDB and Spark (local mode) run the
# study's SQL over the Parquet files and must give the database's numbers;
# the study page renders in Chromium.
F=target/facility
rm -rf $F && mkdir -p $F
facility() {
    cargo build --release -p darshan-ingest --example synth-corpus &&
        target/release/examples/synth-corpus $F/tree 2000 9 &&
        timeout 600 target/release/darshan-ingest -q ../shared/corpus/logs $F/tree --db $F/f.db --parquet $F/pq &&
        timeout 600 target/release/darshan-study --db $F/f.db --json > $F/study.json &&
        timeout 600 target/release/darshan-study --db $F/f.db -o $F/study.html
}
check "facility database and study" facility
check "MPI communication in the database against PyDarshan" \
    timeout 900 .venv/bin/python tests/facility/check_mpi_comm_db.py $F/f.db ../shared/corpus/logs/*.darshan
check "study SQL on DuckDB and Spark" \
    timeout 900 .venv/bin/python tests/facility/check_engines.py crates/darshan-study/queries/study.sql $F/pq $F/study.json duckdb spark
check "study page in Chromium" \
    timeout 300 .venv/bin/python tests/report/check_html_in_chromium.py \
    --sections=overview,jobs_by_size,interfaces_by_size,sharing_by_size,access_sizes,read_write_mix,io_time_by_size,top_producers,top_consumers,redundant_reads,metadata_heavy,small_shared_writes,mpi_comm_share,mpi_operations,timeline,regressions,bad-logs \
    $F/shots $F/study.html
check "study charts in Chromium" \
    timeout 300 .venv/bin/python tests/report/check_charts.py $F/charts --study $F/study.html:$F/study.json
# Hostile names: a program compiled here makes files named as markup and
# terminal escapes; its report and the study page of a database holding
# it, loaded in Chromium, show each name as text and gain no element.
check "hostile names in Chromium" \
    timeout 600 .venv/bin/python tests/report/check_hostile_names.py target/hostile-names
# The mutation harness, short pass: mutants of the corpus and of the
# runtime's logs (crash-safe files included), every tool that reads logs.
mutant_seeds=(../shared/corpus/logs)
[ -d target/preload-tests ] && mutant_seeds+=(target/preload-tests)
check "mutation harness (short)" \
    timeout 1200 target/release/log-mutants --per-log 8 --max-seed-size 1000000 --timeout 60 \
    --work target/log-mutants --json target/log-mutants/report.json "${mutant_seeds[@]}"
# C Darshan 3.5.0's own tests, unmodified, against our install tree,
# where its source is on this machine (it is never fetched): counted when
# they run, said when they cannot (exit 77). Its `make check` script
# (tst_runs.sh), its regression suite (darshan-test/regression), the
# end-to-end Python tests its CI runs (python_runtime_tests.py), and its
# C programs on darshan-util's API built against our headers and library
# (util_programs: darshan-parser.c, the accumulator unit test; util_twins:
# darshan-dxt-parser.c and darshan-diff.c built against C's library and
# ours alike; util_autoperf: the same, and PyDarshan, on AutoPerf's APMPI
# records, with a tree installed with --enable-apmpi-mod); tst_log_path:
# darshan main's later test of where logs go under each log path setting).
for suite in tst_runs tst_log_path regression python_runtime_tests util_programs util_twins util_autoperf; do
    tests/c-darshan/$suite.sh > target/c-$suite.log 2>&1
    rc=$?
    cat target/c-$suite.log
    if [ $rc != 77 ]; then
        check "C Darshan's $suite on our install tree" test $rc = 0
    fi
done
# A green run once printed "Error: Invalid DXT POSIX module version
# number" (PyDarshan's C reader, on a layout it refuses) and fusermount's
# "busy": lines a reader takes for failures. None may appear.
sleep 1
check "no Error: or fusermount3: line in the run's output" \
    bash -c '! grep -n -e "^Error:" -e "^fusermount3:" target/test-output.log'
summary
[ "$FAILED" = 0 ]
