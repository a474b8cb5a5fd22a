"""The pictures, checked in headless Chromium through the DOM.

For every chart (<figure class="chart">) of darshan-summary's and
darshan-study's pages: every category the data has is a label (read from
the SVG's <text> elements), no two labels overlap (their bounding boxes),
no axis shows a raw unformatted number (40000000.0), rank axes tick at
whole ranks only, and every heat map has a colour scale in bytes. The
page never scrolls sideways in a 1,400 px window (wide tables scroll in
their own box).

The expected categories come from the data, not from the page: the
report's --json (interfaces, operation names), PyDarshan's names for the
access-size buckets, the three access-pattern rows, and the study's JSON
(job-size classes).

Usage: check_charts.py OUT_DIR [--study STUDY.html:STUDY.json] PAGE.html:REPORT.json...
Exits 1 on any failure. A self-test first shows the checks can fail.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html_in_chromium import chromium_page  # noqa: E402

# PyDarshan's access-size histogram categories (darshan.experimental.plots).
PYDARSHAN_BUCKETS = ["0-100", "101-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M", "10M-100M", "100M-1G", "1G+"]
PATTERN = ["total", "sequential", "consecutive"]
WIDTH = 1400

# Every <figure class="chart">: its kind, module, and each <text>'s content
# and box; the colour bar's distinct fills for heat maps.
COLLECT = r"""
JSON.stringify([...document.querySelectorAll('figure.chart')].map(f => {
  const texts = [...f.querySelectorAll('svg text')].map(t => {
    const r = t.getBoundingClientRect();
    return {s: t.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom};
  });
  const rects = [...f.querySelectorAll('svg rect')].map(r => (r.getAttribute('fill') || '').toUpperCase());
  const fills = new Set(rects);
  const spans = rects.filter(c => c === '#1F77B4' || c === '#FF7F0E').length;
  return {chart: f.dataset.chart, module: f.dataset.module || null, name: f.dataset.name || null,
          texts, fills: fills.size, spans};
}))
"""
PAGE = r"""
JSON.stringify({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
  wide: [...document.querySelectorAll('table')].filter(t => t.getBoundingClientRect().width > document.body.clientWidth + 1
        && !t.closest('.scroll')).length})
"""
RAW_NUMBER = re.compile(r"^-?\d{6,}(\.\d+)?$")
NUMBER_ONLY = re.compile(r"^-?[\d,]+(\.\d+)?$")


def overlaps(texts):
    """Pairs of labels whose boxes overlap by more than a pixel each way."""
    bad = []
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            if not a["s"].strip() or not b["s"].strip():
                continue
            w = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            h = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
            if w > 1 and h > 1:
                bad.append((a["s"], b["s"]))
    return bad


def expected(fig, report, study):
    """The categories the data has for this chart (None: not a category chart)."""
    kind = fig["chart"]
    if report is not None:
        st = next((s for s in report["module_stats"] if s["module"] == fig["module"]), None)
        if kind == "ops" and st:
            return [l for l, _ in st["op_counts"]]
        if kind == "sizes" and st:
            return PYDARSHAN_BUCKETS[: len(st["access_sizes"])]
        if kind == "pattern":
            return PATTERN
        if kind == "io-cost":
            return [c["interface"] for c in report["io_cost"]]
        return None
    table = next((t for t in study["tables"] if t["name"] == kind), None)
    if table and "size_class" in table["columns"]:
        i = table["columns"].index("size_class")
        return [str(r[i]) for r in table["rows"]]
    return None


def check_page(path, data, out_dir, failures, is_study=False):
    name = os.path.basename(path)
    with chromium_page(out_dir) as p:
        p.call("Page.enable")
        p.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=1000, deviceScaleFactor=1, mobile=False)
        p.call("Page.navigate", url="file://" + os.path.abspath(path))
        p.wait_for("Page.loadEventFired")
        figures = json.loads(p.call("Runtime.evaluate", expression=COLLECT, returnByValue=True)["result"]["value"])
        page = json.loads(p.call("Runtime.evaluate", expression=PAGE, returnByValue=True)["result"]["value"])
    has_data = bool(data.get("tables") if is_study else data.get("module_stats"))
    if not figures and has_data:
        failures.append(f"{name}: no charts found")
    if page["scroll"] > page["client"] + 1:
        failures.append(f"{name}: the page scrolls sideways in a {WIDTH} px window ({page['scroll']} px wide)")
    if page["wide"]:
        failures.append(f"{name}: {page['wide']} tables wider than the page outside a scrolling box")
    labels_checked = 0
    for fig in figures:
        what = f"{name}: {fig['chart']}{' ' + fig['module'] if fig['module'] else ''}{' ' + fig['name'] if fig['name'] else ''}"
        shown = [t["s"].strip() for t in fig["texts"]]
        if not fig["texts"]:
            failures.append(f"{what}: no text at all (a note instead of a chart?)")
            continue
        want = expected(fig, None if is_study else data, data if is_study else None)
        for label in want or []:
            labels_checked += 1
            if label not in shown:
                failures.append(f"{what}: category {label!r} has no label (labels: {shown[:30]})")
        for a, b in overlaps(fig["texts"]):
            failures.append(f"{what}: labels overlap: {a!r} and {b!r}")
        for s in shown:
            if RAW_NUMBER.match(s):
                failures.append(f"{what}: a raw number on an axis: {s!r}")
        if fig["chart"] in ("heatmap", "timeline", "timespans"):
            # Rank ticks: the number-only labels (times carry a unit).
            for s in shown:
                if NUMBER_ONLY.match(s) and "." in s:
                    failures.append(f"{what}: a rank tick that is not a whole rank: {s!r}")
        if fig["chart"] == "heatmap":
            if "bytes per cell" not in shown:
                failures.append(f"{what}: no colour scale (no 'bytes per cell' legend)")
            elif not any(re.search(r"\d (B|KiB|MiB|GiB|TiB)$", s) for s in shown):
                failures.append(f"{what}: the colour scale has no tick in bytes")
            if fig["fills"] < 12:
                failures.append(f"{what}: the colour scale has only {fig['fills']} colours")
    check_timespans(name, figures, data, failures)
    print(f"  {name}: {len(figures)} charts, {labels_checked} categories checked")
    return len(figures)


def check_timespans(name, figures, data, failures):
    """The first-to-last access charts draw every span of the report's
    JSON (a read or write bar each, beside two legend swatches a chart),
    and the shared files' chart labels its two rows."""
    t = data.get("timespans")
    figs = [f for f in figures if f["chart"] == "timespans"]
    if not t:
        if figs:
            failures.append(f"{name}: timespan charts without timespans in the JSON")
        return
    want = len(t["independent"]) + len(t["shared"])
    drawn = sum(f["spans"] for f in figs) - 2 * len(figs)
    if drawn != want:
        failures.append(f"{name}: timespans: {drawn} bars drawn, the JSON has {want} spans")
    # A row label each, beside the legend's.
    def labelled(f):
        said = [x["s"].strip() for x in f["texts"]]
        return said.count("read") >= 2 and said.count("write") >= 2

    if t["shared"] and not any(labelled(f) for f in figs):
        failures.append(f"{name}: timespans: the shared files' rows are not labelled read and write")


