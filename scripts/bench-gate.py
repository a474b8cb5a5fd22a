"""The benchmark gate (issue 51): this run's figures (target/bench/
figures.jsonl, from scripts/bench_figures.py) beside the previous run's
(docs/bench-figures.json, in the repository), each change beyond the
run-to-run spread marked, then this run written in its place with the
machine and the date (figures this run did not measure are kept from the
previous one, marked with the run that measured them).

A change is beyond the spread when the medians differ by more than half
the wider of the two runs' ranges (lo..hi), or by more than 10 % where a
figure has no range. Marks: "worse" or "better" by the figure's own
direction. Exit status 0 either way: the gate informs, a person decides
(docs/performance.md keeps the story).

usage: bench-gate.py FIGURES.jsonl PREVIOUS.json
"""
import datetime
import json
import os
import platform
import subprocess
import sys


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {"host": platform.node(), "cpu": model, "cores": os.cpu_count(), "kernel": platform.release()}


def commit():
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def verdict(old, new):
    if old is None:
        return "new"
    spreads = [f["hi"] - f["lo"] for f in (old, new) if "lo" in f and "hi" in f]
    allowed = max(spreads) / 2 if spreads else 0.1 * abs(old["value"])
    d = new["value"] - old["value"]
    if abs(d) <= allowed:
        return ""
    lower_better = new.get("better", "lower") == "lower"
    return "WORSE" if (d > 0) == lower_better else "better"


def show(v, unit):
    return f"{v:,.3g} {unit}" if abs(v) < 100 else f"{v:,.0f} {unit}"


def main():
    run_path, prev_path = sys.argv[1:3]
    figures = {}
    with open(run_path) as f:
        for line in f:
            if line.strip():
                fig = json.loads(line)
                figures[fig.pop("key")] = fig
    prev = {}
    if os.path.exists(prev_path):
        with open(prev_path) as f:
            prev = json.load(f)
    old = prev.get("figures", {})
    now = {"machine": machine(), "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "commit": commit(), "figures": {}}
    print(f"\nBenchmark gate: this run ({now['date']}, {now['commit']}) against "
          f"{prev.get('date', 'no previous run')} ({prev.get('commit', '-')})")
    print(f"{'figure':58} {'previous':>16} {'now':>16}  change")
    for key in sorted(set(figures) | set(old)):
        new, o = figures.get(key), old.get(key)
        if new is None:
            now["figures"][key] = dict(o, measured=o.get("measured", prev.get("date", "")))
            continue
        now["figures"][key] = dict(new, measured=now["date"])
        mark = verdict(o, new)
        before = show(o["value"], o["unit"]) if o else "-"
        print(f"{key:58} {before:>16} {show(new['value'], new['unit']):>16}  {mark}")
    with open(prev_path, "w") as f:
        json.dump(now, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"written: {prev_path}")


main()
