"""The report's history section (darshan-summary --history), checked
through the DOM in headless Chromium on the real runs ffi/tests/history.rs
left in its directory: an MPI program's 8 earlier runs in a database, and
four runs to compare (a: the same again, b: 20-byte writes, c: an extra
rank-0 file and a slow rank, d: an application with only 3 runs).

For each, the page's section says what the --json output of the same
command says (status, one line, the changes' rows, the files' rows), and
what the known pattern demands:
  a: "consistent", no change table;
  b: rows POSIX:write_0_100 and POSIX:write_100K_1M, the per-rank files named;
  c: extra.log in the files table as new, rank 2 in the ranks list;
  d: "too_few", the values table with 3 earlier runs.

Usage: check_history.py OUT_DIR DARSHAN_SUMMARY HISTORY_TEST_DIR
Exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html_in_chromium import chromium_page  # noqa: E402

out, summary, test_dir = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
db = os.path.join(test_dir, "history.db")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def section(p, log, name):
    page = os.path.join(out, name + ".html")
    if os.path.exists(page):
        os.remove(page)
    subprocess.run([summary, "--history", db, log, "-o", page], check=True, timeout=300)
    js = subprocess.run([summary, "--history", db, "--json", "-o", "-", log],
                        check=True, timeout=300, capture_output=True, text=True).stdout
    p.events.clear()
    p.call("Page.navigate", url="file://" + os.path.abspath(page))
    p.wait_for("Page.loadEventFired")
    dom = p.call("Runtime.evaluate", returnByValue=True, expression=r"""(() => {
      const s = document.querySelector('section#history');
      if (!s) return null;
      const said = s.querySelector('p.said');
      const rows = (t) => [...s.querySelectorAll(`table[data-table="${t}"] tr`)].slice(1);
      return {
        status: said ? said.dataset.status : null,
        said: said ? said.textContent : null,
        changes: rows('history-changes').map(r => ({fact: r.dataset.fact,
            carriers: [...r.querySelectorAll('li')].map(li => li.textContent)})),
        files: rows('history-files').map(r => ({what: r.dataset.what, name: r.cells[0].textContent,
            rank: r.cells[2].textContent})),
        ranks: [...s.querySelectorAll('ul[data-list="history-ranks"] li')].map(li => li.dataset.rank),
        values: rows('history-values').map(r => r.cells.length),
        visible: s.getBoundingClientRect().height > 0,
      };
    })()""")["result"].get("value")
    return dom, json.loads(js)["history"]


def agrees(name, dom, h):
    if dom is None:
        fail(f"{name}: no history section on the page")
        return False
    if not dom["visible"]:
        fail(f"{name}: the history section is not drawn")
    if dom["status"] != h["status"] or dom["said"] != h["said"]:
        fail(f"{name}: the page says {dom['status']}: {dom['said']!r}, the JSON {h['status']}: {h['said']!r}")
    facts = [f"{c['scope']}:{c['fact']}" for c in h["changes"]]
    if [c["fact"] for c in dom["changes"]] != facts:
        fail(f"{name}: the page's changes {[c['fact'] for c in dom['changes']]} are not the JSON's {facts}")
    if [(f["what"], f["name"]) for f in dom["files"]] != [(f["what"], f["name"]) for f in h["files"]]:
        fail(f"{name}: the page's files are not the JSON's")
    return True


def carriers(dom, fact):
    return next((c["carriers"] for c in dom["changes"] if c["fact"] == fact), None)


scen = os.path.join(test_dir, "scenarios")
with chromium_page(out) as p:
    p.call("Page.enable")
    p.call("Runtime.enable")
    dom, h = section(p, os.path.join(scen, "a-same.darshan"), "a")
    if agrees("a", dom, h):
        if dom["status"] != "consistent" or dom["changes"] or dom["files"]:
            fail(f"a: an identical run is not quiet: {dom}")
        print("a:", dom["said"])
    dom, h = section(p, os.path.join(scen, "b-small-writes.darshan"), "b")
    if agrees("b", dom, h):
        small = carriers(dom, "POSIX:write_0_100")
        if small is None or carriers(dom, "POSIX:write_100K_1M") is None:
            fail(f"b: the size buckets that moved are not rows: {[c['fact'] for c in dom['changes']]}")
        elif not any("rank#.dat: writes mostly 0-100 B now" in x for x in small):
            fail(f"b: the per-rank files are not named as the small writes' carriers: {small}")
        print("b:", dom["said"])
    dom, h = section(p, os.path.join(scen, "c-extra-file-slow-rank.darshan"), "c")
    if agrees("c", dom, h):
        new = [f for f in dom["files"] if f["what"] == "new"]
        if len(new) != 1 or not new[0]["name"].endswith("/extra.log") or new[0]["rank"] != "0":
            fail(f"c: extra.log is not the one new file, of rank 0: {dom['files']}")
        if "2" not in dom["ranks"]:
            fail(f"c: rank 2 is not named as the slowest: {dom['ranks']}")
        print("c:", dom["said"])
    dom, h = section(p, os.path.join(scen, "d-too-few.darshan"), "d")
    if agrees("d", dom, h):
        if dom["status"] != "too_few" or not dom["values"] or any(n != 2 + 3 for n in dom["values"]):
            fail(f"d: three runs should be shown, not judged: {dom}")
        print("d:", dom["said"])

print(json.dumps({"failures": len(failures)}))
sys.exit(1 if failures else 0)
