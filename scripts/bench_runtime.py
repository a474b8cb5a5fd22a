"""Runtime overhead benchmark: the reference workloads and a few more,
run side by side with and without libdarshan.so preloaded (alternating
pairs, median [min .. max] of the per-call difference), plus start-up,
shutdown with 20,000 records and peak RSS. Prints a markdown table.

usage: bench_runtime.py <libdarshan.so> <darshan-parser> <workdir> [pairs]
"""
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_figures import record  # noqa: E402

lib, parser, work = (os.path.abspath(a) for a in sys.argv[1:4])
# C Darshan's non-MPI library, when given, is run side by side (never
# built or fetched by this script).
c_lib = os.environ.get("C_DARSHAN_LIB")
pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 11
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ref = os.path.join(root, "..", "shared", "reference")
os.makedirs(work, exist_ok=True)
logs = os.path.join(work, "logs")
# Data files go on a tmpfs outside Darshan's excluded prefixes when one can
# be mounted (as in the C reference runs), so that the disk does not drown
# the per-call differences; else under the work directory.
data = "/mnt/darshan-bench-tmpfs"
os.makedirs(data, exist_ok=True)
if subprocess.run(["mountpoint", "-q", data]).returncode != 0:
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1g", "tmpfs", data], capture_output=True).returncode != 0:
        data = os.path.join(work, "data")
print(f"data files in {data}")


def build(src, name, *flags):
    out = os.path.join(work, name)
    subprocess.run(["cc", "-O2", "-o", out, src, *flags], check=True)
    return out


posix_small = build(os.path.join(ref, "posix_small.c"), "posix_small")
stdio_mix = build(os.path.join(ref, "stdio_mix.c"), "stdio_mix")
manyfiles = build(os.path.join(root, "tests/programs/manyfiles.c"), "manyfiles")
probe = build(os.path.join(root, "tests/programs/clock_probe.c"), "clock_probe")
ab_calls = build(os.path.join(root, "tests/programs/ab_calls.c"), "ab_calls")
spawn_pairs = build(os.path.join(root, "tests/programs/spawn_pairs.c"), "spawn_pairs")
empty_src = os.path.join(work, "empty.c")
with open(empty_src, "w") as f:
    f.write("int main(void) { return 0; }\n")
empty = build(empty_src, "empty")
H5 = "/usr/lib/x86_64-linux-gnu/hdf5/serial"
h5_calls = build(os.path.join(root, "tests/programs/h5_calls.c"), "h5_calls", "-I/usr/include/hdf5/serial",
                 f"-L{H5}", "-lhdf5", f"-Wl,-rpath,{H5}")
pnetcdf_calls = os.path.join(work, "pnetcdf_calls")
subprocess.run(["mpicc", "-O2", "-o", pnetcdf_calls, os.path.join(root, "tests/programs/pnetcdf_calls.c"), "-lpnetcdf"],
               check=True)


def env(on, extra=None, with_lib=None):
    e = dict(os.environ)
    e.pop("LD_PRELOAD", None)
    if on:
        e.update(LD_PRELOAD=with_lib or lib, DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=logs)
        if with_lib:
            # C's crash-safe file is made in every process, in /tmp unless
            # told, and left there by one that execs (taskset, PIN): in the
            # logs directory, which fresh() empties. (alternate() ran C
            # without it: 10 files left in /tmp by every `just bench`.)
            e["DARSHAN_MMAP_LOGPATH"] = logs
    e.update(extra or {})
    return e


def fresh():
    shutil.rmtree(logs, ignore_errors=True)
    os.makedirs(logs)
    os.makedirs(data, exist_ok=True)
    for e in os.listdir(data):
        p = os.path.join(data, e)
        shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)


def fields(out):
    return {k: float(v) for k, v in re.findall(r"(\w+)=(-?[0-9.]+)", out)}


# Both runs of a pair on the same CPU: migrations otherwise add more noise
# than the differences being measured.
PIN = ["taskset", "-c", str((os.cpu_count() or 1) - 1)] if shutil.which("taskset") else []


def paired(cmd, keys, n_calls, extra=None, with_lib=None):
    """Per-call added time (ns) for each key, over `pairs` alternating runs
    (with `with_lib` preloaded in place of ours, when given)."""
    cmd = PIN + cmd
    diffs = {k: [] for k in keys}
    ratios = {k: [] for k in keys}
    best = {(k, on): float("inf") for k in keys for on in (False, True)}
    for _ in range(pairs):
        r = {}
        for on in (False, True):
            fresh()
            e = env(on, extra, with_lib)
            out = subprocess.run(cmd, env=e, capture_output=True, text=True, check=True).stdout
            r[on] = fields(out)
            for k in keys:
                best[(k, on)] = min(best[(k, on)], r[on][k])
        for k in keys:
            diffs[k].append((r[True][k] - r[False][k]) / n_calls * 1e9)
            ratios[k].append(r[True][k] / r[False][k])
    # Besides the median of the pairwise differences, the difference of the
    # fastest runs: on a noisy virtual machine it estimates the intrinsic
    # cost, as noise only ever adds time.
    return {k: (statistics.median(diffs[k]), min(diffs[k]), max(diffs[k]), statistics.median(ratios[k]),
                (best[(k, True)] - best[(k, False)]) / n_calls * 1e9) for k in keys}


