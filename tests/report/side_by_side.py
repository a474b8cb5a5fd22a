"""Our report and PyDarshan's for the same logs, screenshotted side by side
in headless Chromium, for docs/report.md's comparison.

For each log: darshan-summary's page and `python -m darshan summary`'s
(PyDarshan 3.5.0), each rendered at 1,200 px and captured whole
(OUT/<log>.ours.png, OUT/<log>.pydarshan.png), and the two tops joined
into one picture (OUT/<log>.side-by-side.png). What each page holds is
counted through the DOM (sections, charts, tables, findings) into
OUT/side-by-side.json. Fails if either page is blank or lacks charts.

Usage: side_by_side.py OUT DARSHAN_SUMMARY PYTHON LOG...
"""
import base64
import io
import json
import os
import subprocess
import sys
import time

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html_in_chromium import chromium_page  # noqa: E402

COUNT = r"""
JSON.stringify({
  charts: document.querySelectorAll('figure.chart svg, img[src^="data:image"]').length,
  tables: document.querySelectorAll('table').length,
  headings: [...document.querySelectorAll('h2, h3')].map(h => h.textContent.trim()).slice(0, 60),
  findings: document.querySelectorAll('.finding').length,
  height: document.body.scrollHeight
})
"""


def shoot(page_path, png_path, out_dir):
    with chromium_page(out_dir) as p:
        p.call("Page.enable")
        p.call("Emulation.setDeviceMetricsOverride", width=1200, height=1000, deviceScaleFactor=1, mobile=False)
        p.call("Page.navigate", url="file://" + os.path.abspath(page_path))
        p.wait_for("Page.loadEventFired")
        p.drain(1.0)
        facts = json.loads(p.call("Runtime.evaluate", expression=COUNT, returnByValue=True)["result"]["value"])
        height = min(int(facts["height"]), 8000)
        p.call("Emulation.setDeviceMetricsOverride", width=1200, height=height, deviceScaleFactor=1, mobile=False)
        png = base64.b64decode(p.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"])
    with open(png_path, "wb") as f:
        f.write(png)
    img = Image.open(io.BytesIO(png)).convert("L")
    hist = img.histogram()
    facts["ink"] = sum(hist[:200]) / max(1, sum(hist))
    return facts


def main():
    out, summary, python, logs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    os.makedirs(out, exist_ok=True)
    failures, facts = [], {}
    for log in logs:
        name = os.path.basename(log).replace(".darshan", "")
        ours = os.path.join(out, f"{name}.ours.html")
        theirs = os.path.join(out, f"{name}.pydarshan.html")
        t0 = time.time()
        r = subprocess.run([summary, log, "-o", ours], capture_output=True, timeout=300)
        t_ours = time.time() - t0
        t0 = time.time()
        p = subprocess.run([python, "-m", "darshan", "summary", log, "--output", theirs], capture_output=True,
                           timeout=900)
        t_theirs = time.time() - t0
        if r.returncode != 0 or p.returncode != 0 or not os.path.exists(theirs):
            failures.append(f"{name}: a page was not made (ours {r.returncode}, PyDarshan {p.returncode}: "
                            f"{p.stderr.decode(errors='replace').strip().splitlines()[-1:]})")
            continue
        f = {"seconds": {"ours": round(t_ours, 3), "pydarshan": round(t_theirs, 3)}}
        for who, page in (("ours", ours), ("pydarshan", theirs)):
            f[who] = shoot(page, os.path.join(out, f"{name}.{who}.png"), out)
            if f[who]["ink"] < 0.01:
                failures.append(f"{name}: {who} page is blank")
            if f[who]["charts"] == 0:
                failures.append(f"{name}: {who} page has no charts")
        # The two pages' first 2,400 px, side by side.
        a = Image.open(os.path.join(out, f"{name}.ours.png"))
        b = Image.open(os.path.join(out, f"{name}.pydarshan.png"))
        h = min(2400, max(a.height, b.height))
        both = Image.new("RGB", (a.width + b.width + 20, h), "white")
        both.paste(a.crop((0, 0, a.width, min(h, a.height))), (0, 0))
        both.paste(b.crop((0, 0, b.width, min(h, b.height))), (a.width + 20, 0))
        both.save(os.path.join(out, f"{name}.side-by-side.png"))
        facts[name] = f
        print(f"  {name}: ours {f['ours']['charts']} charts, {f['ours']['tables']} tables, "
              f"{f['ours']['findings']} findings in {t_ours:.2f} s; PyDarshan {f['pydarshan']['charts']} charts, "
              f"{f['pydarshan']['tables']} tables in {t_theirs:.2f} s")
    with open(os.path.join(out, "side-by-side.json"), "w") as fh:
        json.dump(facts, fh, indent=1)
    print(f"side by side with PyDarshan: {len(logs)} logs, {len(failures)} failures; pictures in {out}")
    for f in failures:
        print("  " + f)
    sys.exit(1 if failures or not logs else 0)


if __name__ == "__main__":
    main()
