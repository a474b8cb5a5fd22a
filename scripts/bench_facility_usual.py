"""The usual pipeline's script half: read `darshan-parser --total` output
of many logs (concatenated on stdin), build one row per job with its
totals, and compute two of the study's tables from it (jobs and
core-hours by size; top producers by user and application), as centres do
by hand. Prints how many jobs it read."""
import collections
import sys

jobs = []
job = None
for line in sys.stdin:
    if line.startswith("# darshan log version:"):
        job = {"totals": {}}
        jobs.append(job)
    elif job is None:
        continue
    elif line.startswith("# exe: "):
        job["exe"] = line[7:].strip()
    elif line.startswith("# nprocs: "):
        job["nprocs"] = int(line[10:])
    elif line.startswith("# run time: "):
        job["run_time"] = float(line[12:])
    elif line.startswith("total_"):
        k, v = line[6:].split(": ")
        job["totals"][k] = float(v)

by_size = collections.defaultdict(lambda: [0, 0.0])
producers = collections.defaultdict(float)
for j in jobs:
    n = j.get("nprocs", 0)
    size = 1 if n <= 1 else 2 if n <= 16 else 3 if n <= 128 else 4 if n <= 1024 else 5 if n <= 8192 else 6
    by_size[size][0] += 1
    by_size[size][1] += n * j.get("run_time", 0.0) / 3600
    app = j.get("exe", "").split(" ")[0].rsplit("/", 1)[-1]
    producers[app] += j["totals"].get("POSIX_BYTES_WRITTEN", 0) + j["totals"].get("STDIO_BYTES_WRITTEN", 0)
top = sorted(producers.items(), key=lambda kv: -kv[1])[:10]
print(f"{len(jobs)} jobs; sizes {dict(sorted((k, v[0]) for k, v in by_size.items()))}; top producer {top[0][0] if top else None}")