def internal(cmd, key, extra=None):
    fresh()
    r = subprocess.run(cmd, env=env(True, dict(DARSHAN_INTERNAL_TIMING="1", **(extra or {}))),
                       capture_output=True, text=True, check=True)
    # DARSHAN_INTERNAL_TIMING's lines, C Darshan's ops: init, core_shutdown.
    op = {"init": "init", "shutdown": "core_shutdown"}[key]
    m = re.search(rf"^darshan:{op}\t1\t([0-9.]+)$", r.stderr, re.M)
    return float(m.group(1)) if m else float("nan")


def probe_line():
    out = subprocess.run(PIN + [probe], capture_output=True, text=True, check=True).stdout.strip()
    return out.replace("clock_monotonic_ns=", "CLOCK_MONOTONIC ").replace(" rdtsc_ns=", " ns, rdtsc ") + " ns"


print(f"machine state before: {probe_line()} (reference runs: CLOCK_MONOTONIC about 34 ns)")


def crash_safe_section():
    """The crash-safe mode (the default: records in a MAP_SHARED file in
    /tmp) against DARSHAN_MMAP_LOGS=0 (records in memory), alternating the
    two in every round so that the machine's drift cancels."""
    modes = {"crash-safe": dict(DARSHAN_MMAP_LOGS="1"), "memory": dict(DARSHAN_MMAP_LOGS="0")}
    untracked = "/dev/shm/darshan-bench"
    os.makedirs(untracked, exist_ok=True)
    calls = {m: [] for m in modes}
    newfile = {m: [] for m in modes}
    inits = {m: [] for m in modes}
    for _ in range(7):
        for m, extra in modes.items():
            fresh()
            out = subprocess.run(PIN + [ab_calls, os.path.join(data, "ab"), os.path.join(untracked, "ab"), "101"],
                                 env=env(True, extra), capture_output=True, text=True, check=True).stdout
            calls[m].append(fields(out))
            fresh()
            out = subprocess.run(PIN + [manyfiles, data, "1000"], env=env(True, extra), capture_output=True,
                                 text=True, check=True).stdout
            newfile[m].append(fields(out)["loop_s"] / 1000 * 1e9)
    for _ in range(21):
        for m, extra in modes.items():
            inits[m].append(internal([empty], "init", extra))
    med = statistics.median
    print("\nCrash-safe mode (default) vs records in memory (DARSHAN_MMAP_LOGS=0), median of 7 alternating rounds:")
    print("| | crash-safe | in memory | crash-safe / in memory |")
    print("|---|---|---|---|")
    for k in ("pwrite_ns", "pread_ns", "fprintf_ns", "fgets_ns"):
        a, b = med(r[k] for r in calls["crash-safe"]), med(r[k] for r in calls["memory"])
        print(f"| {k[:-3]} added per call (in-process A/B) | {a:.0f} ns | {b:.0f} ns | {a / b:.2f} |")
    a, b = med(newfile["crash-safe"]), med(newfile["memory"])
    print(f"| open + write 100 B + close, new file (whole call) | {a:.0f} ns | {b:.0f} ns | {a / b:.2f} |")
    a, b = med(inits["crash-safe"]), med(inits["memory"])
    print(f"| start-up, median of 21 | {a * 1e3:.3f} ms | {b * 1e3:.3f} ms | {a / b:.2f} |")


def spawned(cmd, pairs, n, cwd=None, extra=None, with_lib=None):
    """Pairs of (without, with) microseconds per run, from spawn_pairs:
    started by posix_spawn from a small pinned C process, so that the
    launcher's own cost stays out of the figures."""
    fresh()
    # The runtime's variables, but no LD_PRELOAD for the driver itself:
    # it adds LD_PRELOAD=lib to the "with" runs only.
    e = env(True, extra)
    for d in (extra or {}).values():
        if d.startswith("/"):
            os.makedirs(d, exist_ok=True)
    e.pop("LD_PRELOAD")
    cpu = (os.cpu_count() or 1) - 1
    out = subprocess.run([spawn_pairs, str(pairs), str(n), str(cpu), with_lib or lib] + cmd, env=e, cwd=cwd,
                         capture_output=True, text=True, check=True, timeout=1800).stdout
    return [tuple(map(float, line.split())) for line in out.splitlines()]


