#!/usr/bin/env python3
"""Random programs under C Darshan's library and ours, every counter that
is not a time compared (docs/counter-rules.md says what each must be; C's
log is the oracle).

    scripts/differential/run.py KIND C_LIB [FIRST LAST [CALLS]]
    scripts/differential/run.py KIND C_LIB --reduce PROGRAM.c COUNTER

KIND is one of
  posix  POSIX and STDIO calls (programs.py); C_LIB a non-MPI build
  mpi    MPI-IO calls at 4 ranks, Open MPI with ROMIO (mpi_programs.py);
         C_LIB an MPI build
  aio    posix's programs with glibc's aio among the descriptor calls:
         returned at once, later, in another order, after a close, by
         lio_listio, or never (aio_programs.py); C_LIB a non-MPI build
  fork   POSIX and STDIO calls with up to two fork()s among them, a log
         per process (fork_programs.py); C_LIB a non-MPI build
  mpiposix  POSIX and STDIO calls made by the ranks in turn, at 4 ranks, on
         shared and per-rank files (mpi_posix_programs.py); C_LIB an MPI build
  threads  POSIX and STDIO calls made by 3 threads in turn
         (thread_programs.py); C_LIB a non-MPI build
  fortran  gfortran's I/O statements on units 10-13 (fortran_programs.py);
         C_LIB a non-MPI build
  python  a Python job's own file calls, run by /usr/bin/python3
         (python_programs.py); C_LIB a non-MPI build
  fio    fio's jobs, one to three in turn, each with a random engine and
         pattern (fio_programs.py); C_LIB a non-MPI build
  hdf5   HDF5 calls (h5_programs.py); C_LIB a non-MPI build with
         --enable-hdf5-mod against the system's serial HDF5
  pnetcdf  PnetCDF calls at 4 ranks (pnetcdf_programs.py); C_LIB an MPI
         build with --enable-pnetcdf-mod
  h5mpi  parallel HDF5 at 4 ranks (h5mpi_programs.py); C_LIB an MPI build
         with --enable-hdf5-mod against Open MPI's HDF5
  netcdf4  NetCDF-4 calls through libnetcdf (nc4_programs.py); C_LIB as
         for hdf5
DIFFERENTIAL_RANKS=N runs the MPI kinds at N ranks (4 by default);
DIFFERENTIAL_MPI=mpich builds and runs mpi and mpiposix with MPICH
(mpicc.mpich, mpiexec.mpich; C_LIB built with CC=mpicc.mpich), and mpi's
programs then make MPICH's calls too (large counts, non-blocking
collectives, the shared file pointer);
DIFFERENTIAL_MPI=ompio runs mpi with Open MPI's own MPI-IO, OMPIO (its
default but on Lustre; ROMIO otherwise), whose collectives write through
glibc's aio, thousands of requests at a time: no split or non-blocking
calls (OMPIO hangs in them here), and neither POSIX_STATS (OMPIO stats
its files) nor the counters the order of a file's accesses decides
(IN_ORDER; DXT's segments compared in offset order) are compared.
DIFFERENTIAL_DXT=1 traces every file (DXT_ENABLE_IO_TRACE) and compares
the segments too (module, rank, file, segment: direction, offset, length).
DIFFERENTIAL_KILL=1 (every kind but fio) ends each program with SIGKILL
to itself where it would return (an MPI job's ranks after a barrier) and
compares the crash-safe files the two libraries left
(DARSHAN_MMAP_LOGPATH), read as logs: what a job killed at its
wall-clock limit leaves (DXT's segments not compared: C keeps them on
the heap, so its files have none). A file names no process: an MPI
job's files are compared as one, a forked tree's are paired by content.
Each of ours must also read as C's readers need it: PyDarshan opens it
(when the venv of scripts/setup.sh is there) and darshan-parser prints no
Error: line. C_LIB
"none" runs ours alone and checks only that (scripts/test.sh does, on
forked trees, with no C Darshan at hand).
DIFFERENTIAL_CONFIG=1 runs each program under a random configuration made
from its seed (configs.py: record limits, name and directory exclusions,
modules disabled, DXT's triggers, ranks excluded) and compares which
modules the logs mark incomplete too.
Programs are seeded, so a seed names a program; one whose logs differ is
kept in target/differential/KIND with its differences, and --reduce drops
its lines one at a time while COUNTER still differs. Left out of the
comparison: where we record more than C on purpose (docs/runtime.md: the
stat family on glibc >= 2.33, getc/putc, ungetc and mmap are not
generated; POSIX_STATS is not compared where HDF5, fio or libgfortran
call stat, nor the POSIX_META module), the ranks' times (FASTEST/SLOWEST/VARIANCE), and
ROMIO's shared-file-pointer file, whose accesses race between ranks."""
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OURS = os.environ.get("OURS", os.path.join(ROOT, "target", "release", "libdarshan.so"))
PARSER = os.path.join(ROOT, "target", "release", "darshan-parser")
DXT_PARSER = os.path.join(ROOT, "target", "release", "darshan-dxt-parser")
DXT = os.environ.get("DIFFERENTIAL_DXT") == "1"
CONFIG = os.environ.get("DIFFERENTIAL_CONFIG") == "1"
MPICH = os.environ.get("DIFFERENTIAL_MPI") == "mpich"
OMPIO = os.environ.get("DIFFERENTIAL_MPI") == "ompio"
KILL = os.environ.get("DIFFERENTIAL_KILL") == "1"
MPICC = "mpicc.mpich" if MPICH else "mpicc"
NOT_COMPARED = re.compile(r"TIME|TIMESTAMP|FASTEST|SLOWEST|VARIANCE")
# What the order of a file's accesses decides: with OMPIO, the order in
# which glibc's aio threads complete a collective's requests, which
# OMPIO returns as it finds them done (a matter of timing).
IN_ORDER = re.compile(r"POSIX_(SEQ_|CONSEC_|STRIDE|RW_SWITCHES)")
MKSTEMP = re.compile(r"tmp......$")  # mkstemp's random names
H5 = ["-I/usr/include/hdf5/serial", "-L/usr/lib/x86_64-linux-gnu/hdf5/serial"]
H5MPI = ["-I/usr/include/hdf5/openmpi", "-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi"]
sys.path.insert(0, HERE)
import configs  # noqa: E402
import fio_programs  # noqa: E402
import fork_programs  # noqa: E402
import fortran_programs  # noqa: E402
import h5_programs  # noqa: E402
import h5mpi_programs  # noqa: E402
import mpi_posix_programs  # noqa: E402
import mpi_programs  # noqa: E402
import nc4_programs  # noqa: E402
import pnetcdf_programs  # noqa: E402
import aio_programs  # noqa: E402
import programs  # noqa: E402
import python_programs  # noqa: E402
import thread_programs  # noqa: E402

