"""What PyDarshan 3.5.0 reads of a log's AutoPerf APMPI and APXC records
through the libdarshan-util it loaded (DarshanReport's own reader), and
the counter names it reads from the library, as JSON; or two such files
compared (tests/c-darshan/util_autoperf.sh).

One log per process for C's library: its reader tells the header from a
rank's record by a flag static to the process, so a second log is misread
there. Ours keeps it per log: --many reads every log in one process, as a
facility script looping over logs does, each into OUT_DIR/NAME.json.

Usage: apmpi_dump.py LOG OUT.json
       apmpi_dump.py --many OUT_DIR LOG...
       apmpi_dump.py --compare C.json OURS.json OUR_LIB_DIR
"""
import json
import os
import sys


def plain(v):
    import numpy as np
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, np.integer):
        return int(v)
    return v


def dump(log, out):
    import darshan
    from darshan.backend import cffi_backend as be
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from util_libs import loaded_library
    rep = darshan.DarshanReport(log, read_all=True)
    recs = rep.records["APMPI"]._records if "APMPI" in rep.records else []
    names = {s: be.counter_names("APMPI", fcnts=bool(s), special=s)
             for s in ("", "mpiop_totaltime_", "mpiop_synctime_", "mpi_global_")}
    apxc = rep.records["APXC"]._records if "APXC" in rep.records else []
    names["apxc"] = be.counter_names("APXC")
    with open(out, "w") as f:
        json.dump({"library": loaded_library(), "records": plain(list(recs)), "names": names,
                   "apxc": plain(list(apxc))}, f, sort_keys=True)


def compare(c_path, ours_path, our_lib):
    with open(c_path) as f:
        c = json.load(f)
    with open(ours_path) as f:
        ours = json.load(f)
    said = []
    if not all(os.path.realpath(p).startswith(os.path.realpath(our_lib)) for p in ours["library"]) or not ours["library"]:
        said.append(f"PyDarshan loaded {ours['library']}, not ours")
    if len(c["records"]) < 2 or not all(c["names"].values()):
        said.append("C's library read no APMPI records or names: nothing compared")
    if c["apxc"] != ours["apxc"]:
        said.append(f"the APXC records differ ({len(c['apxc'])} and {len(ours['apxc'])})")
    if c["names"] != ours["names"]:
        said.append("the counter names differ")
    if c["records"] != ours["records"]:
        k = next((i for i, (a, b) in enumerate(zip(c["records"], ours["records"])) if a != b), None)
        said.append(f"the records differ ({len(c['records'])} and {len(ours['records'])}; first at {k})")
    for s in said:
        print(f"util_autoperf: {os.path.basename(c_path)}: {s}")
    return not said


if sys.argv[1] == "--compare":
    sys.exit(0 if compare(*sys.argv[2:5]) else 1)
if sys.argv[1] == "--many":
    for log in sys.argv[3:]:
        name = os.path.basename(log)[: -len(".darshan")]
        dump(log, os.path.join(sys.argv[2], name + ".json"))
    sys.exit(0)
dump(sys.argv[1], sys.argv[2])
