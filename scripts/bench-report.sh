#!/usr/bin/env bash
# darshan-summary beside PyDarshan's `python -m darshan summary` on the same
# logs: wall time and peak memory (GNU time), one run each, same machine.
# Prints a markdown table for docs/performance.md.
set -euo pipefail
cd "$(dirname "$0")/.."
S=target/release/darshan-summary
out=$PWD/target/bench-report && rm -rf $out && mkdir -p $out
logs=(../shared/corpus/big/open_storm_200k.darshan
      ../shared/corpus/logs/imbalanced_io__imbalanced-io.darshan
      ../shared/corpus/logs/e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only.darshan
      ../shared/corpus/logs/mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan)
measure() { # label, command... -> "seconds MB" (or "failed")
    local t=$out/time.txt
    if /usr/bin/time -f '%e %M' -o $t timeout 900 "$@" >/dev/null 2>&1; then
        awk '{printf "%.2f s, %.0f MB", $1, $2/1024}' $t
    else
        echo "failed or over 900 s"
    fi
}
echo "| log | darshan-summary HTML | darshan-summary JSON | PyDarshan summary |"
echo "|---|---|---|---|"
for l in "${logs[@]}"; do
    n=$(basename "$l" .darshan)
    a=$(measure $S "$l" -o $out/$n.html)
    b=$(measure $S --json -o $out/$n.json "$l")
    c=$(cd $out && measure "$OLDPWD/.venv/bin/python" -m darshan summary "$(realpath "$OLDPWD/$l")" --output $n.pyd.html)
    echo "| ${n:0:48} | $a | $b | $c |"
done
