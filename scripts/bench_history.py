"""What `darshan-summary --history DB` adds to a report (issue 53: under
100 ms on the facility benchmark's 10,000 logs): for a few of the
database's logs, the report (--json) with and without --history, run
alternately REPEATS times each; the added time is the difference of the
medians, recorded per log and as the largest (scripts/bench_figures.py).

usage: bench_history.py DARSHAN_SUMMARY DB LOG...
"""
import statistics
import subprocess
import sys
import time

sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
import bench_figures  # noqa: E402

REPEATS = 21
summary, db, logs = sys.argv[1], sys.argv[2], sys.argv[3:]


def once(args):
    t = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return time.perf_counter() - t


print("| log | report | with --history | added |")
print("|---|---|---|---|")
worst = None
for log in logs:
    plain, hist = [], []
    for i in range(REPEATS):
        pair = [([summary, "--json", "-o", "-", log], plain), ([summary, "--json", "-o", "-", "--history", db, log], hist)]
        for args, into in (pair if i % 2 == 0 else pair[::-1]):
            into.append(once(args))
    added = [(h - p) * 1000 for h, p in zip(hist, plain)]
    a = statistics.median(hist) * 1000 - statistics.median(plain) * 1000
    lo, hi = sorted(added)[REPEATS // 4], sorted(added)[3 * REPEATS // 4]
    print(f"| {log.rsplit('/', 1)[-1][:60]} | {statistics.median(plain) * 1000:.1f} ms "
          f"| {statistics.median(hist) * 1000:.1f} ms | {a:.1f} ms ({lo:.1f}-{hi:.1f}) |")
    if worst is None or a > worst[0]:
        worst = (a, lo, hi)
bench_figures.record("history.added_ms_10000_logs", worst[0], "ms", worst[1], worst[2])
