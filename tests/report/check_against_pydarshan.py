"""darshan-summary's figures against PyDarshan's own on the same logs.

For every log: run `darshan-summary --json` and compare with what
PyDarshan 3.5.0 computes for its summary report:
  * accumulate_records (the derived metrics: file categories, bytes, times,
    perf_by_slowest) for POSIX, MPI-IO, STDIO, DFS, DAOS;
  * the I/O cost table (plot_io_cost.get_io_cost_df);
  * operation counts (plot_opcounts.gather_count_data), except POSIX "Mmap",
    which PyDarshan plots as 0 by design ("faulty?") and we show;
  * access-size histograms (the summed SIZE_* counters);
  * common access sizes (plot_common_access_table) as (size, count) sets;
  * HEATMAP bins: bin count, width, per-bin and per-rank sums;
  * bytes and files by file-system root (data_access_by_filesystem);
  * the small requests of P05/P06 (Drishti's buckets up to 1 MiB, less
    those the records' common access sizes show to be of exactly 1 MiB),
    from PyDarshan's POSIX records, where a finding or a held-back rule
    states them.
Usage: check_against_pydarshan.py DARSHAN_SUMMARY LOG...
Exits 1 on any difference; prints what differs.
"""
import json
import math
import subprocess
import sys
import warnings

warnings.filterwarnings("ignore")

import darshan  # noqa: E402
from darshan.backend.cffi_backend import accumulate_records  # noqa: E402
from darshan.experimental.plots import data_access_by_filesystem as dabf  # noqa: E402
from darshan.experimental.plots import plot_common_access_table as pcat  # noqa: E402
import importlib  # noqa: E402
plot_io_cost = importlib.import_module("darshan.experimental.plots.plot_io_cost")  # noqa: E402
plot_opcounts = importlib.import_module("darshan.experimental.plots.plot_opcounts")  # noqa: E402

darshan.enable_experimental()

CATS = ["count", "total_read_volume_bytes", "total_write_volume_bytes", "max_read_volume_bytes",
        "max_write_volume_bytes", "total_max_offset_bytes", "max_offset_bytes"]
OURS_CATS = ["count", "total_read", "total_write", "max_read", "max_write", "total_max_offset", "max_offset"]

diffs = []
compared = 0


def close(a, b):
    a, b = float(a), float(b)
    if a == b:
        return True
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def check(log, what, ours, theirs):
    global compared
    compared += 1
    if not close(ours, theirs):
        diffs.append(f"{log}: {what}: ours {ours} PyDarshan {theirs}")


def derived(log, report, ours, mod):
    st = next((s for s in ours["module_stats"] if s["module"] == mod), None)
    if st is None or st["overview"] is None:
        diffs.append(f"{log}: {mod}: no overview in our report")
        return
    df = report.records[mod].to_df()
    dm = accumulate_records(df, mod, report.metadata["job"]["nprocs"]).derived_metrics
    o = st["overview"]
    for k in ["total_bytes", "unique_io_total_time_by_slowest", "unique_rw_only_time_by_slowest",
              "unique_md_only_time_by_slowest", "unique_io_slowest_rank", "shared_io_total_time_by_slowest",
              "agg_perf_by_slowest", "agg_time_by_slowest"]:
        check(log, f"{mod} {k}", o[k], getattr(dm, k))
    for i in range(7):
        for ck, ok in zip(CATS, OURS_CATS):
            check(log, f"{mod} category {i} {ck}", o["categories"][i][ok], getattr(dm.category_counters[i], ck))


def swap_slip(ours):
    """darshan-util leaves POSIX < v4 fcounters 10-12 (F_META_TIME among
    them) unswapped when it reads a big-endian log; PyDarshan inherits the
    slip, we decode them. Those logs' POSIX meta time is ours alone."""
    posix = next((m for m in ours["modules"] if m["name"] == "POSIX"), None)
    return posix is not None and posix["version"] < 4 and ours["log"]["byte_swapped"]


known = []


# Each cost row's modules, as PyDarshan's plot_io_cost groups them, and
# their counters' prefixes; its wait column is PNETCDF_FILE's alone.
COST_MODULES = {"POSIX": ["POSIX"], "MPIIO": ["MPI-IO"], "STDIO": ["STDIO"], "HDF5": ["H5F", "H5D"],
                "PNETCDF": ["PNETCDF_FILE", "PNETCDF_VAR"], "DFS": ["DFS"], "DAOS": ["DAOS"]}
COST_TIMES = {"Read": "F_READ_TIME", "Write": "F_WRITE_TIME", "Meta": "F_META_TIME", "Wait": "F_WAIT_TIME"}


def cost_times(report, interface, col):
    """Every record's value of the row's time, as PyDarshan reads them."""
    values = []
    for mod in COST_MODULES.get(interface, []):
        if mod not in report.records or (col == "Wait" and mod != "PNETCDF_FILE"):
            continue
        df = report.records[mod].to_df()["fcounters"]
        name = f"{mod.replace('-', '')}_{COST_TIMES[col]}"
        if name in df:
            values.extend(float(v) for v in df[name])
    return values