programs.Program.hold_closed_fds = CONFIG
mpi_programs.Program.mpich = MPICH
mpi_programs.Program.ompio = OMPIO
mpi_programs.Program.dxt_offsets = MPICH and DXT


class Kind:
    def __init__(self, name, gen, cc, link, modules, launch, include=H5[:1], calls=40, streams=False):
        self.name, self.gen, self.cc, self.link, self.modules, self.launch = name, gen, cc, link, modules, launch
        self.include = include
        self.calls = calls  # a program's calls unless told
        self.streams = streams  # whether the standard streams' records are compared
        self.work = os.path.join(ROOT, "target", "differential", name)
        self.data = os.path.join(self.work, "data")

    def build(self, src, exe):
        subprocess.run([self.cc, "-O0", "-w", *self.include, "-o", exe, src, *self.link], check=True)

    def compared(self, f):
        """Whether parser row `f` is one of the program's counters to compare."""
        name = f[5]
        if f[0] not in self.modules or NOT_COMPARED.search(f[3]) or "shfp" in name:
            return False
        if (self.name in ("hdf5", "h5mpi", "netcdf4", "fio", "fortran", "python") or OMPIO) and f[3] == "POSIX_STATS":
            return False
        if OMPIO and IN_ORDER.match(f[3]):
            return False
        return name.startswith(self.data + "/") or (self.streams and name.startswith("<"))


