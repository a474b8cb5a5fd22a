#!/usr/bin/env bash
# The per-call cost of this checkout's runtime beside another revision's,
# in one sitting (usage: scripts/bench-ab.sh [BASE_REV] [ROUNDS]; default
# the commit before HEAD, 7 rounds). The benchmark gate compares a run
# with the previous run, and per-call figures here move 30-70 % from one
# sitting to the next (the VM's rdtsc read 10 ns one day, 20 ns another):
# whether a change made calls dearer is only answered by running both
# libraries alternately, in the same minutes, on the same CPU. Prints the
# median, minimum and maximum added ns per call of each library and the
# difference of the medians. BASE_LIB=path uses that library as the base
# instead of building BASE_REV's (a build takes minutes; the layout
# lottery wants many comparisons).
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
rounds=${2:-7}
rev=$(git rev-parse --verify --quiet "$base^{commit}") || { echo "bench-ab: no revision $base" >&2; exit 2; }
w=target/bench-ab
rm -rf "$w" && mkdir -p "$w"
data=$(mktemp -d /dev/shm/darshan-bench-ab.XXXXXX)
if [ -n "${BASE_LIB:-}" ]; then
    trap 'rm -rf "$data"' EXIT
    cp "$BASE_LIB" "$w/base.so"
    rev="$BASE_LIB"
else
    # The base's library, built with the runtime's own features as
    # scripts/build.sh builds this checkout's, in a worktree of its own.
    tree=$(mktemp -d /tmp/darshan-bench-ab.XXXXXX)
    # Nothing left behind in /tmp or /dev/shm, whatever step fails.
    trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree" "$tree-target" "$data"' EXIT
    git worktree add --detach -q "$tree" "$rev"
    (cd "$tree" && CARGO_TARGET_DIR="$PWD/../$(basename "$tree")-target" cargo build -q --release -p darshan-ffi)
    cp "$tree-target/release/libdarshan.so" "$w/base.so"
fi
scripts/build.sh -q
cp target/release/libdarshan.so "$w/head.so"
cc -O2 -o "$w/ab_calls" tests/programs/ab_calls.c
# The recorded file on a tmpfs outside Darshan's excluded prefixes (as
# bench_runtime.py does), the untracked one under /dev/shm ($data).
mnt=/mnt/darshan-bench-tmpfs
if ! mountpoint -q "$mnt" 2>/dev/null; then
    mkdir -p "$mnt" 2>/dev/null && mount -t tmpfs -o size=1g tmpfs "$mnt" 2>/dev/null || true
fi
tracked_dir=$w
if mountpoint -q "$mnt" 2>/dev/null; then
    tracked_dir=$mnt
else
    echo "bench-ab: no tmpfs at $mnt (not root?): the recorded file is on $w's file system, so each figure includes its cost beside /dev/shm's" >&2
fi
cpu=$(($(nproc) - 1))
for i in $(seq "$rounds"); do
    for lib in base head; do
        rm -f "$tracked_dir/ab" "$data/ab"
        env LD_PRELOAD="$PWD/$w/$lib.so" DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH="$data" \
            DARSHAN_MMAP_LOGPATH="$data" taskset -c "$cpu" "$w/ab_calls" "$tracked_dir/ab" "$data/ab" 101 \
            | tr '\n' ' ' >> "$w/$lib.txt"
        echo >> "$w/$lib.txt"
        rm -f "$data"/*.darshan
    done
done
python3 - "$w" "$rev" <<'EOF'
import statistics, sys
w, rev = sys.argv[1], sys.argv[2]
runs = {}
for lib in ("base", "head"):
    rows = []
    for line in open(f"{w}/{lib}.txt"):
        f = dict(kv.split("=") for kv in line.split() if "=" in kv)
        rows.append({k: float(v) for k, v in f.items()})
    runs[lib] = rows
print(f"added ns per call, {len(runs['head'])} alternating rounds: base {rev if '/' in rev else rev[:10]} against this checkout")
print(f"{'call':<12}{'base':>24}{'this checkout':>24}{'difference':>12}")
for k in runs["head"][0]:
    b = [r[k] for r in runs["base"]]
    h = [r[k] for r in runs["head"]]
    fmt = lambda v: f"{statistics.median(v):.1f} [{min(v):.1f} .. {max(v):.1f}]"
    print(f"{k.removesuffix('_ns'):<12}{fmt(b):>24}{fmt(h):>24}{statistics.median(h) - statistics.median(b):>+12.1f}")
EOF
