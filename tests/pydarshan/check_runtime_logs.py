"""PyDarshan 3.5.0 as an independent reader of the logs our runtime
writes: every log under <dir> must open in PyDarshan, and so must every
crash-safe file our darshan-parser reads (a killed process's: only its
counts are compared, its times being clock ticks that only our reader
converts), every POSIX,
STDIO, MPI-IO, BG/Q, H5F, H5D, PNETCDF_FILE and PNETCDF_VAR counter (and
the variables' and datasets' file record ids) PyDarshan decodes must
equal what our darshan-parser prints,
so must every LUSTRE record's components, pool names and OST ids, every DXT segment (offset, length, start,
end, against our darshan-dxt-parser), and each heatmap's bins must add up to the bytes its module's records say
were read and written.

A log with AutoPerf's APMPI records (DARSHAN_MOD_ENABLE=APMPI) is read in
a process of its own (this script on that one file): PyDarshan's reader,
C's darshan-util, tells the header from a rank's record by a flag static
to the process, so it misreads every APMPI log after the first it reads.
There the header and every rank's record must be read.

Usage: check_runtime_logs.py <darshan-parser binary> <dir or one log>
"""
import glob
import os
import subprocess
import sys

import darshan

parser, top = sys.argv[1:3]
dxt_parser = os.path.join(os.path.dirname(parser), "darshan-dxt-parser")
# Regular files only: the privileged-use tests plant FIFOs and links named
# like logs (a FIFO would block this reader for ever).
single = os.path.isfile(top)
logs = [top] if single else sorted(
    p for p in glob.glob(f"{top}/**/*.darshan", recursive=True)
    if os.path.isfile(p) and not os.path.islink(p)
)
if not logs:
    sys.exit(f"no logs under {top}")

# PyDarshan decodes BG/Q records but has no names for their counters
# (its counter name lookup skips the module): the log format's, in order.
BGQ_NAMES = {
    "counters": ["BGQ_CSJOBID", "BGQ_NNODES", "BGQ_RANKSPERNODE", "BGQ_DDRPERNODE", "BGQ_INODES", "BGQ_ANODES",
                 "BGQ_BNODES", "BGQ_CNODES", "BGQ_DNODES", "BGQ_ENODES", "BGQ_TORUSENABLED"],
    "fcounters": ["BGQ_F_TIMESTAMP"],
}

# The modules Darshan 3.5.0 names (ids 0-17).
KNOWN = {"NULL", "POSIX", "MPI-IO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "BG/Q", "LUSTRE", "STDIO",
         "DXT_POSIX", "DXT_MPIIO", "MDHIM", "APXC", "APMPI", "HEATMAP", "DFS", "DAOS"}

