#!/usr/bin/env bash
# Parser benchmark on the 200,000-record log (issue 2): wall time and peak
# RSS of darshan-parser's default output, --total and --perf, and a check
# that the outputs are the C parser's (md5 / reference files).
set -euo pipefail
cd "$(dirname "$0")/.."
BIG=../shared/corpus/big
P=target/release/darshan-parser
[ -x "$P" ] || cargo build --release -q
runs=${RUNS:-3}
# Its outputs (the default one is 1.55 GB) under target/, on the same file
# system as /tmp here, removed at the end: they used to stay in /tmp.
W=target/bench-parser
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
measure() { # label, args...
    local label=$1; shift
    local best=999999 rss=0
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$W/time" "$P" "$@" > "$W/out"
        read -r t m < "$W/time"
        best=$(python3 -c "print(min($best, $t))")
        rss=$m
    done
    printf '%-10s best of %s: %6.2f s   peak RSS %6.1f MB\n' "$label" "$runs" "$best" "$(python3 -c "print($rss/1024)")"
}
measure default "$BIG/open_storm_200k.darshan"
sum=$(md5sum < "$W/out" | cut -d' ' -f1)
want=$(cut -d' ' -f1 "$BIG/open_storm_200k.base.md5")
[ "$sum" = "$want" ] && echo "default output md5 matches the C parser ($sum)" || { echo "MD5 MISMATCH $sum != $want"; exit 1; }
measure --total --total "$BIG/open_storm_200k.darshan"
cmp -s "$W/out" "$BIG/open_storm_200k.total.txt" && echo "--total output identical to the C parser's" || { echo "--total differs"; exit 1; }
measure --perf --perf "$BIG/open_storm_200k.darshan"
cmp -s "$W/out" "$BIG/open_storm_200k.perf.txt" && echo "--perf output identical to the C parser's" || { echo "--perf differs"; exit 1; }
