"""PyDarshan 3.5.0 built against darshan-util reads every corpus log through
our libdarshan-util exactly as through C's.

PyDarshan loads the libdarshan-util its wheel bundles first; installed from
source (Spack's py-darshan, conda-forge's pydarshan) it has none, and loads
the one of the darshan-util on the PATH. Here the same PyDarshan is run
twice over the corpus:

* as the venv has it, with the wheel's C library (darshan-util 3.5.0);
* a copy of its package without the bundled library, the installed tree's
  bin/ first on the PATH: it must find and load PREFIX/lib/libdarshan-util.so.

Everything it reads must be equal (util_lib_dump.py): job, command line,
mounts, modules, names, every record of every module, counter names, the
accumulator's derived metrics and summation records. The one difference
allowed is C's: darshan-util leaves POSIX fcounters 10-12 of big-endian
logs older than 3.1.7 unswapped (garbage near 1e-305); ours swaps them.
Then `python -m darshan summary` writes its HTML report from a few logs
through each library: the pages must be byte-identical.

Usage: check_util_lib.py PREFIX WORK_DIR LOG...
"""
import json
import os
import subprocess
import sys

from util_libs import env_for_ours

HERE = os.path.dirname(os.path.abspath(__file__))
PAGES = ["runtime_and_dxt_heatmaps_diagonal_write_only", "imbalanced_io__imbalanced-io", "dlio_logs__snyder"]


def dump(out, logs, env):
    p = subprocess.run([sys.executable, os.path.join(HERE, "util_lib_dump.py"), out] + logs,
                       env=env, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit(f"util_lib_dump.py failed: {p.stderr[-2000:]}")
    with open(out) as f:
        return json.load(f)


def allowed(log, key, x, y):
    """C's known slip: old big-endian POSIX fcounters 10-12 left unswapped."""
    name = os.path.basename(log)
    old_be = "ppc64-3.0." in name or any(f"ppc64-3.1.{k}." in name for k in range(7))
    if key != "records" or not old_be:
        return False
    if set(x) != set(y):
        return False
    for mod in x:
        if mod != "POSIX":
            if x[mod] != y[mod]:
                return False
            continue
        for a, b in zip(x[mod], y[mod]):
            fa, fb = a["fcounters"], b["fcounters"]
            if len(fa) != len(fb) or {k for k in range(len(fa)) if fa[k] != fb[k]} - {10, 11, 12}:
                return False
            if {k: v for k, v in a.items() if k != "fcounters"} != {k: v for k, v in b.items() if k != "fcounters"}:
                return False
    return True


def compare(c, ours, prefix):
    lib = os.path.realpath(os.path.join(prefix, "lib", "libdarshan-util.so"))
    if [os.path.realpath(p) for p in ours["library"]] != [lib]:
        return [f"PyDarshan loaded {ours['library']}, not the installed {lib}"]
    if c["library"] == ours["library"]:
        return ["both runs loaded the same library"]
    diffs = []
    for what in ("version", "names", "fnames"):
        if c[what] != ours[what]:
            diffs.append(f"{what}: {str(c[what])[:200]} != {str(ours[what])[:200]}")
    read = 0
    for log, x in c["logs"].items():
        y = ours["logs"].get(log, {})
        for key in x:
            if x[key] != y.get(key) and not allowed(log, key, x[key], y.get(key)):
                diffs.append(f"{os.path.basename(log)}: {key} differs")
        read += sum(len(r) for r in x.get("records", {}).values() if isinstance(r, list))
    if read < 1000:
        diffs.append(f"only {read} records read: the comparison would show nothing")
    print(f"{len(c['logs'])} logs, {read} records read through each library")
    return diffs


def pages(logs, work, prefix):
    diffs = []
    for pick in PAGES:
        log = next((l for l in logs if pick in os.path.basename(l)), None)
        if log is None:
            diffs.append(f"no corpus log {pick}")
            continue
        html = []
        for who, env in (("c", dict(os.environ)), ("ours", env_for_ours(prefix, work))):
            d = os.path.join(work, "pages", who)
            os.makedirs(d, exist_ok=True)
            out = os.path.join(d, os.path.basename(log) + ".html")
            p = subprocess.run([sys.executable, "-m", "darshan", "summary", log, "--output", out],
                               env=env, cwd=d, capture_output=True, text=True, timeout=600)
            if p.returncode != 0 or not os.path.exists(out):
                diffs.append(f"{pick}: the summary through {who} failed: {p.stderr[-500:]}")
                break
            with open(out, "rb") as f:
                html.append(f.read())
        if len(html) == 2 and html[0] != html[1]:
            diffs.append(f"{pick}: the summary pages differ")
        elif len(html) == 2:
            print(f"{pick}: summary page identical ({len(html[0])} bytes)")
    return diffs


def main():
    prefix, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    logs = [os.path.abspath(l) for l in sys.argv[3:]]
    os.makedirs(work, exist_ok=True)
    c = dump(os.path.join(work, "c.json"), logs, dict(os.environ))
    ours = dump(os.path.join(work, "ours.json"), logs, env_for_ours(prefix, work))
    diffs = compare(c, ours, prefix) + pages(logs, work, prefix)
    for d in diffs:
        print("DIFFERS: " + d)
    print(f"libdarshan-util through PyDarshan: {len(diffs)} differences")
    sys.exit(1 if diffs else 0)


main()
