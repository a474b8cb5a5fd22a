#!/usr/bin/env python3
"""Random POSIX and STDIO programs under C Darshan's library and ours,
every counter that is not a time compared (docs/counter-rules.md says
what each must be; C's log is the oracle).

    scripts/differential/run.py C_LIB [FIRST LAST [OPS]]
    scripts/differential/run.py C_LIB --reduce PROGRAM.c COUNTER

Programs come from programs.py (seeded, so a seed names a program); a
program whose logs differ is kept in target/differential with its
differences, and --reduce drops its lines one at a time while COUNTER
still differs. The calls where we record more than C on purpose
(docs/runtime.md: the stat family on glibc >= 2.33, getc/putc, ungetc,
mmap) are not generated."""
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(ROOT, "target", "differential")
OURS = os.environ.get("OURS", os.path.join(ROOT, "target", "release", "libdarshan.so"))
PARSER = os.path.join(ROOT, "target", "release", "darshan-parser")
DATA = os.path.join(WORK, "data")
TIME = re.compile(r"TIME|TIMESTAMP")
sys.path.insert(0, HERE)
import programs  # noqa: E402


def counters(log):
    """{(module, name, counter): value} for POSIX and STDIO records of the
    program's files and the standard streams, times left out."""
    out = subprocess.run([PARSER, "--show-incomplete", log], capture_output=True, text=True, timeout=60).stdout
    rows = [l.split("\t") for l in out.splitlines() if not l.startswith("#")]
    rows = [f for f in rows if len(f) >= 6]
    names = {f[2]: re.sub(r"tmp......$", "tmpXXXXXX", f[5]) for f in rows}
    recs = {}
    for f in rows:
        if f[0] not in ("POSIX", "STDIO") or TIME.search(f[3]):
            continue
        if not (f[5].startswith(DATA + "/f") or f[5].startswith("<")):
            continue
        value = names.get(f[4], f[4]) if f[3].endswith("RENAMED_FROM") else f[4]
        recs[(f[0], f[5], f[3])] = value
    return recs


def run(lib, exe, tag):
    """The counters of `exe` run under `lib` in a fresh data directory."""
    shutil.rmtree(DATA, ignore_errors=True)
    os.makedirs(DATA)
    logs, mmap = os.path.join(WORK, "logs-" + tag), os.path.join(WORK, "mmap-" + tag)
    for d in (logs, mmap):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    env = dict(os.environ, DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGPATH=logs, DARSHAN_MMAP_LOGPATH=mmap, LD_PRELOAD=lib)
    p = subprocess.run([exe, DATA], env=env, timeout=60, capture_output=True)
    found = glob.glob(os.path.join(logs, "*.darshan"))
    if len(found) != 1:
        return None, f"{tag}: {len(found)} logs, exit {p.returncode}"
    return counters(found[0]), None


def compare(c_lib, exe):
    c, e1 = run(c_lib, exe, "c")
    o, e2 = run(OURS, exe, "ours")
    if e1 or e2:
        return [f"{e1 or ''} {e2 or ''}".strip()]
    return [f"{k[0]} {os.path.basename(k[1])} {k[2]}: C {c.get(k)}, ours {o.get(k)}"
            for k in sorted(set(c) | set(o)) if c.get(k) != o.get(k)]


def build(src, exe):
    subprocess.run(["cc", "-O0", "-w", "-o", exe, src], check=True)


def one(c_lib, seed, ops):
    src, exe = os.path.join(WORK, f"p{seed}.c"), os.path.join(WORK, f"p{seed}")
    with open(src, "w") as f:
        f.write(programs.gen(seed, ops))
    build(src, exe)
    diffs = compare(c_lib, exe)
    if not diffs:
        os.remove(src)
        os.remove(exe)
    return diffs


def reduce(c_lib, src, counter):
    """Drop the program's body lines one at a time while `counter` differs."""
    lines = open(src).read().split("\n")
    start = next(i for i, l in enumerate(lines) if "buf[i] = '\\n'" in l) + 1
    end = next(i for i in range(len(lines) - 1, 0, -1) if lines[i].strip().startswith("return"))
    red, exe = os.path.join(WORK, "reduced.c"), os.path.join(WORK, "reduced")

    def differs(ls):
        with open(red, "w") as f:
            f.write("\n".join(ls))
        try:
            build(red, exe)
        except subprocess.CalledProcessError:
            return False
        return any(f" {counter}:" in d for d in compare(c_lib, exe))

    if not differs(lines):
        sys.exit(f"{counter} does not differ in {src}")
    i = start
    while i < end:
        if differs(lines[:i] + lines[i + 1:]):
            lines, end = lines[:i] + lines[i + 1:], end - 1
        else:
            i += 1
    differs(lines)
    print("\n".join(lines[start:end]))
    print(f"(kept in {red})")


def main():
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        sys.exit(__doc__)
    c_lib = sys.argv[1]
    os.makedirs(WORK, exist_ok=True)
    if len(sys.argv) > 2 and sys.argv[2] == "--reduce":
        return reduce(c_lib, sys.argv[3], sys.argv[4])
    first, last = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (1, 201)
    ops = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    differing = 0
    for seed in range(first, last):
        diffs = one(c_lib, seed, ops)
        if diffs:
            differing += 1
            print("\n".join(f"seed {seed}: {d}" for d in diffs[:40]), flush=True)
    print(f"{last - first} programs of {ops} calls, {differing} differ")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