# Modules whose counters are compared value by value.
COUNTED = ("POSIX", "STDIO", "MPI-IO", "BG/Q", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR")

failures = 0
compared = 0
with_meta = 0


class c_stderr_captured:
    """File descriptor 2 into a temporary file while open (the C library
    under PyDarshan writes there directly, not through sys.stderr)."""

    def __enter__(self):
        import tempfile
        sys.stderr.flush()
        self.tmp = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        return False

    def text(self):
        self.tmp.seek(0)
        return self.tmp.read().decode(errors="replace")


skipped = 0
headerless = 0
skipped_dxt = 0
crash_safe = 0
for log in logs:
    # A crash-safe file holds clock ticks that only our reader converts
    # (their merged logs are checked like any other): its counts only.
    raw = "_mmap-log-" in os.path.basename(log)
    run = subprocess.run([parser, "--show-incomplete", log], capture_output=True, text=True)
    if raw and run.returncode != 0:
        # The one unreadable crash-safe file the runtime may leave: its
        # process was killed while it made it, before the header, which is
        # written last (the crash tests kill processes there on purpose).
        # Any other a reader refuses lost what it claimed to hold: a fault,
        # and one that a skipped count hid once.
        skipped += 1
        if "no header was ever written" in run.stderr:
            headerless += 1
        else:
            failures += 1
            print(f"{log}: a crash-safe file our reader refuses: {run.stderr.strip()}")
        continue
    crash_safe += raw
    text = run.stdout
    # The NULL template module (enabled only on request) has no reader in
    # darshan-util or PyDarshan: DarshanReport(read_all=True) raises
    # KeyError 'NULL' on such a log, as it would on one from C Darshan.
    if "# NULL module:" in text:
        skipped += 1
        continue
    # Keyed by record and occurrence: a merge of several jobs' files (as
    # darshan-util's merge makes it) can hold two records of one rank and
    # file; both readers give them in the log's order.
    ours, occurrence = {}, {}
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) >= 6 and f[0] in COUNTED + ("LUSTRE", "HEATMAP"):
            key = (f[0], int(f[1]), int(f[2]), f[3])
            n = occurrence[key] = occurrence.get(key, -1) + 1
            ours[key + (n,)] = f[4]
    # PyDarshan keeps one heat map per rank and source: where a log holds
    # two (that merge again), its bins cannot add up to the records'.
    heatmaps_whole = not any(k[0] == "HEATMAP" and n > 0 for k, n in occurrence.items())
    # PyDarshan's C reader prints "Error: Invalid DXT POSIX module version
    # number (got 2)" on stderr for the thread-id DXT layout it refuses
    # (counted below as not compared); that line, and only it, is kept
    # out of the test's output, where it read like a failure.
    # A log with POSIX_META (our module id 63, on by default): its region
    # is named by the extension trailer, so PyDarshan (C's darshan-util
    # underneath) must open it and list none of it; the rest is compared
    # below like any log's. Had the module gone into the header's map,
    # darshan_log_get_modules would name it NULL and PyDarshan would raise.
    if "# POSIX_META module:" in text:
        with_meta += 1
    if "# APMPI module:" in text and not single:
        one = subprocess.run([sys.executable, __file__, parser, log], capture_output=True, text=True)
        said = one.stdout.splitlines()
        print("\n".join(said[:-1]), end="\n" if len(said) > 1 else "")
        failures += one.returncode != 0
        compared += int(said[-1].split(" values compared")[0].rsplit(" ", 1)[1]) if said else 0
        continue
    try:
        with c_stderr_captured() as err:
            rep = darshan.DarshanReport(log, read_all=True)
    except Exception as e:  # one line for the log PyDarshan cannot open, then the next
        failures += 1
        print(f"{log}: PyDarshan cannot open it: {type(e).__name__}: {e}")
        continue
    unknown = [m for m in rep.modules if m not in KNOWN]
    if unknown:
        failures += 1
        print(f"{log}: PyDarshan lists modules it cannot name: {unknown}")
    for line in err.text().splitlines():
        # A crash-safe file names DXT's traces (kept in a layout of ours)
        # outside the header: PyDarshan must not even see them there.
        if raw:
            failures += 1
        if raw or not line.startswith("Error: Invalid DXT"):
            print(f"{log}: PyDarshan said: {line}")
    for mod in COUNTED:
        if mod not in rep.records:
            continue
        seen_records = {}
        for r in rep.records[mod].to_numpy():
            n = seen_records[(int(r["rank"]), int(r["id"]))] = seen_records.get((int(r["rank"]), int(r["id"])), -1) + 1
            if "file_rec_id" in r:
                key = (mod, int(r["rank"]), int(r["id"]), f"{mod}_FILE_REC_ID", n)
                compared += 1
                if ours.get(key) is None or int(ours[key]) % 2**64 != int(r["file_rec_id"]) % 2**64:
                    failures += 1
                    print(f"{log}: {key} PyDarshan {r['file_rec_id']} parser {ours.get(key)}")
            for kind in ("counters",) if raw else ("counters", "fcounters"):
                names = rep.counters[mod][kind] or (BGQ_NAMES[kind] if mod == "BG/Q" else [])
                for name, v in zip(names, r[kind]):
                    key = (mod, int(r["rank"]), int(r["id"]), name, n)
                    mine = ours.get(key)
                    compared += 1
                    if mine is None:
                        failures += 1
                        print(f"{log}: {key} missing from darshan-parser output")
                    # darshan-parser prints POSIX_RENAMED_FROM (a record id)
                    # unsigned; PyDarshan holds it as int64.
                    elif kind == "counters" and int(mine) % 2**64 != int(v) % 2**64:
                        failures += 1
                        print(f"{log}: {key} PyDarshan {v} parser {mine}")
                    elif kind == "fcounters" and abs(float(mine) - float(v)) > 1e-6 + 1e-6 * abs(float(v)):
                        failures += 1
                        print(f"{log}: {key} PyDarshan {v} parser {mine}")

    # LUSTRE: PyDarshan's components against darshan-parser's derived
    # names (pattern and flags are printed as words: not compared here).
    lustre = rep.records.get("LUSTRE", [])
    for k in range(len(lustre)):
        r = lustre[k]
        rank, rid = int(r["rank"]), int(r["id"])
        want = {"LUSTRE_NUM_COMPONENTS": str(len(r["components"])),
                "LUSTRE_NUM_STRIPES": str(sum(len(c["ost_ids"]) for c in r["components"]))}
        for n, c in enumerate(r["components"], 1):
            for idx, name in ((0, "STRIPE_SIZE"), (1, "STRIPE_COUNT"), (4, "EXT_START"), (5, "EXT_END"), (6, "MIRROR_ID")):
                want[f"LUSTRE_COMP{n}_{name}"] = str(int(c["counters"][idx]))
            want[f"LUSTRE_COMP{n}_POOL_NAME"] = c["pool_name"] or "N/A"
            for j, ost in enumerate(c["ost_ids"]):
                want[f"LUSTRE_COMP{n}_OST_ID_{j}"] = str(int(ost))
        for name, v in want.items():
            compared += 1
            mine = ours.get(("LUSTRE", rank, rid, name, 0))
            if mine != v:
                failures += 1
                print(f"{log}: LUSTRE {rid} {name}: PyDarshan {v} parser {mine}")

    # DXT: PyDarshan 3.5.0 reads DXT_POSIX v1 / DXT_MPIIO v2 (our default;
    # the thread-id layout, on request, is refused by it, as C's is).
    dxt_mods = [m for m in ("DXT_POSIX", "DXT_MPIIO") if m in rep.records and not raw]
    thread_ids = "# DXT_POSIX module:" in text and "ver=2" in text.split("# DXT_POSIX module:")[1].split("\n")[0] \
        or "# DXT_MPIIO module:" in text and "ver=3" in text.split("# DXT_MPIIO module:")[1].split("\n")[0]
    if thread_ids:
        skipped_dxt += 1
    elif dxt_mods:
        # darshan-dxt-parser lines: module rank op index offset length start end [tid]
        mine = {}
        fid = None
        for line in subprocess.run([dxt_parser, "--show-incomplete", log], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("# DXT, file_id:"):
                fid = int(line.split(":")[1].split(",")[0])
            f = line.split()
            if len(f) >= 8 and f[0] in ("X_POSIX", "X_MPIIO"):
                mine[(f[0], fid, int(f[1]), f[2], int(f[3]))] = (int(f[4]), int(f[5]), float(f[6]), float(f[7]))
        seen = 0
        for mod in dxt_mods:
            tag = "X_POSIX" if mod == "DXT_POSIX" else "X_MPIIO"
            for r in rep.records[mod].to_df():
                for op in ("write", "read"):
                    df = r[f"{op}_segments"]
                    for i, seg in enumerate(df.itertuples()):
                        seen += 1
                        compared += 1
                        got = mine.get((tag, int(r["id"]), int(r["rank"]), op, i))
                        want = (int(seg.offset), int(seg.length), seg.start_time, seg.end_time)
                        if got is None or got[:2] != want[:2] or abs(got[2] - want[2]) > 6e-5 or abs(got[3] - want[3]) > 6e-5:
                            failures += 1
                            print(f"{log}: {mod} {r['id']} rank {r['rank']} {op} {i}: PyDarshan {want} dxt-parser {got}")
        if seen != len(mine):
            failures += 1
            print(f"{log}: PyDarshan read {seen} DXT segments, darshan-dxt-parser printed {len(mine)}")

    for mod, hm in rep.heatmaps.items() if heatmaps_whole and not raw else ():
        rmod, prefix = {"POSIX": ("POSIX", "POSIX"), "STDIO": ("STDIO", "STDIO"), "MPIIO": ("MPI-IO", "MPIIO")}.get(mod, (None, None))
        if rmod not in rep.records:
            continue
        df = rep.records[rmod].to_df()
        cols = df["counters"]
        # A process SIGKILLed mid-burst (the crash tests' scratch dirs are
        # crash-*) can die between a write's record update and its heat-map
        # bin: the bins may then lag by one access per writer, never lead.
        # Writers: 4 threads or ranks at most on one file in those tests,
        # or one process per record (exit_race's children, each killed at
        # a random moment, each with its own file); an access is at most
        # the most common size.
        killed = "/crash-" in log
        access = int(cols[f"{prefix}_ACCESS1_ACCESS"].max()) if f"{prefix}_ACCESS1_ACCESS" in cols else 0
        writers = max(4, len(df))
        for op, counter in (("read", f"{prefix}_BYTES_READ"), ("write", f"{prefix}_BYTES_WRITTEN")):
            binned = sum(int(sum(v)) for v in hm._data[op].values())
            total = int(cols[counter].sum())
            compared += 1
            lag_ok = killed and total - writers * max(access, 1) <= binned <= total
            if binned != total and not lag_ok:
                failures += 1
                print(f"{log}: heatmap:{mod} {op} bins add up to {binned}, records say {total}")

if single and "APMPI" in rep.modules:
    # The header, then one record per rank (a rank's crash-safe file: its
    # own), each with its calls.
    recs = rep.records["APMPI"]._records if "APMPI" in rep.records else []
    nprocs = rep.metadata["job"]["nprocs"]
    ranks = sorted(r["rank"] for r in recs[1:])
    calls = [sum(v for k, v in r.get("all_counters", {}).items() if k.endswith("_CALL_COUNT")) for r in recs[1:]]
    compared += len(recs)
    whole = ranks == list(range(nprocs)) or (crash_safe and len(ranks) == 1 and 0 <= ranks[0] < nprocs)
    if not recs or recs[0].get("magic") != 0x4150_4d50_49 or not whole or 0 in calls:
        failures += 1
        print(f"{logs[0]}: PyDarshan read APMPI {len(recs)} records, ranks {ranks}, calls {calls} of {nprocs} ranks")
if single:
    pass
elif with_meta == 0:
    failures += 1
    print("no log with POSIX_META was read: the module is on by default, so the runtime tests should have made some")
if crash_safe == 0 and not single:
    failures += 1
    print("no crash-safe file was read: the crash tests should have left some")
print(f"{len(logs) - skipped} runtime logs read by PyDarshan, {crash_safe} of them crash-safe files "
      f"({skipped} skipped: {headerless} killed before their header was written, "
      f"{skipped - headerless} with NULL-module records or refused by our reader (failures, below); "
      f"{with_meta} of them with POSIX_META (in the extension trailer, or a crash-safe file's map), "
      f"DXT of {skipped_dxt} in the thread-id layout PyDarshan 3.5.0 refuses not compared), "
      f"{compared} values compared, {failures} differences")
sys.exit(1 if failures else 0)