def floor():
    """Issue 51's /bin/true goal against what any log writer pays: a
    preload that interposes nothing and only does what a log obliges
    (tests/programs/log_floor.c: the mount table at start; at exit the
    local date, a stored zlib stream, a new file renamed into place), with
    each part left out in turn; beside it the runtime, enabled and with
    DARSHAN_DISABLE=1 (loading and relocating the library, and a
    constructor that reads the environment and stops). Logs and crash-safe
    files on the bench's tmpfs where there is one: on this machine's ext4,
    creating files slows as deleted ones pile up (the floor's own log went
    from 190 to 431 us in three runs)."""
    lib_floor = os.path.join(work, "log_floor.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", lib_floor, os.path.join(root, "tests/programs/log_floor.c")],
                   check=True)
    where = data if data.startswith("/mnt/") else work
    dirs = {"DARSHAN_LOGPATH": os.path.join(where, "logs"), "DARSHAN_MMAP_LOGPATH": os.path.join(where, "mmap")}
    med = statistics.median
    cases = [("log_floor", lib_floor, {}), ("log_floor_load_only", lib_floor, {"LOG_FLOOR_SKIP": "all"})]
    cases += [(f"log_floor_without_{p}", lib_floor, {"LOG_FLOOR_SKIP": p}) for p in ("mounts", "time", "write")]
    cases += [("bin_true_tmpfs", lib, {}), ("bin_true_disabled", lib, {"DARSHAN_DISABLE": "1"})]
    print(f"- /bin/true under a log writer that does only what a log obliges (log_floor.c), parts of it, and the "
          f"runtime; logs in {where}; 101 pairs of 10-run blocks:")
    for name, with_lib, extra in cases:
        d = [b - a for a, b in spawned(["/bin/true"], 101, 10, extra=dict(dirs, **extra), with_lib=with_lib)]
        print(f"  - {name}: {med(d):.0f} us added [{min(d):.0f} .. {max(d):.0f}]")
        record(f"short.{name}_added", med(d), "us", min(d), max(d))


def fork_children(c_lib):
    """Forked children that only exit, as a shell's subshells (`$(...)`)
    are: tests/programs/fork_exit.c times each fork and each child until
    it is reaped itself; 100 children a run, 11 alternating pairs of runs,
    pinned (from Python: under LD_PRELOAD taskset would be instrumented)."""
    fork_exit = build(os.path.join(root, "tests/programs/fork_exit.c"), "fork_exit")
    cpu = (os.cpu_count() or 1) - 1
    med = statistics.median
    for tag, with_lib in (("", lib), ("_c", c_lib)):
        if not with_lib:
            continue
        d, base = [], []
        for _ in range(11):
            r = {}
            for on in (False, True):
                fresh()
                e = env(on)
                if on:
                    e["LD_PRELOAD"] = with_lib
                out = subprocess.run([fork_exit, "100"], env=e, capture_output=True, text=True, check=True,
                                     timeout=600, preexec_fn=lambda: os.sched_setaffinity(0, {cpu})).stdout
                f = fields(out)
                r[on] = f["fork_us"] + f["child_us"]
            d.append(r[True] - r[False])
            base.append(r[False])
        who = "C Darshan" if tag else "the runtime"
        print(f"- a forked child that only exits, under {who}: {med(d):.0f} us added per child [{min(d):.0f} .. "
              f"{max(d):.0f}], {med(base):.0f} us without; 11 pairs of 100 children")
        record(f"short.fork_child_added{tag}", med(d), "us", min(d), max(d))


