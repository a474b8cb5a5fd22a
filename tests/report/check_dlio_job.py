"""The DLIO training run in the corpus (24 per-process logs, C Darshan
3.4.6), merged with `darshan-merge --job` and read as its user would:
through darshan-summary's --json and its page in headless Chromium (the
DOM), with PyDarshan reading each process's own log as the oracle.

Checked: 24 processes in the header; no negative (or -1-derived) number
anywhere in the JSON, the text or the page; no finding that names MPI,
collective I/O or MPI_Bcast; the data set read about 5 times over (121 GiB
over its 23.5 GiB extent, within 5 %) with the caching advice;
entry_points.txt, .pyc and site-packages files only in the
software-loading line (N02); the Processes section has a row per
process whose bytes (data plus software loading) equal what PyDarshan
reads in that process's log.

Usage: check_dlio_job.py OUT_DIR DARSHAN_MERGE DARSHAN_SUMMARY CORPUS_LOGS_DIR
Exits 1 on any failure.
"""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html_in_chromium import chromium_page  # noqa: E402

import darshan  # noqa: E402

out, merge, summary, corpus = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


logs = sorted(glob.glob(os.path.join(corpus, "dlio_logs__*.darshan")))
if len(logs) != 24:
    sys.exit(f"expected the 24 DLIO logs in {corpus}, found {len(logs)}")
job = os.path.join(out, "dlio_job.darshan")
for f in (job,):
    if os.path.exists(f):
        os.remove(f)
subprocess.run([merge, "--job", "--output", job, *logs], check=True, timeout=300)
report = json.loads(subprocess.run([summary, "--json", job], check=True, capture_output=True, timeout=300).stdout)
text = subprocess.run([summary, "--text", job], check=True, capture_output=True, text=True, timeout=300).stdout
page = os.path.join(out, "dlio_job.html")
if os.path.exists(page):
    os.remove(page)
subprocess.run([summary, job, "-o", page], check=True, timeout=300)

# A minus sign before a digit that is not inside a word, a path or a date.
NEGATIVE = re.compile(r"(?<![\w.\-/])-\d")
SOFTWARE = ("entry_points.txt", ".pyc", "site-packages")
MPI = ("MPI", "collective", "Bcast")


def walk(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from walk(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, x


# JSON
if not report["job"]["processes"].startswith("24 "):
    fail(f"header processes: {report['job']['processes']!r}")
for path, v in walk(report):
    if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0:
        fail(f"JSON {path} = {v}")
    if isinstance(v, str) and NEGATIVE.search(v):
        fail(f"JSON {path}: {v!r}")
for f in report["findings"]:
    said = " ".join([f["title"], *f["evidence"], f.get("recommendation") or ""])
    if any(m in said for m in MPI):
        fail(f"{f['code']} speaks of MPI to a job without it: {said}")
    if f["code"] != "N02" and any(s in said for s in SOFTWARE):
        fail(f"{f['code']} names software loading: {said}")
for table in ("by_bytes", "by_time", "by_slowest_rank", "imbalance"):
    for row in report["files"][table]:
        if any(s in row["name"] for s in SOFTWARE):
            fail(f"files.{table} lists {row['name']}")
e01 = next((f for f in report["findings"] if f["code"] == "E01"), None)
if e01 is None:
    fail("no E01 (passes over the data set)")
else:
    passes = float(e01["title"].split()[0])
    if abs(passes - 121.0 / 23.5) > 0.05 * 121.0 / 23.5:
        fail(f"E01 passes {passes}")
    if "node-local" not in (e01.get("recommendation") or ""):
        fail(f"E01 advice: {e01.get('recommendation')}")
for n, line in enumerate(text.splitlines()):
    if NEGATIVE.search(line):
        fail(f"text line {n + 1}: {line}")

# PyDarshan, each process's own log: its POSIX and STDIO bytes read.
rows = {r["pid"]: r for r in report["processes"]["rows"]}
if len(rows) != 24:
    fail(f"{len(rows)} process rows with a pid, not 24")
compared = 0
for log in logs:
    pid = int(os.path.basename(log).split("-")[1].split("_")[0])
    rep = darshan.DarshanReport(log, read_all=True)
    total = 0
    for mod, counter in (("POSIX", "POSIX_BYTES_READ"), ("STDIO", "STDIO_BYTES_READ")):
        if mod in rep.records:
            total += int(rep.records[mod].to_df()["counters"][counter].clip(lower=0).sum())
    row = rows.get(pid)
    if row is None:
        fail(f"pid {pid} has no row")
        continue
    mine = row["bytes_read"] + row["software_bytes_read"]
    compared += 1
    if mine != total:
        fail(f"pid {pid}: {mine} bytes read in the Processes section, PyDarshan {total}")

# The page, through the DOM.
with chromium_page(out) as p:
    p.call("Page.enable")
    p.call("Runtime.enable")
    p.call("Page.navigate", url="file://" + os.path.abspath(page))
    p.wait_for("Page.loadEventFired")
    got = json.loads(p.call("Runtime.evaluate", returnByValue=True, expression=r"""JSON.stringify({
      processes: [...document.querySelectorAll('#job th')].find(t => t.textContent === 'processes')?.nextElementSibling?.textContent,
      body: document.body.innerText,
      findings: [...document.querySelectorAll('.finding')].map(f => ({code: f.querySelector('.code').textContent, text: f.innerText})),
      rows: document.querySelectorAll('table[data-table="processes"] tr').length - 1,
      chart: !!document.querySelector('figure[data-chart="processes"] svg'),
    })""")["result"]["value"])
if not (got["processes"] or "").startswith("24 "):
    fail(f"page header processes: {got['processes']!r}")
for line in got["body"].splitlines():
    if NEGATIVE.search(line):
        fail(f"page: {line.strip()[:160]}")
for f in got["findings"]:
    if any(m in f["text"] for m in MPI):
        fail(f"page finding {f['code']} speaks of MPI: {f['text'][:160]}")
software_lines = [ln for ln in got["body"].splitlines() if any(s in ln for s in SOFTWARE)]
n02 = next((f["text"] for f in got["findings"] if f["code"] == "N02"), "")
for ln in software_lines:
    if ln.strip() and ln.strip() not in n02:
        fail(f"page names software loading outside N02: {ln.strip()[:160]}")
if not any(f["code"] == "E01" for f in got["findings"]):
    fail("page has no E01")
if got["rows"] != 24:
    fail(f"page Processes table has {got['rows']} rows")
if not got["chart"]:
    fail("page has no process timeline chart")

print(f"DLIO job: {compared} processes compared with PyDarshan, {len(software_lines)} software lines on the page "
      f"(all in N02), {len(failures)} failures")
sys.exit(1 if failures else 0)