def unrecorded_times(log, report, interface, col, ours, theirs):
    """darshan-util writes -1 for the times an older module version did not
    keep (PNETCDF_FILE before version 3: F_META_TIME, F_WAIT_TIME); PyDarshan
    sums them into a negative time. Where a record holds one, ours is the
    sum of the records' times alone over the processes, or none where every
    record holds -1. False where no record holds one."""
    values = cost_times(report, interface, col)
    if not any(v < 0 for v in values):
        return False
    kept = [v for v in values if v >= 0]
    nprocs = report.metadata["job"]["nprocs"]
    expected = sum(kept) / nprocs if kept else None
    if expected is None:
        if ours is not None:
            diffs.append(f"{log}: io cost {interface} {col}: ours {ours}, every record's time not recorded (-1)")
    elif ours is None or not close(ours, expected):
        diffs.append(f"{log}: io cost {interface} {col}: ours {ours}, the recorded times give {expected}")
    known.append(f"{log}: {interface} {col} {ours} (PyDarshan's {theirs} sums darshan-util's -1 'not recorded')")
    return True


def io_cost(log, report, ours):
    df = plot_io_cost.get_io_cost_df(report)
    theirs = {idx.replace("MPI-IO", "MPIIO"): row for idx, row in df.iterrows()}
    mine = {c["interface"]: c for c in ours["io_cost"]}
    if set(theirs) != set(mine):
        diffs.append(f"{log}: io cost interfaces: ours {sorted(mine)} PyDarshan {sorted(theirs)}")
        return
    for k, row in theirs.items():
        for col, key in [("Read", "read"), ("Write", "write"), ("Meta", "meta"), ("Wait", "wait")]:
            if k == "POSIX" and col == "Meta" and swap_slip(ours):
                if not close(mine[k][key], row[col]):
                    known.append(f"{log}: POSIX meta {mine[k][key]} (PyDarshan's {row[col]} is darshan-util's swap slip)")
                continue
            if unrecorded_times(log, report, k, col, mine[k][key], row[col]):
                continue
            if mine[k][key] is None:
                diffs.append(f"{log}: io cost {k} {col}: ours not recorded, PyDarshan {row[col]}")
                continue
            check(log, f"io cost {k} {col}", mine[k][key], row[col])


def opcounts(log, report, ours, mod):
    st = next((s for s in ours["module_stats"] if s["module"] == mod), None)
    labels, counts = plot_opcounts.gather_count_data(report, mod)
    mine = dict(st["op_counts"]) if st else {}
    for lab, cnt in zip(labels, counts):
        if mod == "POSIX" and lab == "Mmap":
            continue
        if lab not in mine:
            diffs.append(f"{log}: {mod} op count {lab} missing")
        else:
            check(log, f"{mod} op count {lab}", mine[lab], cnt)


def histogram(log, report, ours, mod):
    st = next(s for s in ours["module_stats"] if s["module"] == mod)
    report.mod_agg_iohist(mod)
    agg = report.summary["agg_iohist"][mod]
    for label, r, w in st["access_sizes"]:
        check(log, f"{mod} size READ_{label}", r, agg[f"READ_{label}"])
        check(log, f"{mod} size WRITE_{label}", w, agg[f"WRITE_{label}"])


def common_access(log, report, ours, mod):
    st = next(s for s in ours["module_stats"] if s["module"] == mod)
    df = report.records[mod].to_df()["counters"]
    prefix = "MPIIO" if mod == "MPI-IO" else mod
    acc = pcat.get_access_count_df(df, prefix)
    acc = pcat.remove_nonzero_rows(acc)
    acc = pcat.combine_access_sizes(acc)
    top = pcat.get_most_common_access_sizes(acc)
    theirs = [(int(a), int(c)) for a, c in zip(top["Access Size"], top["Count"])]
    mine = [tuple(x) for x in st["common_access"]]
    global compared
    compared += 1
    # The counts must agree one for one. Sizes must too, except among the
    # sizes tied with the last count kept: which of those make the cut is
    # the sort's choice (PyDarshan's sort is not stable).
    cut = min((c for _, c in theirs), default=None)
    if sorted(c for _, c in mine) != sorted(c for _, c in theirs) or \
            {x for x in mine if x[1] != cut} != {x for x in theirs if x[1] != cut}:
        diffs.append(f"{log}: {mod} common access: ours {sorted(mine)} PyDarshan {sorted(theirs)}")


MIB = 1048576
SMALL = ["0_100", "100_1K", "1K_10K", "10K_100K", "100K_1M"]


