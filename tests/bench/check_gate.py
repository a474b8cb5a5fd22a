"""The benchmark gate marks what moved beyond the run-to-run spread and
nothing else (scripts/bench-gate.py): a previous run with three figures,
this run with one worse beyond its spread, one better, one within; the
file is then rewritten with this run's figures, machine and date, keeping
a figure this run did not measure.

usage: check_gate.py WORKDIR
"""
import json
import os
import subprocess
import sys

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
prev = os.path.join(work, "prev.json")
with open(prev, "w") as f:
    json.dump({"date": "2026-11-01 00:00 UTC", "commit": "abc", "figures": {
        "a.worse": {"value": 100, "lo": 95, "hi": 105, "unit": "us", "better": "lower"},
        "b.better": {"value": 100, "lo": 95, "hi": 105, "unit": "us", "better": "lower"},
        "c.same": {"value": 100, "lo": 90, "hi": 110, "unit": "us", "better": "lower"},
        "d.kept": {"value": 7, "unit": "ms", "better": "lower"},
    }}, f)
run = os.path.join(work, "run.jsonl")
with open(run, "w") as f:
    for key, v, lo, hi in (("a.worse", 120, 118, 122), ("b.better", 80, 79, 81), ("c.same", 104, 100, 108)):
        f.write(json.dumps({"key": key, "value": v, "lo": lo, "hi": hi, "unit": "us", "better": "lower"}) + "\n")
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = subprocess.run([sys.executable, os.path.join(root, "scripts/bench-gate.py"), run, prev], capture_output=True,
                     text=True, check=True, timeout=60).stdout
print(out)
marks = {l.split()[0]: l.split()[-1] for l in out.splitlines() if l.startswith(("a.", "b.", "c."))}
failures = []
if marks.get("a.worse") != "WORSE":
    failures.append(f"a.worse marked {marks.get('a.worse')!r}")
if marks.get("b.better") != "better":
    failures.append(f"b.better marked {marks.get('b.better')!r}")
if marks.get("c.same") in ("WORSE", "better"):
    failures.append(f"c.same marked {marks.get('c.same')!r}")
with open(prev) as f:
    now = json.load(f)
if now["figures"]["a.worse"]["value"] != 120 or now["figures"]["d.kept"]["value"] != 7:
    failures.append(f"rewritten file: {now['figures']}")
if not now.get("machine", {}).get("cores") or now["date"].startswith("2026-11-01"):
    failures.append(f"machine and date: {now.get('machine')} {now.get('date')}")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
