"""POSIX_META's cost: tests/programs/meta_bench.c (unlink, rename, mkdir +
rmdir, readdir per entry of a 10,000-entry directory, mmap + munmap, and
open + close for reference) run alternately without and with the library,
on a tmpfs when one can be mounted, without the library, with it and
DARSHAN_MOD_DISABLE=POSIX_META, and with it as it is by default (the
module on); prints
the added time per call (differences of the medians) as a markdown table.
The loops name 10,000 distinct paths, so with the module on each call
makes a record until MAX_RECORDS (2,048) is reached.

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


def run(mode):
    """mode: "none" (no library), "off" (the library with
    DARSHAN_MOD_DISABLE=POSIX_META) or "meta" (the library as it is by
    default, POSIX_META on)."""
    d = os.path.join(data, "meta")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    logs = os.path.join(work, "logs")
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    env = dict(os.environ)
    if mode != "none":
        env.update(LD_PRELOAD=lib, DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=logs,
                   DARSHAN_MMAP_LOGPATH=os.path.join(work, "mmap"))
    if mode == "off":
        env["DARSHAN_MOD_DISABLE"] = "POSIX_META"
    out = subprocess.run(pin + [exe, d, "10000"], env=env, capture_output=True, text=True, check=True).stdout
    return {k: float(v) for k, v in (f.split("=") for f in out.split())}


modes = ["none", "off", "meta"]
got = {m: {} for m in modes}
for i in range(pairs):
    order = modes[i % 3:] + modes[:i % 3]
    for m in order:
        for k, v in run(m).items():
            got[m].setdefault(k, []).append(v)
med = statistics.median
print(f"POSIX_META calls, {pairs} rounds of the three runs in rotating order, data in {data}; ns per call:")
print("| call | without the library | added, POSIX_META off | added, POSIX_META on (default) |")
print("|---|---|---|---|")
for k in got["none"]:
    base = med(got["none"][k])
    print(f"| {k} | {base:.0f} | {med(got['off'][k]) - base:+.0f} | {med(got['meta'][k]) - base:+.0f} |")
