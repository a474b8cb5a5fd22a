"""Everything PyDarshan 3.5.0 reads of each log through the libdarshan-util
it loaded, as JSON: the job (with the log version PyDarshan reads at the
handle's address, and the run time), command line, mounts, modules, names,
every record of every module through the backend (generic records, LUSTRE,
DXT, HEATMAP), the counter names, and the accumulator's derived metrics and
summation record for the modules that have them.

Run once with the wheel's own C library and once with ours (a copy of the
package without `darshan.libs`, the installed tree's bin/ first on the
PATH: util_libs.py), then compare the two files (check_util_lib.py).

Usage: util_lib_dump.py OUT.json LOG...
"""
import json
import sys

import numpy as np

import darshan
from darshan.backend import cffi_backend as be
from util_libs import loaded_library

GENERIC = ["POSIX", "MPI-IO", "STDIO", "H5F", "H5D", "PNETCDF_FILE", "PNETCDF_VAR", "DFS", "DAOS"]
ACCUMULATED = ["POSIX", "MPI-IO", "STDIO"]


def plain(v):
    """JSON-able, exact: floats by their bits' repr, arrays as lists."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()]
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, bytes):
        return v.hex()
    return v


def records(log, mod):
    out = []
    while True:
        if mod in GENERIC:
            r = be.log_get_generic_record(log, mod, dtype="numpy")
        else:
            r = be.log_get_record(log, mod, dtype="dict")
        if r is None:
            return out
        out.append(plain(r))


def accumulated(path, mod, nprocs):
    rep = darshan.DarshanReport(path, read_all=False)
    rep.mod_read_all_records(mod, dtype="pandas")
    acc = be.accumulate_records(rep.records[mod].to_df(), mod, nprocs)
    m = acc.derived_metrics
    fields = ["total_bytes", "unique_io_total_time_by_slowest", "unique_rw_only_time_by_slowest",
              "unique_md_only_time_by_slowest", "unique_io_slowest_rank", "shared_io_total_time_by_slowest",
              "agg_perf_by_slowest", "agg_time_by_slowest"]
    cats = ["count", "total_read_volume_bytes", "total_write_volume_bytes", "max_read_volume_bytes",
            "max_write_volume_bytes", "total_max_offset_bytes", "max_offset_bytes", "nprocs"]
    summary = acc.summary_record
    return plain({
        "metrics": {f: getattr(m, f) for f in fields},
        "categories": [[getattr(m.category_counters[k], c) for c in cats] for k in range(7)],
        "summary": {k: summary[k].to_dict(orient="list") for k in ("counters", "fcounters")},
    })


def dump(path):
    log = be.log_open(path)
    if log["handle"] == be.ffi.NULL:
        return {"open": "failed"}
    job = be.log_get_job(log)
    out = {"job": plain(job), "exe": be.log_get_exe(log), "mounts": plain(be.log_get_mounts(log))}
    mods = be.log_get_modules(log)
    out["modules"] = plain(mods)
    out["names"] = sorted([str(k), v] for k, v in be.log_get_name_records(log).items())
    out["records"] = {}
    for mod in mods:
        try:
            out["records"][mod] = records(log, mod)
        except Exception as e:  # what the C library makes of it too
            out["records"][mod] = f"error {type(e).__name__}"
    be.log_close(log)
    out["accumulated"] = {}
    for mod in ACCUMULATED:
        if mod in mods:
            try:
                out["accumulated"][mod] = accumulated(path, mod, job["nprocs"])
            except Exception as e:
                out["accumulated"][mod] = f"error {type(e).__name__}: {e}"
    return out


def main():
    out_path, logs = sys.argv[1], sys.argv[2:]
    result = {"library": None, "version": be.get_lib_version(), "logs": {},
              "names": {m: be.counter_names(m) for m in ["POSIX", "MPI-IO", "STDIO", "H5F", "H5D", "PNETCDF_FILE",
                                                          "PNETCDF_VAR", "DFS", "DAOS", "LUSTRE_COMP"]},
              "fnames": {m: be.fcounter_names(m) for m in ["POSIX", "MPI-IO", "STDIO", "H5F", "H5D",
                                                            "PNETCDF_FILE", "PNETCDF_VAR", "DFS", "DAOS"]}}
    for p in logs:
        result["logs"][p] = dump(p)
    result["library"] = loaded_library()
    with open(out_path, "w") as f:
        json.dump(result, f, sort_keys=True)


main()