def short_process_section():
    """What most users notice first: the cost of a process that does little
    (shell scripts, make and workflow tools start thousands). Wall time of
    /bin/true and of `git status` in a 2,000-file repository, with and
    without the library (default crash-safe mode, DARSHAN_ENABLE_NONMPI),
    alternating pairs in one run."""
    import time

    cpu = (os.cpu_count() or 1) - 1

    def wall(cmd, on, cwd=None):
        # Pinned from Python, not through taskset: under LD_PRELOAD taskset
        # would be a second instrumented process in every run.
        t = time.perf_counter()
        subprocess.run(cmd, env=env(on), cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                       preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        return time.perf_counter() - t

    def block(cmd, on, n, cwd=None):
        t = time.perf_counter()
        for _ in range(n):
            wall(cmd, on, cwd)
        return (time.perf_counter() - t) / n

    med = statistics.median


    print(f"\nShort processes (default crash-safe mode):")
    r = spawned(["/bin/true"], 101, 10)
    d = [b - a for a, b in r]
    print(f"- /bin/true: {med(d):.0f} us added per process [{min(d):.0f} .. {max(d):.0f}], "
          f"{med(a for a, _ in r):.0f} us without; median of 101 alternating pairs of 10-run blocks started by "
          f"spawn_pairs (target 0.25 ms)")
    record("short.bin_true_added", med(d), "us", min(d), max(d))
    floor()
    # The system's interpreter, as the figure is (a pyenv build
    # reads its site-packages at start-up: tens of ms of noise).
    py = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else shutil.which("python3")
    for name, cmd, target in (("bin_true", ["/bin/true"], "0.25 ms"), ("python_pass", [py, "-c", "pass"], "0.4 ms")):
        if name == "python_pass":
            r = spawned(cmd, 41, 5)
            d = [b - a for a, b in r]
            print(f"- {py} -c pass: {med(d):.0f} us added per process [{min(d):.0f} .. {max(d):.0f}], "
                  f"{med(a for a, _ in r):.0f} us without; median of 41 pairs of 5-run blocks (target {target})")
            record("short.python_pass_added", med(d), "us", min(d), max(d))
        if c_lib:
            rc = spawned(cmd, 41, 5, with_lib=c_lib)
            dc = [b - a for a, b in rc]
            print(f"- {' '.join(cmd)} under C Darshan (side by side): {med(dc):.0f} us added [{min(dc):.0f} .. "
                  f"{max(dc):.0f}]")
            record(f"short.{name}_added_c", med(dc), "us", min(dc), max(dc))
    # Forks: a shell script running /bin/true 20 times (each iteration a
    # forked child of the instrumented shell, then an instrumented exec).
    loop = os.path.join(work, "forks.sh")
    with open(loop, "w") as f:
        f.write("for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do /bin/true; done\n")
    for tag, with_lib in (("", None), ("_c", c_lib)):
        if tag and not with_lib:
            continue
        r = spawned(["/bin/sh", loop], 21, 3, with_lib=with_lib)
        d = [b - a for a, b in r]
        who = "C Darshan" if tag else "the runtime"
        print(f"- sh running /bin/true 20 times under {who}: {med(d) / 1e3:.2f} ms added [{min(d) / 1e3:.2f} .. "
              f"{max(d) / 1e3:.2f}], {med(a for a, _ in r) / 1e3:.2f} ms without; 21 pairs of 3-run blocks")
        record(f"short.sh_20_forks_added{tag}", med(d), "us", min(d), max(d))
    fork_children(c_lib)
    diffs = []
    # The earlier method, kept for comparison with earlier entries: each run
    # started from Python (fork + exec, about a millisecond more per run in
    # both arms: a smaller ratio, noisier differences).
    for _ in range(101):
        fresh()
        diffs.append(block(["/bin/true"], True, 10) - block(["/bin/true"], False, 10))
    print(f"- /bin/true started from Python: {med(diffs) * 1e3:.2f} ms added per process, median of 101 alternating "
          f"pairs of 10-run blocks [{min(diffs) * 1e3:.2f} .. {max(diffs) * 1e3:.2f}]")
    repo = os.path.join(work, "repo2000")
    if not os.path.isdir(os.path.join(repo, ".git")):
        os.makedirs(repo, exist_ok=True)
        for i in range(2000):
            with open(os.path.join(repo, f"f{i:04}.txt"), "w") as f:
                f.write(f"file {i}\n")
        g = ["git", "-c", "user.name=b", "-c", "user.email=b@b"]
        subprocess.run(g + ["init", "-q"], cwd=repo, check=True)
        subprocess.run(g + ["add", "."], cwd=repo, check=True)
        subprocess.run(g + ["commit", "-qm", "x"], cwd=repo, check=True)
    st = ["git", "status", "--porcelain"]
    r = spawned(st, 21, 5, repo)
    ratios = [b / a for a, b in r]
    print(f"- git status, 2,000 files: {med(ratios):.2f}x the time without the library [{min(ratios):.2f} .. "
          f"{max(ratios):.2f}], {med(b - a for a, b in r) / 1e3:.2f} ms added to {med(a for a, _ in r) / 1e3:.2f} ms; "
          f"median of 21 pairs of 5-run blocks started by spawn_pairs (target 1.3x)")
    ratios = []
    for _ in range(21):
        fresh()
        off = block(st, False, 5, repo)
        ratios.append(block(st, True, 5, repo) / off)
    print(f"- git status started from Python: {med(ratios):.2f}x, median of 21 pairs of 5-run blocks "
          f"[{min(ratios):.2f} .. {max(ratios):.2f}]")
    # The same with the log and the crash-safe file on the bench's tmpfs:
    # creating a file on an ext4 without a journal (this machine's /) gets
    # dearer the more files were deleted lately (the kernel skips recently
    # deleted inodes), which moved the figures above by up to 0.3 ms within
    # one session (docs/performance.md, 2026-11-24). Both are printed.
    if data.startswith("/mnt/"):
        on_tmpfs = {"DARSHAN_LOGPATH": os.path.join(data, "logs"), "DARSHAN_MMAP_LOGPATH": os.path.join(data, "mmap")}
        r = spawned(["/bin/true"], 101, 10, extra=on_tmpfs)
        d = [b - a for a, b in r]
        print(f"- /bin/true, log on tmpfs: {med(d):.0f} us added per process [{min(d):.0f} .. {max(d):.0f}], "
              f"{med(a for a, _ in r):.0f} us without")
        r = spawned(st, 21, 5, repo, extra=on_tmpfs)
        ratios = [b / a for a, b in r]
        print(f"- git status, log and crash-safe file on tmpfs: {med(ratios):.2f}x [{min(ratios):.2f} .. "
              f"{max(ratios):.2f}], {med(b - a for a, b in r) / 1e3:.2f} ms added to {med(a for a, _ in r) / 1e3:.2f} ms")


def alternate(modes, untracked, args, runs=5):
    """ab_calls run `runs` times in each mode, the modes alternated in
    every round: {mode: [fields of each run]}. A mode is (library on,
    extra environment, which library), as env() takes them."""
    res = {m: [] for m in modes}
    for _ in range(runs):
        for m, (on, extra, with_lib) in modes.items():
            fresh()
            out = subprocess.run(PIN + [ab_calls, os.path.join(data, "ab"), os.path.join(untracked, "ab")] + args,
                                 env=env(on, extra, with_lib), capture_output=True, text=True, check=True).stdout
            res[m].append(fields(out))
    return res


def dxt_section():
    """DXT (issue 13): the added time per pwrite and pread when the file is
    traced (DXT_POSIX on, budget raised so that every segment is kept),
    against DXT off and against DXT on with the file excluded from tracing
    (NAME_EXCLUDE ... DXT_POSIX); in-process A/B as above, the three modes
    alternated in every round."""
    untracked = "/dev/shm/darshan-bench"
    os.makedirs(untracked, exist_ok=True)
    rounds, block = 21, 20000
    conf = os.path.join(work, "dxt.conf")
    with open(conf, "w") as f:
        # 2 x 21 x 20,000 segments of 32 B: 27 MB.
        f.write("MAX_RECORDS 30000 DXT_POSIX\n")
    excl = os.path.join(work, "dxt-excl.conf")
    with open(excl, "w") as f:
        f.write(f"NAME_EXCLUDE ^{re.escape(data)}/ DXT_POSIX\n")
    traced = dict(DARSHAN_MOD_ENABLE="DXT_POSIX", DARSHAN_CONFIG_PATH=conf)
    # C Darshan reads the same variable and configuration file (its DXT
    # records count as 1 KiB each: 30,000 of them hold every segment).
    modes = {
        "DXT off": ({}, None),
        "traced": (traced, None),
        "DXT on, file not traced": (dict(DARSHAN_MOD_ENABLE="DXT_POSIX", DARSHAN_CONFIG_PATH=excl), None),
    }
    if c_lib:
        modes["C traced"] = (traced, c_lib)
    res = alternate({m: (True, extra, with_lib) for m, (extra, with_lib) in modes.items()}, untracked,
                    [str(rounds), str(block)])
    med = statistics.median
    print(f"\nDXT_POSIX, in-process A/B ({rounds} rounds of {block} calls), added ns per call, median of 5 alternating runs:")
    print("| call | DXT off | traced | traced / off | DXT on, file not traced | C Darshan traced (side by side) |")
    print("|---|---|---|---|---|---|")
    for k in ("pwrite_ns", "pread_ns"):
        off, on, nt = (med(r[k] for r in res[m]) for m in ("DXT off", "traced", "DXT on, file not traced"))
        c = "not run (C_DARSHAN_LIB unset)"
        if c_lib:
            theirs = [r[k] for r in res["C traced"]]
            c = f"{med(theirs):.0f}, ours / C {on / med(theirs):.2f}"
            record(f"dxt.{k[:-3]}_traced_added_c", med(theirs), "ns", min(theirs), max(theirs))
            record(f"dxt.{k[:-3]}_traced_over_c", on / med(theirs), "ratio")
        print(f"| {k[:-3]} | {off:.0f} | {on:.0f} | {on / off:.2f} | {nt:.0f} | {c} |")
        ours = [r[k] for r in res["traced"]]
        record(f"dxt.{k[:-3]}_traced_added", on, "ns", min(ours), max(ours))
    dxt_whole_calls(traced)
    dxt_shutdown(traced, untracked, [str(rounds), str(block)])


def dxt_whole_calls(traced):
    """Traced pwrite and pread as whole calls, each library against the
    same program without any (paired runs): the in-process table above
    leaves out of C's figure what C's wrappers also do on an excluded file
    (two clock reads, the lock, the look-up), and keeps them in ours, so
    its ratio flatters C; this one is issue 51's "added cost per call"."""
    n = 200_000
    cmd = [posix_small, os.path.join(data, "p.dat"), str(n)]
    res = paired(cmd, ["write_s", "read_s"], n, extra=traced)
    cres = paired(cmd, ["write_s", "read_s"], n, extra=traced, with_lib=c_lib) if c_lib else None
    print(f"\nDXT_POSIX traced, whole calls against no library ({n:,} of each, median of {pairs} pairs [min .. max]):")
    for key, name in (("write_s", "pwrite"), ("read_s", "pread")):
        med, lo, hi = res[key][:3]
        c = "C not run (C_DARSHAN_LIB unset)"
        if cres:
            cm, clo, chi = cres[key][:3]
            c = f"C Darshan {cm:.0f} ns [{clo:.0f} .. {chi:.0f}], ours / C {med / cm:.2f}"
            record(f"dxt.{name}_traced_whole_c", cm, "ns", clo, chi)
            record(f"dxt.{name}_traced_whole_over_c", med / cm, "ratio")
        print(f"- {name}: {med:.0f} ns [{lo:.0f} .. {hi:.0f}]; {c}")
        record(f"dxt.{name}_traced_whole", med, "ns", lo, hi)


def dxt_shutdown(traced, untracked, args):
    """The traced process's peak memory (its shutdown included: the
    trace, 27 MB, is written then) over the same run untraced, ours and
    C's, and our shutdown's time; median of 3 each."""
    cmd = [ab_calls, os.path.join(data, "ab"), os.path.join(untracked, "ab")] + args

    def peak(extra, with_lib=None):
        vals = []
        for _ in range(3):
            fresh()
            r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, env=env(True, extra, with_lib),
                               capture_output=True, text=True, check=True)
            vals.append(int(r.stderr.strip().splitlines()[-1]) / 1024)
        return statistics.median(vals)

    off, on = peak({}), peak(traced)
    c = f"C 3.5.0 {peak(traced, c_lib) - peak({}, c_lib):.1f} MB" if c_lib else "C not run"
    downs = sorted(internal(cmd, "shutdown", traced) for _ in range(3))
    print(f"DXT_POSIX, the same run's 840,000 segments (27 MB): peak RSS +{on - off:.1f} MB over untraced ({c}); "
          f"shutdown {downs[1] * 1e3:.0f} ms [{downs[0] * 1e3:.0f} .. {downs[2] * 1e3:.0f}]")
    record("dxt.traced_27mb_peak_added", on - off, "MB")
    record("dxt.traced_27mb_shutdown", downs[1] * 1e3, "ms", downs[0] * 1e3, downs[2] * 1e3)