class CopiedKind(Kind):
    """Programs that need no compiler: a fio job file, a Python script,
    run by their launch (fio, python3) as written."""

    def build(self, src, exe):
        shutil.copy(src, exe)


class FortranKind(Kind):
    """gfortran's programs: free-form source in a file named .c."""

    def build(self, src, exe):
        subprocess.run(["gfortran", "-O0", "-w", "-ffree-line-length-none", "-x", "f95", "-o", exe, src], check=True)


def python_launch(kind, env, exe):
    return ["/usr/bin/python3", exe, kind.data], dict(env, DARSHAN_ENABLE_NONMPI="1")


def fio_launch(kind, env, exe):
    return ["fio", "--output=/dev/null", f"--directory={kind.data}", exe], dict(env, DARSHAN_ENABLE_NONMPI="1")


def posix_launch(kind, env, exe):
    return [exe, kind.data], dict(env, DARSHAN_ENABLE_NONMPI="1")


def fixed_layout_launch(kind, env, exe):
    """posix_launch without address-space randomization: libnetcdf and
    HDF5 read a file's metadata in an order that follows where their
    memory lies (nc4_programs.py seed 72: 45 or 46 preads from run to run
    with no Darshan at all, always 45 under `setarch -R`), its stack too:
    the environment's size moves it, so the library's path is padded to
    one length for both (seed 109: 31 preads or 32 as the path's length
    changed). The library is preloaded into the program only (`env`), not
    into setarch."""
    cmd, env = posix_launch(kind, env, exe)
    lib = env.pop("LD_PRELOAD")
    pad = "x" * max(0, 512 - len(lib))
    return ["setarch", "-R", "env", f"LD_PRELOAD={lib}", f"DIFFERENTIAL_PAD={pad}", *cmd], env


def mpi_launch(kind, env, exe):
    hints = os.path.join(kind.work, "romio-hints")
    with open(hints, "w") as f:
        # One aggregator and no data sieving: ROMIO's read-modify-write of
        # a hole reads what another rank may or may not have written yet.
        f.write("romio_ds_read disable\nromio_ds_write disable\ncb_nodes 1\n")
    env = dict(env, ROMIO_HINTS=hints)
    # To the ranks: the library, its settings (DARSHAN_*, DXT_* from the
    # caller's environment too) and the hints.
    xs = [a for k in sorted(env) if k in ("LD_PRELOAD", "ROMIO_HINTS") or k.startswith(("DARSHAN_", "DXT_"))
          for a in ("-x", f"{k}={env[k]}")]
    del env["LD_PRELOAD"]  # the ranks', not mpirun's
    ranks = os.environ.get("DIFFERENTIAL_RANKS", "4")
    if MPICH:
        return ["mpiexec.mpich", "-n", ranks, *[a for kv in xs[1::2] for a in ("-genv", *kv.split("=", 1))],
                exe, kind.data], env
    return ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "io", "ompio" if OMPIO else "romio321", "-np", ranks, *xs, exe, kind.data], env


