#!/usr/bin/env bash
# IO_URING's cost (issue 52): the time of syscall(SYS_getpid), which the
# runtime's syscall() wrapper passes straight through, with and without
# the library (RUNS alternating runs, median); and fio's io_uring engine,
# 4 KiB random reads at queue depth 32 on a tmpfs file, IOPS with the
# library over IOPS without (PAIRS alternating pairs, median ratio).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-11}
PAIRS=${PAIRS:-11}
lib=$PWD/target/release/libdarshan.so
w=target/bench-uring
rm -rf "$w" && mkdir -p "$w/logs" "$w/mmap"
cc -O2 -o "$w/syscall_bench" tests/programs/syscall_bench.c
env=(env LD_PRELOAD="$lib" DARSHAN_ENABLE_NONMPI=1 DARSHAN_LOGPATH="$w/logs" DARSHAN_MMAP_LOGPATH="$w/mmap")
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for i in $(seq "$RUNS"); do
    "$w/syscall_bench" | sed 's/.*=//' >> "$w/without"
    "${env[@]}" "$w/syscall_bench" | sed 's/.*=//' >> "$w/with"
done
a=$(median < "$w/without"); b=$(median < "$w/with")
echo "syscall(SYS_getpid): ${a} ns without, ${b} ns with the library (median of $RUNS runs)"
python3 scripts/bench_figures.py uring.syscall_getpid_added "$(awk -v a="$a" -v b="$b" 'BEGIN {print b - a}')" ns
data=/mnt/darshan-bench-tmpfs
mountpoint -q "$data" 2>/dev/null || data=/dev/shm
if command -v fio >/dev/null; then
    job=(fio --name=b --ioengine=io_uring --rw=randread --bs=4k --iodepth=32 --size=64m --time_based --runtime=3
         --filename="$data/uring-bench.dat" --output-format=json)
    iops() { python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["iops"])'; }
    "${job[@]}" --runtime=1 > /dev/null # lay the file out
    for i in $(seq "$PAIRS"); do
        # Which runs first alternates, so that an order effect (the
        # machine warming or cooling) does not bias the ratio.
        if [ $((i % 2)) = 1 ]; then
            x=$("${job[@]}" | iops)
            y=$("${env[@]}" "${job[@]}" | iops)
        else
            y=$("${env[@]}" "${job[@]}" | iops)
            x=$("${job[@]}" | iops)
        fi
        awk -v x="$x" -v y="$y" 'BEGIN {print y / x}' >> "$w/ratios"
        echo "fio io_uring 4 KiB QD32 randread: $x IOPS without, $y with"
    done
    r=$(median < "$w/ratios")
    echo "fio io_uring IOPS with/without: $r (median of $PAIRS pairs; target >= 0.97)"
    python3 scripts/bench_figures.py uring.fio_iops_ratio "$r" ratio "$(sort -n "$w/ratios" | head -1)" "$(sort -n "$w/ratios" | tail -1)" higher
    rm -f "$data/uring-bench.dat"
fi
