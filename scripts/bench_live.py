"""The live view's cost (issue 40): darshan-stream's own CPU reading N
processes' crash-safe files at 1 Hz and 10 Hz (busy processes; then
1,000 processes at an ordinary pace and 1,000 idle ones, with the
daemon's peak memory), and the per-call figures of
tests/programs/ab_calls.c with no daemon, and with the daemon reading at
1 Hz and 10 Hz (the program pays nothing for being watched).

usage: bench_live.py <target/release dir> <workdir> [processes]
"""
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

rel, work = (os.path.abspath(a) for a in sys.argv[1:3])
nproc = int(sys.argv[3]) if len(sys.argv) > 3 else 100
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
lib = os.path.join(rel, "libdarshan.so")
shutil.rmtree(work, ignore_errors=True)
for d in ("mmap", "logs", "data"):
    os.makedirs(os.path.join(work, d))
writer = os.path.join(work, "live_writer")
subprocess.run(["cc", "-O2", "-pthread", "-o", writer, os.path.join(root, "tests/programs/live_writer.c")], check=True)
ab = os.path.join(work, "ab_calls")
subprocess.run(["cc", "-O2", "-o", ab, os.path.join(root, "tests/programs/ab_calls.c")], check=True)
env = dict(os.environ, LD_PRELOAD=lib, DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=os.path.join(work, "logs"),
           DARSHAN_MMAP_LOGPATH=os.path.join(work, "mmap"))
ticks = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / ticks


def daemon(hz):
    return subprocess.Popen([os.path.join(rel, "darshan-stream"), "--interval", str(1 / hz), "--dir",
                             os.path.join(work, "mmap"), "--prometheus", "127.0.0.1:19477"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def peak_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def measure(hz, secs=10):
    """The daemon's CPU fraction over `secs` at `hz`, and its peak RSS (MiB)."""
    d = daemon(hz)
    time.sleep(1.5)
    c0, t0 = cpu_seconds(d.pid), time.time()
    time.sleep(secs)
    c1, t1 = cpu_seconds(d.pid), time.time()
    peak = peak_kib(d.pid) / 1024
    d.send_signal(signal.SIGTERM)
    d.wait()
    return (c1 - c0) / (t1 - t0), peak


def start(n, pause_us, seconds, idle=None):
    extra = [str(idle)] if idle is not None else []
    return [subprocess.Popen([writer, os.path.join(work, "data", f"f{k}"), "1", str(seconds), str(pause_us)] + extra,
                             env=env, stdout=subprocess.DEVNULL) for k in range(n)]


def stop(procs):
    """Kill them, and remove the crash-safe files killed processes leave."""
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()
    for f in os.listdir(os.path.join(work, "mmap")):
        os.unlink(os.path.join(work, "mmap", f))


# N processes writing at an ordinary pace for the whole measurement.
procs = start(nproc, 2000, 40)
time.sleep(2)
print(f"{nproc} processes writing 4 KiB every 2 ms; darshan-stream's own CPU, 10 s each:")
print("| reading at | CPU seconds per second | per 100 processes | peak RSS |")
print("|---|---|---|---|")
for hz in (1, 10):
    frac, peak = measure(hz)
    print(f"| {hz} Hz | {frac:.4f} | {frac * 100 / nproc:.4f} | {peak:.1f} MiB |")
stop(procs)

# 1,000 processes: writing every 100 ms, then doing nothing (each has
# written once and stays).
for what, pause, secs, idle in (("writing 4 KiB every 100 ms", 100000, 60, None), ("idle", 0, 0.01, 60)):
    procs = start(1000, pause, secs, idle)
    time.sleep(5)
    files = len(os.listdir(os.path.join(work, "mmap")))
    print(f"\n1,000 processes {what} ({files} crash-safe files); darshan-stream, 10 s each:")
    print("| reading at | CPU seconds per second | peak RSS |")
    print("|---|---|---|")
    for hz in (1, 10):
        frac, peak = measure(hz)
        print(f"| {hz} Hz | {frac:.4f} | {peak:.1f} MiB |")
    stop(procs)

# Per-call figures with and without the daemon.
data = "/mnt/darshan-bench-tmpfs" if os.path.ismount("/mnt/darshan-bench-tmpfs") else os.path.join(work, "data")
os.makedirs("/dev/shm/darshan-bench-live", exist_ok=True)
res = {}
for label, hz in (("no daemon", None), ("daemon at 1 Hz", 1), ("daemon at 10 Hz", 10)):
    d = daemon(hz) if hz else None
    runs = []
    for _ in range(5):
        out = subprocess.run(["taskset", "-c", "1", ab, os.path.join(data, "ab-live"), "/dev/shm/darshan-bench-live/ab",
                              "51"], env=env, capture_output=True, text=True, check=True).stdout
        runs.append({k: float(v) for k, v in (f.split("=") for f in out.split())})
    if d:
        d.send_signal(signal.SIGTERM)
        d.wait()
    res[label] = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
print("\nIn one process, recorded file minus excluded file, ns per call, median of 5 runs:")
print("| call | " + " | ".join(res) + " |")
print("|---|" + "---|" * len(res))
for k in res["no daemon"]:
    print(f"| {k[:-3]} | " + " | ".join(f"{res[l][k]:.1f}" for l in res) + " |")
shutil.rmtree("/dev/shm/darshan-bench-live", ignore_errors=True)