def in_process_section():
    """In-process A/B: the same calls on a recorded file and on an excluded
    one (/dev/shm, also tmpfs), alternated in blocks inside one process, so
    machine drift cancels; the median of 5 runs of 101 rounds each."""
    untracked_dir = "/dev/shm/darshan-bench"
    os.makedirs(untracked_dir, exist_ok=True)
    # With C_DARSHAN_LIB, C Darshan's library runs the same calls in the same
    # rounds (else the column says what the reference measured, marked so).
    ab_modes = {"without": (False, None, None), "with": (True, None, None)}
    if c_lib:
        ab_modes["C"] = (True, None, c_lib)
    ab_runs = alternate(ab_modes, untracked_dir, ["101"])
    ab = {m: {k: (statistics.median(r[k] for r in runs), min(r[k] for r in runs), max(r[k] for r in runs))
              for k in runs[0]} for m, runs in ab_runs.items()}
    print("\nIn one process, recorded file minus excluded file, ns per call, median of 5 runs [min .. max]"
          " (C's wrappers read the clock, lock and look up on an excluded file too, ours do none of it, so C's"
          " column leaves out what ours counts; the per-call table above compares whole calls):")
    print(f"| call | with libdarshan.so | without (check: ~0) | C Darshan 3.5.0 ({'side by side' if c_lib else 'not run'}) "
          "| target |")
    print("|---|---|---|---|---|")
    for k, ref, t in [("pwrite_ns", "311", "<= 100"), ("pread_ns", "274", "<= 100"), ("fprintf_ns", "162", "<= 55"),
                      ("fgets_ns", "199", "")]:
        m, lo, hi = ab["with"][k]
        c = f"reference: {ref}"
        if c_lib:
            cm, clo, chi = ab["C"][k]
            c = f"{cm:.0f} [{clo:.0f} .. {chi:.0f}], ours / C {m / cm:.2f}"
            record(f"in_process.{k[:-3]}_added_c", cm, "ns", clo, chi)
        print(f"| {k[:-3]} | {m:.0f} [{lo:.0f} .. {hi:.0f}] | {ab['without'][k][0]:.1f} | {c} | {t} |")
        record(f"in_process.{k[:-3]}_added", m, "ns", lo, hi)


