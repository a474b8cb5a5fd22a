"""The installed dxt_analyzer.py (scripts/dxt_analyzer.py) against PyDarshan
3.5.0's reading of the same logs: for every corpus log with DXT records,
the segments it takes from C Darshan 3.5.0's darshan-dxt-parser output
(the corpus's expected *.dxt.txt.gz; our parser's output for the logs
without one) are PyDarshan's, module by module, rank by rank, read and
write, start and end (to the 4 decimals the parser prints); and the
script draws a PDF under C's default name and title, read back by
poppler's pdftotext, for a log given as output and as a log.

Usage: check_dxt_analyzer.py PREFIX OUT_DIR CORPUS_DIR
Exits 1 on any failure.
"""
import collections
import gzip
import os
import subprocess
import sys

import darshan

prefix, out, corpus = (os.path.abspath(a) for a in sys.argv[1:4])
script = os.path.join(prefix, "bin", "dxt_analyzer.py")
sys.path.insert(0, os.path.join(prefix, "bin"))
import dxt_analyzer  # noqa: E402

os.makedirs(out, exist_ok=True)
failures = []


def pydarshan_segments(log):
    """(module, rank, action) -> sorted [(start, end)] as PyDarshan reads them."""
    r = darshan.DarshanReport(log, read_all=True)
    per = collections.defaultdict(list)
    for mod in ("DXT_POSIX", "DXT_MPIIO"):
        if mod not in r.records:
            continue
        for rec in r.records[mod].to_df():
            for action in ("write", "read"):
                df = rec[f"{action}_segments"]
                if len(df) == 0:
                    continue
                for s, e in zip(df["start_time"], df["end_time"]):
                    per[(mod[4:], rec["rank"], action)].append((s, e))
    return {k: sorted(v) for k, v in per.items()}


def script_segments(text_lines):
    per = collections.defaultdict(list)
    t = dxt_analyzer.parse(text_lines)
    for module, rank, action, start, end, _ in t.segments:
        per[(module, rank, action)].append((start, end))
    return t, {k: sorted(v) for k, v in per.items()}


def same(ours, theirs, name):
    if ours.keys() != theirs.keys():
        failures.append(f"{name}: (module, rank, action) {sorted(ours.keys() ^ theirs.keys())[:5]} only on one side")
        return 0
    n = 0
    for k in ours:
        a, b = ours[k], theirs[k]
        if len(a) != len(b):
            failures.append(f"{name} {k}: {len(a)} segments, PyDarshan {len(b)}")
            continue
        for (s1, e1), (s2, e2) in zip(a, b):
            if abs(s1 - s2) > 6e-5 or abs(e1 - e2) > 6e-5:
                failures.append(f"{name} {k}: ({s1}, {e1}) against PyDarshan's ({s2:.6f}, {e2:.6f})")
                break
        n += len(a)
    return n


logs = sorted(os.path.join(corpus, "logs", f) for f in os.listdir(os.path.join(corpus, "logs")) if f.endswith(".darshan"))
checked = segments = 0
for log in logs:
    name = os.path.basename(log)[: -len(".darshan")]
    theirs = pydarshan_segments(log)
    if not theirs:
        continue
    expected = os.path.join(corpus, "expected", name + ".dxt.txt.gz")
    if os.path.exists(expected):
        with gzip.open(expected, "rt", errors="replace") as f:
            lines = f.read().splitlines()
    else:
        parser = os.path.join(prefix, "bin", "darshan-dxt-parser")
        r = subprocess.run([parser, "--show-incomplete", log], capture_output=True, timeout=300)
        lines = r.stdout.decode("utf-8", "replace").splitlines()
    t, ours = script_segments(lines)
    segments += same(ours, theirs, name)
    checked += 1

# The picture, from darshan-dxt-parser's output and from the log, under
# C's default name and title.
name = "mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1"
text = os.path.join(out, "trace.txt")
with gzip.open(os.path.join(corpus, "expected", name + ".dxt.txt.gz"), "rb") as f, open(text, "wb") as g:
    g.write(f.read())
for given, args, title in ((text, [], "4373053_WRITE_activity"),
                           (os.path.join(corpus, "logs", name + ".darshan"),
                            ["--read", "--filemode", "-f", "/yellow/users/treddy/mpi_io_rough_work/test.out"],
                            "4373053_test.out_READ_activity")):
    for f in os.listdir(out):
        if f.endswith(".pdf"):
            os.remove(os.path.join(out, f))
    r = subprocess.run([sys.executable, script, "-i", given] + args, cwd=out, capture_output=True, text=True, timeout=300)
    pdf = os.path.join(out, "dxt_plot.pdf")
    if r.returncode != 0 or not os.path.exists(pdf):
        failures.append(f"dxt_analyzer.py -i {given} {args}: {r.returncode} {r.stderr.strip()}")
        continue
    shown = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, timeout=60).stdout
    if title not in shown or "MPI rank" not in shown:
        failures.append(f"dxt_analyzer.py {args}: no title {title} in the PDF: {shown[:200]!r}")

# Not a trace: one line, a failure.
bad = os.path.join(out, "not-a-trace.txt")
with open(bad, "w") as f:
    f.write("hello\n")
r = subprocess.run([sys.executable, script, "-i", bad], cwd=out, capture_output=True, text=True, timeout=60)
if r.returncode != 1 or len(r.stderr.strip().splitlines()) != 1:
    failures.append(f"a file that is no trace: exit {r.returncode}, said {r.stderr!r}")

# A FIFO given as the trace: refused at once, never waited on.
fifo = os.path.join(out, "fifo")
if os.path.exists(fifo):
    os.remove(fifo)
os.mkfifo(fifo)
r = subprocess.run([sys.executable, script, "-i", fifo], cwd=out, capture_output=True, text=True, timeout=60)
if r.returncode != 1:
    failures.append(f"a FIFO as the trace: exit {r.returncode}, said {r.stderr!r}")

# A file named as math text ($...$, which matplotlib would parse and
# fail on) in file mode: drawn, the name shown as it is.
odd = "/scratch/$\\frac{$x.dat"
trace = os.path.join(out, "odd.txt")
with open(trace, "w") as f:
    f.write("# darshan log version: 3.41\n# jobid: 7\n"
            f"# DXT, file_id: 1, file_name: {odd}\n"
            "# Module    Rank  Wt/Rd  Segment          Offset          Length    Start(s)      End(s)\n"
            " X_POSIX       0  write        0               0               8      0.0010      0.0020\n"
            " X_POSIX       0  write        1               8               8         inf         nan\n")
r = subprocess.run([sys.executable, script, "-i", trace, "--filemode", "-f", odd, "-o", "odd.pdf"],
                   cwd=out, capture_output=True, text=True, timeout=300)
shown = subprocess.run(["pdftotext", os.path.join(out, "odd.pdf"), "-"], capture_output=True, text=True,
                       timeout=60).stdout if r.returncode == 0 else ""
if "$\\frac{$x.dat" not in shown:
    failures.append(f"a file named as math text: exit {r.returncode}, {r.stderr.strip()[-200:]!r}, PDF {shown!r}")

print(f"dxt_analyzer.py: {checked} logs with DXT, {segments} segments as PyDarshan reads them; "
      f"{len(failures)} failures")
for f in failures[:30]:
    print("  " + f)
sys.exit(1 if failures or checked < 5 else 0)
