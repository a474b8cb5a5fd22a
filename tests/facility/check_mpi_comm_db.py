"""darshan-ingest's mpi_comm and mpi_ops tables against PyDarshan's reading
of the same APMPI records (tests/pydarshan/apmpi_expect.py): per log, the
ranks, nodes, communication seconds (sum, mean, least and most rank),
variance, sync time, and every operation called with its calls, bytes,
seconds and longest call; a log without APMPI records has no rows.

Usage: check_mpi_comm_db.py DB LOG...   (the logs ingested into DB)
Exits 1 on any failure.
"""
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pydarshan"))
from apmpi_expect import close, expected  # noqa: E402

db, logs = sys.argv[1], sys.argv[2:]
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def log_id(path):
    row = con.execute("SELECT log_id FROM logs WHERE path = ?", (os.path.abspath(path),)).fetchone()
    if row is None:
        row = con.execute("SELECT log_id FROM logs WHERE path LIKE ?", ("%/" + os.path.basename(path),)).fetchone()
    return row[0] if row else None


def check(b, comm, ops, e):
    (ranks, nodes, total, mean, lr, ls, mr, ms, var, sync_m, sync_s, called) = comm
    for what, got, want in [("ranks", ranks, e["ranks"]), ("nodes", nodes, e["nodes"]),
                            ("least rank", lr, e["least"][1]), ("most rank", mr, e["most"][1]),
                            ("sync measured", bool(sync_m), e["sync_measured"]),
                            ("operations called", called, len(e["ops"]))]:
        if got != want:
            fail(f"{b}: {what} {got!r}, PyDarshan's records say {want!r}")
    for what, got, want in [("comm seconds", total, e["total"]), ("mean", mean, e["mean"]),
                            ("least", ls, e["least"][0]), ("most", ms, e["most"][0]),
                            ("variance", var, e["variance"]), ("sync seconds", sync_s, e["sync"])]:
        if not close(got, want):
            fail(f"{b}: {what} {got!r}, PyDarshan's records say {want!r}")
    want = {o[0]: o for o in e["ops"]}
    got = {o[0]: o for o in ops}
    if sorted(got) != sorted(want):
        return fail(f"{b}: operations {sorted(got)}, PyDarshan's records say {sorted(want)}")
    for n, (_, calls, nbytes, secs, longest) in got.items():
        w = want[n]
        if (calls, nbytes) != (w[1], w[2]) or not close(secs, w[3]) or not close(longest, w[5]):
            fail(f"{b}: {n} {(calls, nbytes, secs, longest)}, PyDarshan's records say {(w[1], w[2], w[3], w[5])}")


checked = without = 0
for log in logs:
    b = os.path.basename(log)
    lid = log_id(log)
    if lid is None:
        fail(f"{b}: not in the database")
        continue
    comm = con.execute("SELECT ranks, nodes, comm_seconds, mean_seconds, least_rank, least_seconds, most_rank, "
                       "most_seconds, variance, sync_measured, sync_seconds, operations_called "
                       "FROM mpi_comm WHERE log_id = ?", (lid,)).fetchall()
    ops = con.execute("SELECT operation, calls, bytes, seconds, max_call_seconds FROM mpi_ops WHERE log_id = ?",
                      (lid,)).fetchall()
    has_apmpi = con.execute("SELECT COUNT(*) FROM modules WHERE log_id = ? AND module = 'APMPI'", (lid,)).fetchone()[0]
    if not has_apmpi:
        without += 1
        if comm or ops:
            fail(f"{b}: no APMPI records, but {len(comm)} mpi_comm and {len(ops)} mpi_ops rows")
        continue
    e = expected(log)
    if e is None:
        if comm or ops:
            fail(f"{b}: PyDarshan reads no rank's record, the database has {len(comm)} mpi_comm rows")
        continue
    if len(comm) != 1:
        fail(f"{b}: {len(comm)} mpi_comm rows, not 1")
        continue
    check(b, comm[0], ops, e)
    checked += 1
if checked < 10 or without < 10:
    fail(f"only {checked} logs with APMPI records and {without} without")
print(f"mpi_comm database: {checked} logs with APMPI records against PyDarshan, {without} without;",
      "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
