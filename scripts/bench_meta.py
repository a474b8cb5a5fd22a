"""POSIX_META's cost: tests/programs/meta_bench.c (unlink, rename, mkdir +
rmdir, readdir per entry of a 10,000-entry directory, mmap + munmap, and
open + close for reference) run alternately without and with the library,
on a tmpfs when one can be mounted; prints the added time per call
(median of the pairs' differences) as a markdown table.

usage: bench_meta.py <libdarshan.so> <workdir> [pairs]
"""
import os
import shutil
import statistics
import subprocess
import sys

lib, work = (os.path.abspath(a) for a in sys.argv[1:3])
pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 9
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.makedirs(work, exist_ok=True)
data = "/mnt/darshan-bench-tmpfs"
os.makedirs(data, exist_ok=True)
if subprocess.run(["mountpoint", "-q", data]).returncode != 0:
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1g", "tmpfs", data], capture_output=True).returncode != 0:
        data = os.path.join(work, "data")
exe = os.path.join(work, "meta_bench")
subprocess.run(["cc", "-O2", "-o", exe, os.path.join(root, "tests/programs/meta_bench.c")], check=True)
pin = ["taskset", "-c", str((os.cpu_count() or 1) - 1)] if shutil.which("taskset") else []


def run(with_lib):
    d = os.path.join(data, "meta")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    logs = os.path.join(work, "logs")
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    env = dict(os.environ)
    if with_lib:
        env.update(LD_PRELOAD=lib, DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=logs,
                   DARSHAN_MMAP_LOGPATH=os.path.join(work, "mmap"))
    out = subprocess.run(pin + [exe, d, "10000"], env=env, capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (f.split("=") for f in out.split())}


diffs, base = {}, {}
for i in range(pairs):
    order = [False, True] if i % 2 == 0 else [True, False]
    got = {w: run(w) for w in order}
    for k in got[False]:
        diffs.setdefault(k, []).append(got[True][k] - got[False][k])
        base.setdefault(k, []).append(got[False][k])
print(f"POSIX_META calls, {pairs} alternating pairs, data in {data}:")
print("| call | without the library (ns) | added by the library (ns per call) |")
print("|---|---|---|")
for k in diffs:
    print(f"| {k} | {statistics.median(base[k]):.0f} | {statistics.median(diffs[k]):+.0f} |")
