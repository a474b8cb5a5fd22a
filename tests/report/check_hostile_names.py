"""Hostile names through darshan-summary and darshan-study, checked in
headless Chromium through the DOM.

A C program compiled here (tests/programs/hostile_names.c) creates files
named as markup and as terminal escapes, and runs from an executable whose
name holds markup. Its log's report, and the study page of a database
holding the log, must show every name as text and gain no element: no
element with an injected id, no script, no event-handler attribute, no
second style sheet, no image, no form, no meta refresh. <STDOUT> and
<STDERR> must show as names (they showed empty when names went in raw).

Usage: check_hostile_names.py OUT_DIR      (exits 1 on any failure)
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_html_in_chromium as chromium  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# DARSHAN_BIN: another build's tools (to check that this test fails on a build
# that does not escape).
BIN = os.environ.get("DARSHAN_BIN", os.path.join(ROOT, "target", "release"))
EXE_NAME = "p<b id=inj0>q"
# The names hostile_names.c makes, as they must read in a page.
NAMES = [
    "<script>alert(1)</script>.txt",
    '"><svg id="inj2" onload=alert(2)>',
    'a&amp;b<b id="inj3">bold</b>',
    "</style><script>x</script>",
    '<img id="inj5" src=x onerror=alert(5)>.dat',
    'stdio<i id="inj9">it</i>',
    "<STDOUT>",
    "<STDERR>",
]

# What a page must not have gained, counted in the page itself.
PROBE = """JSON.stringify({
  injected: document.querySelectorAll('[id^=inj]').length,
  scripts: document.querySelectorAll('script').length,
  handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
  styles: document.querySelectorAll('style').length,
  images: document.querySelectorAll('img').length,
  forms: document.querySelectorAll('form, input, iframe, object, embed').length,
  refresh: document.querySelectorAll('meta[http-equiv=refresh i]').length,
  title: document.title,
  text: document.body.innerText,
})"""


def run(cmd, **kw):
    print("  $", " ".join(cmd))
    return subprocess.run(cmd, check=True, timeout=300, **kw)


def inspect(page, out_dir, failures):
    """Load `page` in Chromium; return what the probe found."""
    profile = os.path.join(out_dir, "profile-" + os.path.basename(page))
    shutil.rmtree(profile, ignore_errors=True)
    os.makedirs(profile)
    proc, ws = chromium.start_chromium(profile)
    try:
        p = chromium.Page(ws)
        p.call("Page.enable")
        p.call("Runtime.enable")
        p.call("Page.navigate", url="file://" + os.path.abspath(page))
        try:
            p.wait_for("Page.loadEventFired", timeout=30)
        except RuntimeError:
            # An alert() from an injected handler blocks the page's load.
            dialogs = [e for e in p.events if e.get("method") == "Page.javascriptDialogOpening"]
            failures.append(f"{os.path.basename(page)}: did not load ({len(dialogs)} script dialogs open)")
            return {"injected": -1, "scripts": -1, "handlers": -1, "styles": -1, "images": -1, "forms": -1,
                    "refresh": -1, "title": "", "text": ""}
        p.drain(0.5)
        for e in p.events:
            if e.get("method") == "Runtime.consoleAPICalled" or e.get("method") == "Runtime.exceptionThrown":
                failures.append(f"{os.path.basename(page)}: the page ran something: {e}")
        found = json.loads(p.call("Runtime.evaluate", expression=PROBE, returnByValue=True)["result"]["value"])
        shot = p.call("Page.captureScreenshot", format="png")["data"]
        import base64
        with open(os.path.join(out_dir, os.path.basename(page).replace(".html", ".png")), "wb") as f:
            f.write(base64.b64decode(shot))
        try:
            p.call("Browser.close")
        except Exception:
            pass
        return found
    finally:
        try:
            os.killpg(proc.pid, 9)
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)
        shutil.rmtree(profile, ignore_errors=True)


def judge(name, found, must_show, failures):
    for k in ["injected", "scripts", "handlers", "images", "forms", "refresh"]:
        if found[k]:
            failures.append(f"{name}: {found[k]} {k} (markup from a name became an element)")
    if found["styles"] != 1:
        failures.append(f"{name}: {found['styles']} style elements (the page has one)")
    for s in must_show:
        if s not in found["text"] and s not in found["title"]:
            failures.append(f"{name}: {s!r} is not shown as text")
    print(f"  {name}: {found['injected']} injected, {found['scripts']} scripts, {found['handlers']} handlers, "
          f"title {found['title']!r}")


def self_test(out_dir):
    """The probe must be able to fail: a page with a name put in raw."""
    bad = os.path.join(out_dir, "raw_names.html")
    with open(bad, "w") as f:
        # (no alert(): a dialog would hold the page's load)
        f.write("<html><head><style></style><title>t</title></head><body><td>" + NAMES[2]
                + '<img id="inj5" src=x>' + "</td></body></html>")
    caught = []
    judge("self-test", inspect(bad, out_dir, caught), [NAMES[2]], caught)
    if not any("injected" in c for c in caught) or not any("not shown" in c for c in caught):
        print(f"self-test: the probe missed raw names: {caught}")
        sys.exit(1)
    print(f"  self-test: a page with raw names gives {len(caught)} failures, as it should")


def main():
    out = os.path.abspath(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    data, logs = os.path.join(out, "data"), os.path.join(out, "logs")
    os.makedirs(data)
    os.makedirs(logs)
    self_test(out)
    exe = os.path.join(out, EXE_NAME)
    run(["cc", "-O2", "-o", exe, os.path.join(ROOT, "tests", "programs", "hostile_names.c")])
    env = dict(os.environ, LD_PRELOAD=os.path.join(BIN, "libdarshan.so"), DARSHAN_ENABLE_NONMPI="1",
               DARSHAN_LOGPATH=logs)
    with open(os.devnull) as null:
        run([exe, data], env=env, stdin=null, stdout=subprocess.DEVNULL)
    log = os.path.join(logs, os.listdir(logs)[0])
    report = os.path.join(out, "report.html")
    run([os.path.join(BIN, "darshan-summary"), "--top", "50", log, "-o", report])
    db = os.path.join(out, "names.db")
    run([os.path.join(BIN, "darshan-ingest"), "-q", "--db", db, log])
    study = os.path.join(out, "study.html")
    run([os.path.join(BIN, "darshan-study"), "--db", db, "-o", study])
    failures = []
    judge("report", inspect(report, out, failures), NAMES + ["p<b"], failures)
    # The study shows the program by name (its base name, up to the space).
    judge("study", inspect(study, out, failures), ["p<b"], failures)
    print(f"hostile names: 2 pages, {len(failures)} failures")
    for f in failures:
        print("  " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
