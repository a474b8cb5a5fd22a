"""What a job's MPI communication must add up to, from PyDarshan 3.5.0's
own reading of its AutoPerf APMPI records (the wheel's C library decodes
them; one process per log, as C's reader tells the header from a rank's
record by a flag static to the process). The oracle of darshan-summary's
MPI communication section (tests/report/check_mpi_comm.py) and of
darshan-ingest's mpi_comm and mpi_ops tables
(tests/facility/check_mpi_comm_db.py).
"""
import json
import math
import subprocess
import sys

PYDARSHAN = r"""
import json, sys, darshan
r = darshan.DarshanReport(sys.argv[1], read_all=True)
recs = r.records["APMPI"]._records if "APMPI" in r.records else []
plain = lambda d: {k: (float(v) if isinstance(v, float) or "TIME" in k else int(v)) for k, v in d.items()}
out = [{"header": True, "sync_flag": int(x["sync_flag"]), "variance": float(x["variance_total_mpitime"])}
       if "magic" in x else
       {"rank": int(x["rank"]), "node": x["node_name"], "counters": plain(x["all_counters"])} for x in recs]
json.dump({"run_time": float(r.metadata["job"]["run_time"]), "records": out}, sys.stdout)
"""


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _ops(ranks):
    ops = {}
    for x in ranks:
        for k, v in x["counters"].items():
            if k.endswith("_CALL_COUNT"):
                op = k[: -len("_CALL_COUNT")]
                o = ops.setdefault(op, {"calls": 0, "bytes": None, "seconds": 0.0, "max": 0.0})
                o["calls"] += v
                if op + "_TOTAL_BYTES" in x["counters"]:
                    o["bytes"] = (o["bytes"] or 0) + x["counters"][op + "_TOTAL_BYTES"]
                o["seconds"] += x["counters"][op + "_TOTAL_TIME"]
                o["max"] = max(o["max"], x["counters"][op + "_MAX_TIME"])
    return ops


def expected(log):
    """The job's figures, or None when PyDarshan reads no rank's record.
    `ops`: every operation called, most time first, as (name, calls,
    bytes or None, seconds, share of all ranks' communication seconds,
    longest call)."""
    p = subprocess.run([sys.executable, "-c", PYDARSHAN, log], capture_output=True, text=True, timeout=600, check=True)
    d = json.loads(p.stdout)
    head = next(x for x in d["records"] if x.get("header"))
    ranks = [x for x in d["records"] if not x.get("header")]
    if not ranks:
        return None
    comm = [(x["counters"]["MPI_TOTAL_COMM_TIME"], x["rank"]) for x in ranks]
    total = sum(c for c, _ in comm)
    ops = _ops(ranks)
    called = sorted(((o["seconds"], n) for n, o in ops.items() if o["calls"] > 0), key=lambda t: -t[0])
    return {
        "ranks": len(ranks), "nodes": len({x["node"] for x in ranks}), "total": total, "mean": total / len(ranks),
        "least": min(comm, key=lambda t: t[0]), "most": max(comm, key=lambda t: t[0]),
        "variance": head["variance"], "sync_measured": head["sync_flag"] != 0,
        "sync": sum(x["counters"]["MPI_TOTAL_COMM_SYNC_TIME"] for x in ranks),
        "run_time": d["run_time"], "run_share": total / len(ranks) / d["run_time"],
        "ops": [(n, ops[n]["calls"], ops[n]["bytes"], ops[n]["seconds"], ops[n]["seconds"] / total, ops[n]["max"])
                for _, n in called],
    }
