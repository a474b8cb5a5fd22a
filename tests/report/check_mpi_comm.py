"""The report's MPI communication section against PyDarshan's reading of
the same APMPI records (PyDarshan 3.5.0's wheel, whose C library decodes
them; one process per log, as C's reader needs): per log, the ranks, the
nodes, the ranks' mean, least and most communication time, the header's
variance, and every operation's calls, bytes, time, share and longest
call, most time first. Then one page through the DOM in headless
Chromium, against the JSON; and a log without APMPI has no section.

Usage: check_mpi_comm.py OUT_DIR DARSHAN_SUMMARY LOG...
Exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "pydarshan")]
from apmpi_expect import close, expected  # noqa: E402
from check_html_in_chromium import chromium_page  # noqa: E402

TOP = 10
out, summary, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(out, exist_ok=True)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def check_json(log, m, e):
    b = os.path.basename(log)
    if m is None:
        return fail(f"{b}: no mpi_comm in the JSON")
    for what, got, want in [("ranks", m["ranks"], e["ranks"]), ("nodes", m["nodes"], e["nodes"]),
                            ("operations called", m["operations_called"], len(e["ops"])),
                            ("least rank", m["least"]["rank"], e["least"][1]),
                            ("most rank", m["most"]["rank"], e["most"][1])]:
        if got != want:
            fail(f"{b}: {what} {got!r}, PyDarshan's records say {want!r}")
    for what, got, want in [("mean", m["mean_seconds"], e["mean"]), ("least", m["least"]["seconds"], e["least"][0]),
                            ("most", m["most"]["seconds"], e["most"][0]), ("variance", m["variance"], e["variance"]),
                            ("run share", m["run_share"], e["run_share"])]:
        if not close(got, want):
            fail(f"{b}: {what} {got!r}, PyDarshan's records say {want!r}")
    got = [(o["name"], o["calls"], o["bytes"], o["seconds"], o["share"], o["max_call_seconds"]) for o in m["ops"]]
    want = e["ops"][:TOP]
    if [g[:3] for g in got] != [w[:3] for w in want] or not all(
            close(g[k], w[k]) for g, w in zip(got, want) for k in (3, 4, 5)):
        fail(f"{b}: operations {got[:3]}..., PyDarshan's records say {want[:3]}...")


def check_finding(log, findings, e):
    """C01 where, by PyDarshan's records, the ranks' mean communication
    time is at least a quarter of the run and at least a second (the
    defaults of mpi_comm_share and min_time), with that share; else none."""
    b = os.path.basename(log)
    c01 = [f for f in findings if f["code"] == "C01"]
    due = e["run_share"] >= 0.25 and e["mean"] >= 1.0
    if due != bool(c01):
        return fail(f"{b}: C01 {'missing' if due else 'said'}; PyDarshan's records: "
                    f"{e['run_share']:.3f} of the run, {e['mean']:.2f} s per rank")
    title = f"The ranks spent {e['run_share'] * 100:.0f}% of the run time in MPI communication"
    if c01 and c01[0]["title"] != title:
        fail(f"{b}: C01 says {c01[0]['title']!r}, PyDarshan's records {title!r}")
    if c01:
        global said_c01
        said_c01 += 1


said_c01 = 0


def page_rows(p, page):
    p.open(page)
    return p.call("Runtime.evaluate", returnByValue=True, expression=r"""(() => {
      const s = document.querySelector('section#mpi-comm');
      if (!s) return null;
      const rows = t => Array.from(s.querySelectorAll(`table[data-table="${t}"] tr`)).slice(1)
        .map(r => Array.from(r.cells).map(c => c.textContent.trim()));
      return {ranks: rows('mpi-comm-ranks'), ops: rows('mpi-comm-ops')};
    })()""")["result"].get("value")


with_apmpi, without = [], None
for log in logs:
    j = json.loads(subprocess.run([summary, "--json", log, "-o", "-"], capture_output=True, text=True,
                                  check=True, timeout=300).stdout)
    if any(m["name"] == "APMPI" for m in j["modules"]):
        e = expected(log)
        check_json(log, j.get("mpi_comm"), e)
        check_finding(log, j["findings"], e)
        with_apmpi.append((log, j["mpi_comm"]))
    elif without is None and j.get("mpi_comm") is None:
        without = log
if said_c01 < 2:
    fail(f"C01 said on {said_c01} logs; PyDarshan's records put two corpus logs over a quarter of their run in MPI")
if len(with_apmpi) < 10:
    fail(f"only {len(with_apmpi)} logs with APMPI records")
print(f"mpi_comm: {len(with_apmpi)} logs with APMPI records checked against PyDarshan, C01 on {said_c01}")
log, m = max(with_apmpi, key=lambda t: t[1]["ranks"]) if with_apmpi else (None, None)
with chromium_page(out) as p:
    p.call("Page.enable")
    if log:
        page = os.path.join(out, "mpi.html")
        subprocess.run([summary, log, "-o", page], check=True, timeout=300)
        s = page_rows(p, page)
        if s is None:
            fail("no MPI communication section on the page")
        else:
            r = s["ranks"][0] if s["ranks"] else []
            if r[:2] != [str(m["ranks"]), str(m["nodes"])] or f"({m['most']['rank']})" not in r[5]:
                fail(f"page ranks row {r}, JSON {m['ranks']} ranks, {m['nodes']} nodes, most rank {m['most']['rank']}")
            if [o[0] for o in s["ops"]] != [o["name"] for o in m["ops"]]:
                fail(f"page operations {[o[0] for o in s['ops']]}, JSON {[o['name'] for o in m['ops']]}")
    if without:
        page = os.path.join(out, "none.html")
        subprocess.run([summary, without, "-o", page], check=True, timeout=300)
        if page_rows(p, page) is not None:
            fail(f"{os.path.basename(without)} has no APMPI records, but its page has the section")
print("mpi_comm report:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
