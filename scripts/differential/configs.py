#!/usr/bin/env python3
"""Random run-time configurations for scripts/differential/run.py
(DIFFERENTIAL_CONFIG=1): a configuration file (DARSHAN_CONFIG_PATH) and
environment settings made from the program's seed, given alike to C
Darshan and to us. Only what both read the same way is drawn: record
limits, name and directory exclusions and inclusions, modules disabled
and enabled, DXT's triggers, and for MPI jobs ranks excluded and the
shared-record reduction. DARSHAN_MODMEM is left out: we grant it as
records are made, C when a module registers (docs/runtime.md)."""
import random
import sys

# The programs' names: argv[1]/f0..f3, mkstemp's tmpXXXXXX, the standard
# streams <STDIN> <STDOUT> <STDERR>, HDF5's h0.h5.., PnetCDF's n0.nc..,
# MPI-IO's m0, m1.<rank>.., fio's a.dat, b.dat, j0.0.0..; patterns that
# pick some of them.
PATTERNS = ["f0$", "f[13]$", "/f2", "tmp", "STD", "^<", "f.$", "data/f[01]", "OUT>$", "^/", "f[0-3]",
            "/h0", "h1\\.h5$", "n0\\.nc", "\\.nc$", "/m0", "m[12]\\.", "a\\.dat$", "j0\\.0"]
# Not "^/" to take back: every system file would then be recorded, and
# we see the stat() calls of programs built on glibc >= 2.33 that C does
# not (docs/runtime.md), so such files would take the places MAX_RECORDS
# leaves (Open MPI stats its components before loading them).
INCLUDE_PATTERNS = [p for p in PATTERNS if p != "^/"]
SYSTEM_DIRS = ["/etc/", "/dev/", "/usr/", "/bin/", "/boot/", "/lib/", "/opt/", "/sbin/", "/sys/", "/proc/", "/var/"]


def module_list(r, modules):
    """A module list as the configuration takes it: one, two, or every one."""
    k = r.random()
    if k < 0.15:
        return "*"
    return ",".join(r.sample(modules, min(len(modules), 1 if k < 0.7 else 2)))


def lines_and_env(r, modules, data, mpi, dxt):
    """(configuration file lines, environment settings)."""
    lines, env = [], {}
    if r.random() < 0.6:
        lines.append(f"MAX_RECORDS {r.choice([1, 2, 3, 4, 5, 8])} {module_list(r, modules)}")
    if r.random() < 0.25:
        lines.append(f"MAX_RECORDS {r.choice([1, 2, 3])} {module_list(r, modules)}")
    if r.random() < 0.4:
        pats = ",".join(r.sample(PATTERNS, r.choice([1, 1, 2])))
        lines.append(f"NAME_EXCLUDE {pats} {module_list(r, modules)}")
    if r.random() < 0.25:
        lines.append(f"NAME_INCLUDE {r.choice(INCLUDE_PATTERNS)} {module_list(r, modules)}")
    if r.random() < 0.15:
        # A prefix of paths (the data directory's f1, or all of it), with
        # Darshan's own, which the list replaces: system files would
        # otherwise be recorded, for the same reason as above.
        ours = r.choice([data + "/f1", data, "/nowhere," + data + "/f0"])
        env["DARSHAN_EXCLUDE_DIRS"] = ",".join(SYSTEM_DIRS + [ours])
    if r.random() < 0.2:
        key = r.choice(["MOD_DISABLE", "MOD_ENABLE"])
        # Not H5F off: C 3.5.0's H5Fflush then returns before it drops the
        # file id it took, so the program's H5Fclose leaves the file open
        # and later calls on it succeed under C only (docs/differential.md).
        value = r.choice([m for m in modules + ["HEATMAP"] if key == "MOD_ENABLE" or m != "H5F"])
        if r.random() < 0.5:
            lines.append(f"{key} {value}")
        else:
            env["DARSHAN_" + key] = value
    if dxt and r.random() < 0.5:
        key = r.choice(["DXT_SMALL_IO_TRIGGER", "DXT_UNALIGNED_IO_TRIGGER"])
        lines.append(f"{key} {r.choice([0.1, 0.5, 0.9, 1])}")
    # Not with H5F: an excluded rank's H5F is off, the same H5Fflush leak
    # as above makes its H5Fclose leave the file open, and that rank's
    # collective calls then part from the others' (C's jobs hang).
    if mpi and r.random() < 0.2 and "H5F" not in modules:
        lines.append(f"RANK_EXCLUDE {r.choice(['0', '1:2', '3', '1'])}")
    if mpi and r.random() < 0.2:
        env["DARSHAN_DISABLE_SHARED_REDUCTION"] = "1"
    return lines, env


def gen(seed, modules, data, mpi, dxt):
    """(configuration text, environment) for program `seed`, drawing on the
    compared modules (`modules`, DXT's when `dxt`)."""
    r = random.Random(f"config {seed}")
    mods = [m for m in modules if m not in ("MPI-IO",) or mpi] + (["DXT_POSIX"] if dxt else [])
    lines, env = lines_and_env(r, mods, data, mpi, dxt)
    return "".join(line + "\n" for line in lines), env


if __name__ == "__main__":
    text, env = gen(int(sys.argv[1]), ["POSIX", "STDIO"], "/data", False, True)
    print(text + "".join(f"# {k}={v}\n" for k, v in env.items()), end="")