def self_test(out_dir):
    """A page with the old faults: a category left unlabelled, two labels on
    top of each other, a raw byte count, a half rank, a heat map without a
    colour scale. Each must be caught."""
    bad = os.path.join(out_dir, "bad_charts.html")
    with open(bad, "w") as f:
        f.write("""<html><body>
<figure class="chart" data-chart="pattern" data-module="POSIX"><svg width="300" height="100">
<text x="10" y="20">total</text><text x="12" y="22">sequential</text></svg></figure>
<figure class="chart" data-chart="heatmap" data-name="HEATMAP POSIX"><svg width="300" height="100">
<text x="10" y="20">40000000.0</text><text x="10" y="60">0.5</text></svg></figure>
<figure class="chart" data-chart="timespans"><svg width="300" height="100"><text x="10" y="20">0</text>
<rect x="0" y="0" width="5" height="5" fill="#1F77B4"/><rect x="9" y="0" width="5" height="5" fill="#FF7F0E"/>
<rect x="20" y="30" width="50" height="5" fill="#1F77B4"/></svg></figure>
<table style="width:3000px"><tr><td>x</td></tr></table>
</body></html>""")
    caught = []
    spans = {"independent": [[0, 1.0, 2.0, False], [0, 3.0, 4.0, True]], "shared": [[1.0, 2.0, False]]}
    check_page(bad, {"module_stats": [{"module": "POSIX"}], "io_cost": [], "timespans": spans}, out_dir, caught)
    kinds = ["'consecutive' has no label", "labels overlap", "raw number", "not a whole rank", "no colour scale",
             "scrolls sideways", "1 bars drawn, the JSON has 3 spans", "not labelled read and write"]
    missed = [k for k in kinds if not any(k in c for c in caught)]
    if missed:
        print(f"self-test: the checker missed: {missed}")
        sys.exit(1)
    print(f"  self-test: a page with the old faults gives {len(caught)} failures, as it should")


def main():
    args = sys.argv[1:]
    out_dir = args.pop(0)
    os.makedirs(out_dir, exist_ok=True)
    self_test(out_dir)
    failures, charts, pages = [], 0, 0
    while args:
        a = args.pop(0)
        study = a == "--study"
        if study:
            a = args.pop(0)
        page, data = a.rsplit(":", 1)
        with open(data) as f:
            d = json.load(f)
        try:
            charts += check_page(page, d, out_dir, failures, is_study=study)
        except Exception as e:
            failures.append(f"{os.path.basename(page)}: {type(e).__name__}: {e}")
        pages += 1
    print(f"charts in Chromium: {pages} pages, {charts} charts, {len(failures)} failures")
    for f in failures:
        print("  " + f)
    sys.exit(1 if failures or not pages else 0)


if __name__ == "__main__":
    main()
