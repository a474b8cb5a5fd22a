"""Render darshan-summary's HTML pages in headless Chromium (Debian's) and
check each: not blank (screenshot pixels), every section present, no
request leaves the file, no console error or exception.

Speaks the DevTools protocol over a websocket (websocket-client).
Usage: check_html_in_chromium.py [--sections=ID,ID...] OUT_DIR PAGE.html...
(the sections default to darshan-summary's; darshan-study's page names its own)
Exits 1 on any failure; screenshots go to OUT_DIR.
"""
import base64
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket
from PIL import Image

SECTIONS = ["job", "log", "diagnosis", "io-summary", "cross-module", "data-access-by-category", "files", "metrics"]


class Page:
    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, timeout=60)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        my = self.next_id
        self.ws.settimeout(120)
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def open(self, path):
        """Loads the file at `path` and waits for its load event (not the
        previous page's)."""
        self.events.clear()
        self.call("Page.navigate", url="file://" + os.path.abspath(path))
        self.wait_for("Page.loadEventFired")

    def wait_for(self, method, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            for e in self.events:
                if e.get("method") == method:
                    return e
            self.ws.settimeout(max(0.1, end - time.time()))
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                break
        raise RuntimeError(f"no {method} within {timeout} s")

    def drain(self, seconds):
        end = time.time() + seconds
        self.ws.settimeout(0.2)
        while time.time() < end:
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                pass


def start_chromium(profile):
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    proc = subprocess.Popen(
        [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", "--window-size=1200,1600", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        # Its scratch files (org.chromium.Chromium.*) go in the profile,
        # not /tmp, and its own process group takes its helpers with it.
        env={**os.environ, "TMPDIR": profile}, start_new_session=True)
    port_file = os.path.join(profile, "DevToolsActivePort")
    for _ in range(300):
        if os.path.exists(port_file) and open(port_file).read().strip():
            break
        time.sleep(0.1)
    port = open(port_file).read().split()[0]
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
    page = next(t for t in targets if t["type"] == "page")
    return proc, page["webSocketDebuggerUrl"]


class chromium_page:
    """A headless Chromium with one page, its profile under `out_dir` (a
    killed run leaves nothing outside the build tree); closed, its process
    group killed and its profile removed on exit."""

    def __init__(self, out_dir):
        self.out_dir = out_dir

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=self.out_dir)
        self.proc, ws_url = start_chromium(self.profile)
        self.page = None
        self.page = Page(ws_url)
        return self.page

    def __exit__(self, *exc):
        try:
            self.page.call("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)
        time.sleep(0.2)
        shutil.rmtree(self.profile, ignore_errors=True)
        return False


def check(page_path, out_dir, failures):
    name = os.path.basename(page_path)
    with chromium_page(out_dir) as p:
        for domain in ["Page", "Runtime", "Network", "Log"]:
            p.call(f"{domain}.enable")
        url = "file://" + os.path.abspath(page_path)
        p.call("Page.navigate", url=url)
        p.wait_for("Page.loadEventFired")
        p.drain(1.0)
        for e in p.events:
            m, params = e.get("method"), e.get("params", {})
            if m == "Network.requestWillBeSent":
                req = params["request"]["url"]
                if req != url and not req.startswith("data:"):
                    failures.append(f"{name}: request leaves the file: {req}")
            elif m == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                failures.append(f"{name}: console error: {params.get('args')}")
            elif m == "Runtime.exceptionThrown":
                failures.append(f"{name}: exception: {params.get('exceptionDetails', {}).get('text')}")
            elif m == "Log.entryAdded" and params["entry"]["level"] == "error":
                failures.append(f"{name}: console error: {params['entry'].get('text')}")
        ids = p.call("Runtime.evaluate", expression="JSON.stringify([...document.querySelectorAll('section')].map(s => s.id))",
                     returnByValue=True)["result"]["value"]
        present = json.loads(ids)
        for s in SECTIONS:
            if s not in present:
                failures.append(f"{name}: section {s} missing")
        svgs = p.call("Runtime.evaluate", expression="document.querySelectorAll('svg').length", returnByValue=True)
        height = p.call("Runtime.evaluate", expression="document.body.scrollHeight", returnByValue=True)["result"]["value"]
        p.call("Emulation.setDeviceMetricsOverride", width=1200, height=min(int(height), 6000), deviceScaleFactor=1,
               mobile=False)
        shot = p.call("Page.captureScreenshot", format="png", captureBeyondViewport=True)["data"]
        png = base64.b64decode(shot)
        with open(os.path.join(out_dir, name.replace(".html", ".png")), "wb") as f:
            f.write(png)
        img = Image.open(io.BytesIO(png)).convert("L")
        hist = img.histogram()
        dark = sum(hist[:200]) / max(1, sum(hist))
        if dark < 0.01:
            failures.append(f"{name}: screenshot is blank ({dark:.4f} of pixels not white)")
        print(f"  {name}: sections {len(present)}, svg charts {svgs['result']['value']}, "
              f"{dark * 100:.1f}% ink, {len(png)} byte screenshot")


def self_test(out_dir):
    """The checks must be able to fail: a page that fetches, logs an error
    and lacks the sections is caught on each count."""
    bad = os.path.join(out_dir, "bad_page.html")
    with open(bad, "w") as f:
        f.write('<html><body><img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script></body></html>')
    caught = []
    check(bad, out_dir, caught)
    kinds = [k for k in ["request leaves the file", "console error", f"section {SECTIONS[0]} missing"]
             if not any(k in c for c in caught)]
    if kinds:
        print(f"self-test: the checker missed: {kinds}")
        sys.exit(1)
    print(f"  self-test: a bad page gives {len(caught)} failures, as it should")


def main():
    global SECTIONS
    args = sys.argv[1:]
    if args and args[0].startswith("--sections="):
        SECTIONS = args.pop(0).split("=", 1)[1].split(",")
    out_dir, pages = args[0], args[1:]
    os.makedirs(out_dir, exist_ok=True)
    self_test(out_dir)
    failures = []
    for page in pages:
        try:
            check(page, out_dir, failures)
        except Exception as e:
            failures.append(f"{os.path.basename(page)}: {type(e).__name__}: {e}")
    print(f"Chromium: {len(pages)} pages, {len(failures)} failures")
    for f in failures:
        print("  " + f)
    sys.exit(1 if failures or not pages else 0)


if __name__ == "__main__":
    main()