def small_requests(log, report, ours):
    """P05/P06's counts from PyDarshan's POSIX records: per record, the
    requests of 1 MiB in one direction are at least the common count of
    1 MiB less the other direction's 100K_1M bucket."""
    df = report.records["POSIX"].to_df()["counters"]
    for code, d, other in [("P05", "READ", "WRITE"), ("P06", "WRITE", "READ")]:
        bucketed = int(sum(df[f"POSIX_SIZE_{d}_{b}"].sum() for b in SMALL))
        mib = 0
        for _, r in df.iterrows():
            common = next((int(r[f"POSIX_ACCESS{k}_COUNT"]) for k in range(1, 5)
                           if int(r[f"POSIX_ACCESS{k}_ACCESS"]) == MIB), 0)
            mine, theirs = int(r[f"POSIX_SIZE_{d}_100K_1M"]), int(r[f"POSIX_SIZE_{other}_100K_1M"])
            mib += min(max(common - theirs, 0), mine)
        said = [f["title"] for f in ours["findings"] if f["code"] == code] + \
               [w["reason"] for w in ours["withheld"] if w["code"] == code and "exactly 1 MiB" in w["reason"]]
        for text in said:
            expect = f"({bucketed - mib:,})" if text.startswith("High") else f"{bucketed:,} {d.lower()}s in the " \
                f"access-size buckets up to 1 MiB, but {mib:,} of them of exactly 1 MiB"
            global compared
            compared += 1
            if expect not in text:
                diffs.append(f"{log}: {code}: '{text}' does not say {expect!r}")


def heatmaps(log, report, ours):
    for sub, hm in report.heatmaps.items():
        name = "HEATMAP " + sub.replace("-", "")
        mine = next((h for h in ours["heatmaps"] if h["name"] == name), None)
        if mine is None:
            diffs.append(f"{log}: {name} missing")
            continue
        check(log, f"{name} nbins", mine["nbins"], hm._nbins)
        check(log, f"{name} bin width", mine["bin_width"], hm._bin_width_seconds)
        r = hm.to_df(ops=["read"], interval_index=False)
        w = hm.to_df(ops=["write"], interval_index=False)
        for b, v in enumerate(r.sum(axis=0)):
            check(log, f"{name} read bin {b}", mine["read_per_bin"][b], v)
        for b, v in enumerate(w.sum(axis=0)):
            check(log, f"{name} write bin {b}", mine["write_per_bin"][b], v)
        per_rank = (r + w).sum(axis=1)
        for rank, v in per_rank.items():
            got = mine["per_rank"][rank] if rank < len(mine["per_rank"]) else 0
            check(log, f"{name} rank {rank}", got, v)


def by_root(log, report, ours):
    if not {"POSIX", "STDIO"} & set(report.modules):
        return
    try:
        df_r, df_w = dabf.rec_to_rw_counter_dfs(report)
        df_r, df_w = dabf.add_filesystem_cols(df_r, df_w, report.name_records)
        rb, wb = dabf.process_byte_counts(df_r, df_w)
        rf, wf = dabf.process_unique_files(df_r, df_w)
    except Exception as e:  # PyDarshan cannot group this log
        print(f"  (PyDarshan's data access by category failed on {log}: {type(e).__name__})")
        return
    norm = lambda s: s.replace("\n", " ")
    mine = {c["name"]: c for c in ours["categories"]["by_root"]}
    for series, key in [(rb, "bytes_read"), (wb, "bytes_written"), (rf, "files_read"), (wf, "files_written")]:
        for root, v in series.items():
            c = mine.get(norm(root))
            if c is None:
                diffs.append(f"{log}: category {root!r} missing")
                continue
            check(log, f"category {root} {key}", c[key], v)


def main():
    exe, logs = sys.argv[1], sys.argv[2:]
    for log in logs:
        short = log.rsplit("/", 1)[-1]
        out = subprocess.run([exe, "--json", "-o", "-", log], capture_output=True, timeout=120)
        if out.returncode != 0:
            diffs.append(f"{short}: darshan-summary failed: {out.stderr.decode().strip()}")
            continue
        ours = json.loads(out.stdout)
        try:
            report = darshan.DarshanReport(log, read_all=True)
        except Exception as e:
            print(f"  PyDarshan cannot read {short} ({e}); skipped")
            continue
        for mod in ["POSIX", "MPI-IO", "STDIO", "DFS", "DAOS"]:
            if mod in report.records and len(report.records[mod]) > 0:
                derived(short, report, ours, mod)
        io_cost(short, report, ours)
        for mod in ["POSIX", "MPI-IO", "STDIO", "H5D", "PNETCDF_VAR", "DFS", "DAOS"]:
            if mod in report.records and len(report.records[mod]) > 0:
                opcounts(short, report, ours, mod)
        for mod in ["POSIX", "MPI-IO", "H5D", "PNETCDF_VAR", "DFS", "DAOS"]:
            if mod in report.records and len(report.records[mod]) > 0:
                histogram(short, report, ours, mod)
                common_access(short, report, ours, mod)
        if "POSIX" in report.records and len(report.records["POSIX"]) > 0:
            small_requests(short, report, ours)
        heatmaps(short, report, ours)
        by_root(short, report, ours)
    print(f"darshan-summary vs PyDarshan: {len(logs)} logs, {compared} figures compared, {len(diffs)} differences")
    if known:
        print(f"  {len(known)} known differences (see docs/report.md):")
        for k in known:
            print("    " + k)
    for d in diffs[:60]:
        print("  " + d)
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