KINDS = {
    "posix": Kind("posix", programs.gen, "cc", [], ("POSIX", "STDIO"), posix_launch, calls=100, streams=True),
    "mpi": Kind("mpi", mpi_programs.gen, MPICC, [], ("POSIX", "STDIO", "MPI-IO"), mpi_launch),
    "fork": Kind("fork", fork_programs.gen, "cc", [], ("POSIX", "STDIO"), posix_launch, calls=100, streams=True),
    "aio": Kind("aio", aio_programs.gen, "cc", [], ("POSIX", "STDIO"), posix_launch, calls=100, streams=True),
    "mpiposix": Kind("mpiposix", mpi_posix_programs.gen, MPICC, [], ("POSIX", "STDIO"), mpi_launch, calls=100,
                     streams=True),
    "threads": Kind("threads", thread_programs.gen, "cc", ["-pthread"], ("POSIX", "STDIO"), posix_launch, calls=100,
                    streams=True),
    "fortran": FortranKind("fortran", fortran_programs.gen, "gfortran", [], ("POSIX", "STDIO"), posix_launch, calls=60),
    "python": CopiedKind("python", python_programs.gen, "python3", [], ("POSIX", "STDIO"), python_launch, calls=80),
    "fio": CopiedKind("fio", fio_programs.gen, "fio", [], ("POSIX", "STDIO"), fio_launch, calls=0),
    "hdf5": Kind("hdf5", h5_programs.gen, "cc", H5[1:] + ["-lhdf5"], ("POSIX", "H5F", "H5D"), posix_launch),
    "netcdf4": Kind("netcdf4", nc4_programs.gen, "cc", ["-lnetcdf"], ("POSIX", "H5F", "H5D"), fixed_layout_launch),
    "h5mpi": Kind("h5mpi", h5mpi_programs.gen, "mpicc", H5MPI[1:] + ["-lhdf5"], ("POSIX", "MPI-IO", "H5F", "H5D"),
                  mpi_launch, H5MPI[:1]),
    "pnetcdf": Kind("pnetcdf", pnetcdf_programs.gen, "mpicc", ["-lpnetcdf"],
                    ("POSIX", "MPI-IO", "PNETCDF_FILE", "PNETCDF_VAR"), mpi_launch),
}


def counters(kind, log):
    """{(module, rank, name, counter): value} of the rows `kind` compares;
    a RENAMED_FROM or FILE_REC_ID as the name it points to; whether the
    log says it is a forked child's. mkstemp's random names are one name,
    numbered (when a rank made several) in the order of their counters."""
    out = subprocess.run([PARSER, "--show-incomplete", log], capture_output=True, text=True, timeout=60).stdout
    rows = [f for f in (l.split("\t") for l in out.splitlines() if not l.startswith("#")) if len(f) >= 6]
    unique = lambda n: MKSTEMP.sub("tmpXXXXXX", n)
    names = {f[2]: unique(f[5]) for f in rows}
    by_record = {}
    for f in filter(kind.compared, rows):
        value = names.get(f[4], f[4]) if f[3].endswith(("RENAMED_FROM", "FILE_REC_ID")) else f[4]
        by_record.setdefault((f[0], f[1], f[2]), {})[f[3]] = value
    seen = {}
    recs = {("META", "", "", "fork_parent"): "# metadata: fork_parent = " in out}
    for module in re.findall(r"^# \*(?:WARNING|ERROR)\*: The (\S+) module contains incomplete data!$", out, re.M):
        if module in kind.modules or (DXT and module.startswith("DXT_")):
            recs[("META", "", "", f"{module} incomplete")] = True
    for (module, rank, rid), cs in sorted(by_record.items(), key=lambda kv: (kv[0][:2], sorted(kv[1].items()))):
        name = names[rid]
        k = seen[(module, rank, name)] = seen.get((module, rank, name), -1) + 1
        for counter, value in cs.items():
            recs[(module, rank, name + (f"#{k}" if k else ""), counter)] = value
    return recs


# PyDarshan 3.5.0 (C's darshan-util underneath), the independent reader
# each of our crash-safe files must open (scripts/setup.sh makes the venv).
PYDARSHAN = os.path.join(ROOT, ".venv", "bin", "python")
OPEN_ALL = "import darshan, sys\nfor f in sys.argv[1:]:\n    darshan.DarshanReport(f, read_all=True)\n"


