#!/usr/bin/env bash
# Every test: Rust unit + integration tests (corpus byte-identity against
# the C darshan-util output, round trips, mutation test, the runtime under
# LD_PRELOAD with C programs compiled at test time), PyDarshan reading every
# log the runtime wrote, and PyDarshan reading every log darshan-convert
# writes; the facility tools' Parquet dataset read by DuckDB and Spark.
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
# darshan-summary: its figures equal PyDarshan's, its Drishti codes
# Drishti's, on every corpus log; its HTML pages render in headless
# Chromium (not blank, every section, no request, no console error).
S=target/release/darshan-summary
rm -rf target/report-pages && mkdir -p target/report-pages
timeout 1200 .venv/bin/python tests/report/check_against_pydarshan.py $S ../shared/corpus/logs/*.darshan
timeout 1200 .venv/bin/python tests/report/check_against_drishti.py target/report-pages/drishti $S .venv/bin/drishti ../shared/corpus/logs/*.darshan
for l in imbalanced_io__imbalanced-io e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only \
         mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1 \
         ior_pnetcdf_hdf5__shane_ior-HDF5_id438090-438090_11-9-41522-17417065676046418211_1 \
         partial_data_stdio__partial_data_stdio empty_log__empty_log release_logs__mpi-io-test-ppc64-3.0.0; do
    timeout 120 $S ../shared/corpus/logs/$l.darshan -o target/report-pages/$l.html 2>/dev/null
done
# and a log our runtime wrote in the tests above
timeout 120 $S "$(find target/preload-tests -name '*.darshan' -size +2k | sort | head -1)" -o target/report-pages/runtime.html
timeout 900 .venv/bin/python tests/report/check_html_in_chromium.py target/report-pages/shots target/report-pages/*.html
# darshan-ingest and darshan-study: the corpus and 2,000 generated logs
# into SQLite and a Parquet dataset; DuckDB and Spark (local mode) run the
# study's SQL over the Parquet files and must give the database's numbers;
# the study page renders in Chromium.
F=target/facility
rm -rf $F && mkdir -p $F
cargo build --release -p darshan-ingest --example synth-corpus
target/release/examples/synth-corpus $F/tree 2000 9
timeout 600 target/release/darshan-ingest -q ../shared/corpus/logs $F/tree --db $F/f.db --parquet $F/pq | tail -1
timeout 600 target/release/darshan-study --db $F/f.db --json > $F/study.json
timeout 600 target/release/darshan-study --db $F/f.db -o $F/study.html
timeout 900 .venv/bin/python tests/facility/check_engines.py crates/darshan-study/queries/study.sql $F/pq $F/study.json duckdb spark
timeout 300 .venv/bin/python tests/report/check_html_in_chromium.py \
    --sections=overview,jobs_by_size,interfaces_by_size,sharing_by_size,access_sizes,read_write_mix,io_time_by_size,top_producers,top_consumers,redundant_reads,metadata_heavy,small_shared_writes,timeline,bad-logs \
    $F/shots $F/study.html
