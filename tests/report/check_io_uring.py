"""The report's io_uring section (issue 52), through the DOM in headless
Chromium and through --json, against known patterns:

* the liburing copy of ffi/tests/io_uring.rs (tests/programs/uring_copy.c:
  16 blocks of 64 KiB and one of 1,000 bytes, four in flight): 17 reads
  and 17 writes of 1,049,576 bytes, sizes 16 in 10K_100K and 1 in
  100_1K each way, deepest queue 4, 34 completions read, none unobserved;
  its one ring of 4 entries, 4 requests in flight at most, 10 calls that
  submitted (five rounds of a read batch and a write batch), 3.4 requests
  each;
* the inline-syscall run of tests/programs/uring_raw.c (7 requests
  the runtime cannot read): the page says 7 requests were not observed.

Usage: check_io_uring.py OUT_DIR DARSHAN_SUMMARY COPY_LOG INLINE_LOG
Exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html_in_chromium import chromium_page  # noqa: E402

out, summary, copy_log, inline_log = sys.argv[1:5]
os.makedirs(out, exist_ok=True)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def expect(what, got, want):
    if got != want:
        fail(f"{what}: {got!r}, expected {want!r}")


def section(p, log, name):
    page = os.path.join(out, name)
    if os.path.exists(page):
        os.remove(page)
    subprocess.run([summary, log, "-o", page], check=True, timeout=300)
    p.open(page)
    return p.call("Runtime.evaluate", returnByValue=True, expression=r"""(() => {
      const s = document.querySelector('section#io-uring');
      if (!s) return null;
      const rows = t => Array.from(s.querySelectorAll(`table[data-table="${t}"] tr`)).slice(1)
        .map(r => Array.from(r.cells).map(c => c.textContent.trim()));
      const note = s.querySelector('[data-note="io-uring-unobserved"]');
      return {totals: rows('io-uring-totals'), sizes: rows('io-uring-sizes'), files: rows('io-uring-files'),
              rings: rows('io-uring-rings'),
              unobserved: note ? note.textContent : null};
    })()""")["result"].get("value")


if not copy_log or not inline_log:
    fail("no log of the io_uring programs (ffi/tests/io_uring.rs runs them first)")
else:
    j = json.loads(subprocess.run([summary, "--json", copy_log, "-o", "-"], capture_output=True, text=True,
                                  check=True, timeout=300).stdout)["io_uring"]
    expect("JSON reads, writes", (j["reads"], j["writes"]), (17, 17))
    expect("JSON bytes", (j["bytes_read"], j["bytes_written"]), (1049576, 1049576))
    expect("JSON deepest queue, completions, unobserved",
           (j["max_inflight"], j["completions_seen"], j["completions_unseen"], j["unobserved"]), (4, 34, 0, 0))
    expect("JSON sizes", sorted(map(tuple, j["sizes"])), [("100_1K", 1, 1), ("10K_100K", 16, 16)])
    g = j["rings"] or {}
    expect("JSON rings", [g.get(k) for k in ("rings", "entries_max", "max_inflight", "submit_calls", "per_call")],
           [1, 4, 4, 10, 3.4])
    with chromium_page(out) as p:
        p.call("Page.enable")
        s = section(p, copy_log, "copy.html")
        if s is None:
            fail("no io_uring section on the copy's page")
        else:
            t = s["totals"][0]
            expect("page reads, writes", (t[0], t[2]), ("17", "17"))
            expect("page deepest queue, completions read", (t[5], t[6]), ("4", "34"))
            expect("page sizes", sorted(tuple(r) for r in s["sizes"]), [("101-1K", "1", "1"), ("10K-100K", "16", "16")])
            expect("page files", len(s["files"]), 2)
            g = s["rings"][0] if s["rings"] else []
            expect("page rings (rings, largest, in flight, calls, per call)",
                   [g[i] for i in (0, 3, 4, 5, 6)] if len(g) > 6 else g, ["1", "4", "4", "10", "3.4"])
            expect("page note", s["unobserved"], None)
        s = section(p, inline_log, "inline.html")
        if s is None or not s["unobserved"] or not s["unobserved"].startswith("7 requests"):
            fail(f"the inline program's page does not say 7 requests were not observed: {s}")
print("io_uring report:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