def disk_section():
    """Per-call cost where the file system does real work: one-byte
    pwrites extending a file, and one-byte preads of it (page cache), on
    the work directory's file system (ext4 on the project's machine), not
    the tmpfs of the per-call rows. A disk's write path evicts the
    library's cache lines and TLB entries between calls, which tmpfs
    hardly does: a pwrite added twice the tmpfs figure here, and a layout
    change that tmpfs did not show moved it by 20 ns (performance.md,
    seventeenth step). Whole runs timed from outside (spawn_pairs), less
    the runs without calls (start-up, open, close, shutdown), per call."""
    prog = build(os.path.join(root, "tests/programs/cost_calls.c"), "cost_calls")
    fs = subprocess.run(["df", "--output=fstype", work], capture_output=True, text=True).stdout.split()[-1]
    path, calls = os.path.join(work, "disk.dat"), 150_000

    def added(writes, reads):
        return [b - a for a, b in spawned([prog, path, str(writes), str(reads)], 15, 3)]

    base = statistics.median(added(0, 0))
    print(f"\nOn the work directory's file system ({fs}), {calls:,} calls per run, added per call from outside "
          f"(median of 15 pairs of 3-run blocks [min .. max], less {base:.0f} us for a run without calls):")
    for name, writes, reads in (("pwrite, 1 B extending the file", calls, 0), ("pread, 1 B", 1, calls)):
        per = sorted((d - base) * 1000 / calls for d in added(writes, reads))
        print(f"- {name}: {statistics.median(per):.0f} ns [{per[0]:.0f} .. {per[-1]:.0f}]")
        slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
        record(f"per_call.disk.{slug}", statistics.median(per), "ns", per[0], per[-1])
    os.remove(path)


