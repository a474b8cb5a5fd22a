"""darshan-dxt-parser --perfetto's traces drawn in headless Chromium by a
small Trace Event viewer of our own (tests/report/trace_viewer.html, which
knows nothing of Darshan): for every corpus log with DXT, the slices drawn
per process equal the segments darshan-dxt-parser prints for that rank.

Usage: check_trace_viewer.py OUT_DIR DARSHAN_DXT_PARSER LOG...
Exits 1 on any failure.
"""
import collections
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html_in_chromium import chromium_page  # noqa: E402

out, dxt_parser, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(out, exist_ok=True)
viewer = "file://" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "trace_viewer.html")
failures = []
checked = 0


def printed_segments(log):
    """Segments per rank in darshan-dxt-parser's own text output."""
    text = subprocess.run([dxt_parser, "--show-incomplete", log], capture_output=True, text=True, timeout=300).stdout
    per = collections.Counter()
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0].startswith("X_"):
            per[int(f[1])] += 1
    return per


with chromium_page(out) as p:
    p.call("Page.enable")
    p.call("Runtime.enable")
    for log in logs:
        want = printed_segments(log)
        if not want:
            continue
        trace = os.path.join(out, os.path.basename(log) + ".json")
        if os.path.exists(trace):
            os.remove(trace)
        subprocess.run([dxt_parser, "--show-incomplete", "--perfetto", trace, log], check=True, timeout=300,
                       capture_output=True)
        p.events.clear()
        p.call("Page.navigate", url=viewer)
        p.wait_for("Page.loadEventFired")
        with open(trace) as f:
            text = f.read()
        got = p.call("Runtime.evaluate", returnByValue=True, expression=f"""(() => {{
          const r = loadTrace({text});
          const per = {{}};
          for (const s of document.querySelectorAll('rect.slice')) per[s.dataset.pid] = (per[s.dataset.pid] || 0) + 1;
          return {{slices: r.slices, per}};
        }})()""")["result"].get("value")
        if got is None:
            fail = f"{log}: the viewer did not draw the trace"
            failures.append(fail)
            print("FAIL:", fail)
            continue
        drawn = {int(k): v for k, v in got["per"].items()}
        if drawn != dict(want):
            failures.append(log)
            print(f"FAIL: {log}: slices drawn per rank {drawn} != segments printed {dict(want)}")
        else:
            checked += 1
            print(f"{os.path.basename(log)}: {got['slices']} slices on {len(drawn)} ranks")

if checked == 0:
    failures.append("no log with DXT was checked")
print(json.dumps({"checked": checked, "failures": len(failures)}))
sys.exit(1 if failures else 0)
