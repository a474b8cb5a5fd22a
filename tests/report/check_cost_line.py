"""The report's header says what the runtime cost (issue 51), checked
through the DOM in headless Chromium: for a log our runtime wrote, the
`#darshan-cost` row says "Darshan's own cost: X ms, Y % of the run", and
X and Y are the log's own figures as darshan-parser prints them
(darshan_cost_startup_us + _shutdown_us + _est_us, darshan_cost_share_pct);
for a C Darshan log, which states no cost, there is no such row.

With a crash-safe file (CRASH_SAFE, a killed process's: no end written),
its page says the run time is unknown (it once said minus the start, the
end 1970-01-01) and the cost line has no run time to compare with.

Usage: check_cost_line.py OUT_DIR DARSHAN_SUMMARY DARSHAN_PARSER OUR_LOG C_LOG [CRASH_SAFE]
Exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html_in_chromium import chromium_page  # noqa: E402

out, summary, parser, ours, theirs = sys.argv[1:6]
crash_safe = sys.argv[6] if len(sys.argv) > 6 else ""
os.makedirs(out, exist_ok=True)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def stated(log):
    # darshan-parser exits 255 on a partial log (as C's does): its header is printed all the same.
    text = subprocess.run([parser, log], capture_output=True, text=True, timeout=120).stdout
    return dict(re.findall(r"^# metadata: (darshan_cost_\w+) = (\S+)$", text, re.M))


def cell(p, selector):
    return p.call("Runtime.evaluate", returnByValue=True,
                  expression=f"(() => {{ const c = document.querySelector({json.dumps(selector)}); return c ? c.textContent : null; }})()")["result"].get("value")


def cost_row(p, log, name):
    page = os.path.join(out, name)
    if os.path.exists(page):
        os.remove(page)
    subprocess.run([summary, log, "-o", page], check=True, timeout=300)
    # The previous page's load event must not be taken for this one's
    # (the C log's page was read before it loaded: "no row" held vacuously).
    p.events.clear()
    p.call("Page.navigate", url="file://" + os.path.abspath(page))
    p.wait_for("Page.loadEventFired")
    return p.call("Runtime.evaluate", returnByValue=True, expression=r"""(() => {
      const row = document.querySelector('#job tr#darshan-cost');
      return row ? row.querySelector('.said').textContent : null;
    })()""")["result"].get("value")


with chromium_page(out) as p:
    p.call("Page.enable")
    p.call("Runtime.enable")
    said = cost_row(p, ours, "ours.html")
    meta = stated(ours)
    if not meta:
        fail(f"{ours}: darshan-parser shows no darshan_cost_* metadata")
    elif said is None:
        fail("no #darshan-cost row in the header of our runtime's log's page")
    else:
        m = re.fullmatch(r"Darshan's own cost: ([\d.,]+) ms, ([\d.]+) % of the run", said)
        total_ms = sum(float(meta[f"darshan_cost_{k}_us"]) for k in ("startup", "shutdown", "est")) / 1000
        if not m:
            fail(f"the cost line reads {said!r}")
        else:
            shown = float(m.group(1).replace(",", ""))
            if abs(shown - total_ms) > max(0.006, total_ms * 0.001):
                fail(f"the page says {shown} ms, the log {total_ms:.3f} ms")
            if float(m.group(2)) != float(meta["darshan_cost_share_pct"]):
                fail(f"the page says {m.group(2)} %, the log {meta['darshan_cost_share_pct']} %")
        print(f"ours: {said!r} (log: {total_ms:.3f} ms, {meta.get('darshan_cost_share_pct')} %)")
    said_c = cost_row(p, theirs, "c.html")
    if stated(theirs):
        fail(f"{theirs} is meant to be a C Darshan log without cost lines")
    if said_c is not None:
        fail(f"a C Darshan log's page has a cost row: {said_c!r}")
    if not crash_safe:
        fail("no crash-safe file given (ffi/tests/crash.rs makes one)")
    else:
        said_k = cost_row(p, crash_safe, "crash-safe.html")
        run_time, end = cell(p, "#job td#run-time"), cell(p, "#job td#end")
        if not (run_time or "").startswith("unknown: the process did not finish"):
            fail(f"a crash-safe file's run time reads {run_time!r}")
        if end != "-":
            fail(f"a crash-safe file's end reads {end!r}")
        if not re.fullmatch(r"Darshan's own cost: [\d.,]+ ms, no run time to compare with", said_k or ""):
            fail(f"a crash-safe file's cost line reads {said_k!r}")
        print(f"crash-safe: run time {run_time!r}, end {end!r}, {said_k!r}")

print(json.dumps({"failures": len(failures)}))
sys.exit(1 if failures else 0)