if os.environ.get("ONLY") == "inprocess":
    in_process_section()
    sys.exit(0)
if os.environ.get("ONLY") == "disk":
    disk_section()
    sys.exit(0)
if os.environ.get("ONLY") == "dxt":
    dxt_section()
    sys.exit(0)
if os.environ.get("ONLY") == "crashsafe":
    crash_safe_section()
    sys.exit(0)
# HDF5 (issue 10): one-element hyperslab writes and reads (each after the
# H5Sselect_hyperslab that sets it, as programs do), and dataset open +
# close, through the serial HDF5 1.10 library; with C_DARSHAN_HDF5_LIB
# (C Darshan built with --enable-hdf5-mod against the same HDF5, not MPI),
# C's added cost beside ours, each paired with its own runs without.
def hdf5_rows(rows):
    nh = 100_000
    h5cmd = [h5_calls, os.path.join(data, "h.h5"), str(nh)]
    h5keys = ["write_s", "read_s", "open_s"]
    res = paired(h5cmd, h5keys, nh)
    c_h5 = os.environ.get("C_DARSHAN_HDF5_LIB")
    cres = paired(h5cmd, h5keys, nh, with_lib=c_h5) if c_h5 else None
    for key, name, scale, target in (("write_s", "H5Dwrite, 1 element (hyperslab)", 1, 1000),
                                     ("read_s", "H5Dread, 1 element (hyperslab)", 1, None),
                                     ("open_s", "H5Dopen2 + H5Dclose", 10, None)):
        ours = tuple(x * scale if i != 3 else x for i, x in enumerate(res[key]))
        c = "?"
        if cres:
            theirs = cres[key][0] * scale
            c = f"{theirs:.0f} ns, ours / C {ours[0] / theirs:.2f}"
            slug = "per_call." + re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
            record(slug + "_c", theirs, "ns", cres[key][1] * scale, cres[key][2] * scale)
            record(slug + "_over_c", ours[0] / theirs, "ratio", ours[1] / theirs, ours[2] / theirs)
        rows.append((name, ours, c, target))