def faults_for_c_readers(logs):
    """What in our crash-safe files `logs` C's readers trip on: an Error:
    line from our darshan-parser (which prints C's errors and, like C's,
    exits 0 after them), or PyDarshan failing to open one (a module past
    Darshan's ids 0-17 in the header's map: ours live in the extension
    map). A forked child's file once mapped POSIX_META in its header, and
    the counters compared here did not show it."""
    out = []
    for log in logs:
        err = subprocess.run([PARSER, "--show-incomplete", log], capture_output=True, text=True, timeout=60).stderr
        out += [f"{os.path.basename(log)}: {line}" for line in err.splitlines() if line.startswith("Error")]
    if logs and os.path.exists(PYDARSHAN):
        r = subprocess.run([PYDARSHAN, "-c", OPEN_ALL, *logs], capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            out.append("PyDarshan cannot open them: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    return out


def segments(kind, log):
    """{(DXT module, rank, file, "segment N"): "direction offset length"}
    of darshan-dxt-parser's output, for the files `kind` compares."""
    out = subprocess.run([DXT_PARSER, log], capture_output=True, text=True, timeout=60).stdout
    segs, name = {}, None
    for line in out.splitlines():
        m = re.match(r"# DXT, file_id: \d+, file_name: (.*)$", line)
        if m:
            name = m.group(1)
            continue
        f = line.split()
        # mkstemp's files are left out: their names are random, and a rank's
        # several could not be told apart; so is ROMIO's shared-file-pointer
        # file, named by a pid, whose accesses race between ranks.
        if name and name.startswith(kind.data + "/") and not MKSTEMP.search(name) and "shfp" not in name \
                and len(f) >= 6 \
                and f[0].startswith("X_"):
            segs[(f[0], f[1], name, f"segment {f[3]}")] = " ".join((f[2], f[4], f[5]))
    return in_offset_order(segs) if OMPIO else segs


def in_offset_order(segs):
    """Each file's segments renumbered in (direction, offset, length)
    order: what OMPIO's collectives leave of them apart from their order
    (IN_ORDER)."""
    by_file = {}
    for (m, rank, name, _), v in segs.items():
        by_file.setdefault((m, rank, name), []).append(v)
    key = lambda v: (v.split()[0], int(v.split()[1]), int(v.split()[2]))  # noqa: E731
    return {(*k, f"segment {i}"): v for k, vs in by_file.items() for i, v in enumerate(sorted(vs, key=key))}


def process_of(kind, log):
    """The process a log is of: "" unless the program forks, else the
    place in the tree fork_programs' process wrote to who.<its pid>."""
    m = re.search(r"_id\d+-(\d+)_", os.path.basename(log))
    if kind.name != "fork" or not m:
        return ""
    try:
        return "who." + open(os.path.join(kind.work, "who." + m.group(1))).read()
    except OSError:
        return f"pid {m.group(1)}, which wrote no who file"


def settings(kind, seed):
    """The environment program `seed` runs in beyond the logs' places: a
    random configuration's (DIFFERENTIAL_CONFIG=1), else none."""
    if not CONFIG:
        return {}
    text, env = configs.gen(seed, list(kind.modules), kind.data, kind.launch is mpi_launch, DXT)
    path = os.path.join(kind.work, "config")
    with open(path, "w") as f:
        f.write(text)
    return dict(env, DARSHAN_CONFIG_PATH=path)


def run(kind, lib, exe, tag, extra):
    """The counters of `exe` run under `lib` in a fresh data directory with
    `extra` settings, by process (one log and process "" unless the
    program forks)."""
    shutil.rmtree(kind.data, ignore_errors=True)
    os.makedirs(kind.data)
    for f in glob.glob(os.path.join(kind.work, "who.*")):
        os.remove(f)
    logs, mmap = os.path.join(kind.work, "logs-" + tag), os.path.join(kind.work, "mmap-" + tag)
    for d in (logs, mmap):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    env = dict(os.environ, DARSHAN_LOGPATH=logs, DARSHAN_MMAP_LOGPATH=mmap, LD_PRELOAD=lib, **extra)
    if DXT:
        env["DXT_ENABLE_IO_TRACE"] = "1"
    cmd, env = kind.launch(kind, env, exe)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None, f"{tag}: no end in 120 s"
    found = glob.glob(os.path.join(mmap if KILL else logs, "*.darshan"))
    if KILL and glob.glob(os.path.join(logs, "*")):
        return None, f"{tag}: a log written by a process killed before its exit"
    if KILL and not found and (p.returncode == -9 or kind.launch is mpi_launch):
        return {}, None  # no crash-safe file: compare() says whether C's held more than the streams
    faults = faults_for_c_readers(found) if KILL and tag == "ours" else []
    if faults:
        return None, f"{tag}: " + "; ".join(faults)
    if KILL and found:
        # A crash-safe file's name says no process: a rank's files are one
        # job (the rank is in every key), a forked tree's are matched by
        # their content in compare().
        # Ours says fork_parent= in a forked child's file from the fork
        # on (darshan-merge --job reads it); Darshan writes it at exit.
        files = [{k: v for k, v in counters(kind, log).items() if k[3] != "fork_parent"} for log in found]
        if kind.launch is mpi_launch:
            return {"": {k: v for f in files for k, v in f.items()}}, None
        return ({f"process {i}": f for i, f in enumerate(files)} if kind.name == "fork" else {"": files[0]}), None
    by_process = {process_of(kind, log): counters(kind, log) | (segments(kind, log) if DXT and not KILL else {})
                  for log in found}
    if not found or len(by_process) != len(found) or (kind.name != "fork" and len(found) != 1):
        return None, f"{tag}: {len(found)} logs of {len(by_process)} processes, exit {p.returncode}"
    return by_process, None


def compare(kind, c_lib, exe, seed):
    extra = settings(kind, seed)
    if c_lib == "none":
        _, err = run(kind, OURS, exe, "ours", extra)
        return [err] if err else []
    c, e1 = run(kind, c_lib, exe, "c", extra)
    o, e2 = run(kind, OURS, exe, "ours", extra)
    if e1 or e2:
        return [f"{e1 or ''} {e2 or ''}".strip()]
    if KILL:
        # Ours makes no crash-safe file for the standard streams alone
        # (docs/runtime.md): a process whose file holds no more is left out.
        c, o = ({p: d for p, d in x.items() if not all(k[0] == "META" or k[2].startswith("<") for k in d)}
                for x in (c, o))
        if kind.name == "fork":
            c, o = matched(c, o)
    if set(c) != set(o):
        return [f"processes with a log: C {sorted(c)}, ours {sorted(o)}"]
    return [f"{(p + ' ') if p else ''}{k[0]} rank {k[1]} {os.path.basename(k[2])} {k[3]}: C {c[p].get(k)}, ours {o[p].get(k)}"
            for p in sorted(c) for k in sorted(set(c[p]) | set(o[p])) if c[p].get(k) != o[p].get(k)]


def matched(c, o):
    """Killed processes of a forked tree, C's and ours, paired by content:
    each of C's (the fullest first) with the one of ours that differs from
    it in the fewest counters, both named after C's; ours left over keep
    their own names."""
    differing = lambda a, b: len({k for k in set(a) | set(b) if a.get(k) != b.get(k)})
    left, mc, mo = dict(o), {}, {}
    for p in sorted(c, key=lambda p: -len(c[p])):
        mc[p] = c[p]
        if left:
            q = min(left, key=lambda q: differing(c[p], left[q]))
            mo[p] = left.pop(q)
    return mc, mo | {"ours' " + q: d for q, d in left.items()}


def killed(kind, text):
    """Program `text` ending with SIGKILL to itself where it would return
    (DIFFERENTIAL_KILL=1): no destructor, no atexit, no log but the
    crash-safe files. An MPI program's ranks meet at a barrier first, so
    that no rank is killed by the launcher (which ends the job when one
    rank dies) before its last call."""
    if kind.name == "python":
        return text + "\nos.kill(os.getpid(), 9)\n"
    if kind.name == "fortran":
        head, tail = text.rstrip().rsplit("\nend program p", 1)
        return f"{head}\n  call kill(getpid(), 9)\nend program p{tail}\n"
    if kind.name == "fio":
        sys.exit("DIFFERENTIAL_KILL=1 does not know how fio's jobs end")
    lines = text.rstrip().split("\n")
    # The first of the closing lines (MPI_Finalize's, else the return).
    at = next((i for i in range(len(lines) - 4, len(lines)) if "MPI_Finalize" in lines[i] or "return" in lines[i]), None)
    if at is None:
        sys.exit(f"DIFFERENTIAL_KILL=1 found no end in {kind.name}'s program")
    mpi = "#include <mpi.h>" in text
    lines.insert(at, ("    MPI_Barrier(MPI_COMM_WORLD);" if mpi else "") + "    kill(getpid(), SIGKILL);")
    # After _GNU_SOURCE's definition, which must come before any header.
    lines.insert(1 if lines[0].startswith("#define _GNU_SOURCE") else 0, "#include <signal.h>\n#include <unistd.h>")
    return "\n".join(lines) + "\n"


def one(kind, c_lib, seed, calls):
    src, exe = os.path.join(kind.work, f"p{seed}.c"), os.path.join(kind.work, f"p{seed}")
    with open(src, "w") as f:
        text = kind.gen(seed, calls)
        f.write(killed(kind, text) if KILL else text)
    kind.build(src, exe)
    diffs = compare(kind, c_lib, exe, seed)
    if not diffs:
        os.remove(src)
        os.remove(exe)
    return diffs


def reduce(kind, c_lib, src, counter):
    """Drop the program's body lines one at a time while `counter` differs."""
    lines = open(src).read().split("\n")
    # The body starts after the prologue, which ends filling the whole
    # buffer (a body's calls fill parts of it), or between two "calls"
    # marks (thread_programs' steps).
    marks = [i for i, l in enumerate(lines) if l.strip() in ("/* calls */", "! calls", "# calls")]
    start = marks[0] + 1 if marks else 1 + max(i for i, l in enumerate(lines)
                                              if "sizeof buf" in l and ("memset(buf" in l or "buf[i] = '\\n'" in l))
    end = marks[-1] if marks else next(i for i in range(len(lines) - 1, 0, -1) if lines[i].strip().startswith("return"))
    red, exe = os.path.join(kind.work, "reduced.c"), os.path.join(kind.work, "reduced")
    seed = int(re.sub(r"\D", "", os.path.basename(src)) or 0)  # p<seed>.c: its configuration

    def differs(ls):
        with open(red, "w") as f:
            f.write("\n".join(ls))
        try:
            kind.build(red, exe)
        except subprocess.CalledProcessError:
            return False
        return any(f" {counter}:" in d for d in compare(kind, c_lib, exe, seed))

    if not differs(lines):
        sys.exit(f"{counter} does not differ in {src}")
    i = start
    while i < end:
        if differs(lines[:i] + lines[i + 1:]):
            lines, end = lines[:i] + lines[i + 1:], end - 1
        else:
            i += 1
    differs(lines)
    print("\n".join(lines[start:end]))
    print(f"(kept in {red})")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in KINDS or not (sys.argv[2] == "none" or os.path.exists(sys.argv[2])):
        sys.exit(__doc__)
    kind, c_lib, rest = KINDS[sys.argv[1]], sys.argv[2], sys.argv[3:]
    os.makedirs(kind.work, exist_ok=True)
    if rest[:1] == ["--reduce"]:
        return reduce(kind, c_lib, rest[1], rest[2])
    first, last = (int(rest[0]), int(rest[1])) if len(rest) > 1 else (1, 201)
    calls = int(rest[2]) if len(rest) > 2 and rest[2] else kind.calls
    differing = 0
    for seed in range(first, last):
        diffs = one(kind, c_lib, seed, calls)
        if diffs:
            differing += 1
            print("\n".join(f"seed {seed}: {d}" for d in diffs[:40]), flush=True)
    what = "differ" if c_lib != "none" else "left a file C's readers trip on, or failed"
    print(f"{kind.name}: {last - first} programs of {calls} calls, {differing} {what}")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
