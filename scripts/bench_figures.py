"""The benchmark's figures, machine-readable (issue 51): each bench script
records what it measured here, one JSON object per line in
$BENCH_FIGURES (default target/bench/figures.jsonl); scripts/bench-gate.py
then compares the run with the previous one (docs/bench-figures.json).

A figure: key (stable across runs), value, unit, the run's spread (lo, hi:
the smallest and largest of the repeats the value is the median of) and
which way is better. From a shell: python3 scripts/bench_figures.py KEY
VALUE UNIT [LO HI [better]].
"""
import json
import os
import sys

PATH = os.environ.get("BENCH_FIGURES", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target",
                                                    "bench", "figures.jsonl"))


def record(key, value, unit, lo=None, hi=None, better="lower"):
    os.makedirs(os.path.dirname(os.path.abspath(PATH)), exist_ok=True)
    fig = {"key": key, "value": float(value), "unit": unit, "better": better}
    if lo is not None and hi is not None:
        fig["lo"], fig["hi"] = float(lo), float(hi)
    with open(PATH, "a") as f:
        f.write(json.dumps(fig) + "\n")


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) not in (3, 5, 6):
        sys.exit("usage: bench_figures.py KEY VALUE UNIT [LO HI [better]]")
    record(a[0], a[1], a[2], *(a[3:5] if len(a) >= 5 else (None, None)), *(a[5:6] or ["lower"]))