if os.environ.get("ONLY") == "hdf5":
    h5 = []
    hdf5_rows(h5)
    for name, (med, lo, hi, _, _), c, _ in h5:
        print(f"- {name}: {med:.0f} ns added [{lo:.0f} .. {hi:.0f}]; C Darshan: {c}")
        record("per_call." + re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"), med, "ns", lo, hi)
    sys.exit(0)
if os.environ.get("ONLY") == "floor":
    floor()
    sys.exit(0)
if os.environ.get("ONLY") == "fork":
    fork_children(c_lib)
    sys.exit(0)
if os.environ.get("ONLY") == "short":
    short_process_section()
    sys.exit(0)


def posix_stdio_rows(rows):
    """pwrite, pread, fprintf and fgets: the whole call with the library
    against the same program without any, so that everything a wrapper
    adds is counted. With C_DARSHAN_LIB, C's library runs the same programs
    in pairs of its own. This, not the in-process section, is the fair
    comparison with C: C's wrappers read the clock twice, take the module's
    lock and look the handle up on an excluded file too, so the in-process
    figure (recorded minus excluded) leaves those out of C's cost and
    keeps them in ours, which skips all three for a file it does not
    record."""
    n = 1_000_000
    for prog, path, calls in ((posix_small, "p.dat", (("pwrite, 8 B", "311 ns", 100), ("pread, 8 B", "274 ns", 100))),
                              (stdio_mix, "s.txt", (("fprintf, short line", "162 ns", 55), ("fgets", "199 ns", None)))):
        cmd = [prog, os.path.join(data, path), str(n)]
        res = paired(cmd, ["write_s", "read_s"], n)
        cres = paired(cmd, ["write_s", "read_s"], n, with_lib=c_lib) if c_lib else None
        for key, (name, ref, target) in zip(("write_s", "read_s"), calls):
            c = f"reference: {ref}"
            if cres:
                theirs = cres[key]
                c = f"{theirs[0]:.0f} ns [{theirs[1]:.0f} .. {theirs[2]:.0f}], ours / C {res[key][0] / theirs[0]:.2f}"
                slug = "per_call." + re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
                record(slug + "_c", theirs[0], "ns", theirs[1], theirs[2])
                record(slug + "_over_c", res[key][0] / theirs[0], "ratio")
            rows.append((name, res[key], c, target))


def print_rows(rows):
    print("| operation | added per call: median of pairs [min .. max] | fastest with - fastest without "
          "| with / without | C Darshan 3.5.0 | target |")
    print("|---|---|---|---|---|---|")
    for name, (med, lo, hi, ratio, best), c, target in rows:
        unit = (lambda v: f"{v:.0f} ns") if med < 2000 else (lambda v: f"{v / 1000:.2f} us")
        t = f"<= {target} ns" if target else ""
        print(f"| {name} | {unit(med)} [{unit(lo)} .. {unit(hi)}] | {unit(best)} | {ratio:.2f} | {c} | {t} |")
        record("per_call." + re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_"), med, "ns", lo, hi)


if os.environ.get("ONLY") == "percall":
    pc = []
    posix_stdio_rows(pc)
    print_rows(pc)
    sys.exit(0)
rows = []
posix_stdio_rows(rows)
nf = 1000
res = paired([manyfiles, data, str(nf)], ["loop_s"], nf)
rows.append(("open + write 100 B + close, new file", res["loop_s"], "5.2 us", 1000))

hdf5_rows(rows)

# PnetCDF (issue 13): one-element independent puts and gets (each through
# MPI-IO and POSIX beneath, whose wrappers add their own cost), and
# ncmpi_inq_varid (a variable open), one process (MPI singleton).
npn = 20_000
res = paired([pnetcdf_calls, os.path.join(data, "p.nc"), str(npn)], ["write_s", "read_s", "inq_s"], npn)
rows.append(("ncmpi_put_vara_int, 1 element (+ MPI-IO, POSIX)", res["write_s"], "?", None))
rows.append(("ncmpi_get_vara_int, 1 element (+ MPI-IO, POSIX)", res["read_s"], "?", None))
iq = res["inq_s"]
rows.append(("ncmpi_inq_varid", tuple(x * 10 if i != 3 else x for i, x in enumerate(iq)), "?", None))

print_rows(rows)


in_process_section()


print(f"machine state after the per-call runs: {probe_line()}")
inits = sorted(internal([empty], "init") for _ in range(21))
print(f"\nstart-up (constructor, DARSHAN_INTERNAL_TIMING), median of 21: {inits[10] * 1e3:.3f} ms "
      f"[{inits[0] * 1e3:.3f} .. {inits[-1] * 1e3:.3f}] (C: 0.25 ms without mmap logs; target 0.5 ms)")
record("startup", inits[10] * 1e3, "ms", inits[0] * 1e3, inits[-1] * 1e3)

cfg = os.path.join(work, "20k.conf")
with open(cfg, "w") as f:
    f.write("MAX_RECORDS 20000 POSIX\n")
big = dict(DARSHAN_CONFIG_PATH=cfg, DARSHAN_MODMEM="16", DARSHAN_NAMEMEM="2")
downs = sorted(internal([manyfiles, data, "20000"], "shutdown", big) for _ in range(9))
size = sum(os.path.getsize(os.path.join(logs, f)) for f in os.listdir(logs))
print(f"shutdown with 20,000 POSIX records (finalize + compress + write), median of 9: "
      f"{downs[4] * 1e3:.1f} ms [{downs[0] * 1e3:.1f} .. {downs[-1] * 1e3:.1f}] (C: 165 ms); "
      f"log {size / 1e6:.2f} MB (C: 0.95-1.02 MB)")
record("shutdown.records_20000", downs[4] * 1e3, "ms", downs[0] * 1e3, downs[-1] * 1e3)
record("shutdown.log_bytes_20000", size, "B")
downs = sorted(internal([posix_small, os.path.join(data, "p.dat"), "10"], "shutdown") for _ in range(11))
print(f"shutdown with 2 records, median of 11: {downs[5] * 1e3:.2f} ms (C: 0.7 ms)")
record("shutdown.records_2", downs[5] * 1e3, "ms", downs[0] * 1e3, downs[-1] * 1e3)


def rss(on):
    vals = []
    for _ in range(5):
        fresh()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", posix_small, os.path.join(data, "p.dat"), "1000"],
                           env=env(on), capture_output=True, text=True, check=True)
        vals.append(int(r.stderr.strip().splitlines()[-1]))
    return statistics.median(vals)


off, on = rss(False), rss(True)
print(f"peak RSS of posix_small (1000 ops): {off / 1024:.1f} MB without, {on / 1024:.1f} MB with, "
      f"+{(on - off) / 1024:.1f} MB (C: 1.6 -> 4.0 MB, +2.4 MB)")
record("rss.posix_small_added", (on - off) / 1024, "MB")

crash_safe_section()
dxt_section()
disk_section()
short_process_section()
# The excluded files' directory (the per-call A/B and the crash-safe and
# DXT sections) is the bench's own: nothing of it is left in /dev/shm.
shutil.rmtree("/dev/shm/darshan-bench", ignore_errors=True)
