#!/usr/bin/env python3
"""dxt_analyzer.py: C Darshan's name and options for a picture of a job's
DXT trace: a bar for each write (or, with --read, each read) of every
rank over the run's time, MPI-IO's in blue and POSIX's in red, saved as
a PDF (or shown, with --show).

    dxt_analyzer.py -i TRACE [-o PLOT.pdf] [--show] [--read] [--filemode -f FILE]

TRACE is darshan-dxt-parser's output, as for C Darshan's script; a Darshan
log is read through the darshan-dxt-parser beside this script. The PDF
goes to PLOT.pdf, by default dxt_plot.pdf, titled
`<jobid>_<WRITE|READ>_activity` (with the file's last path part in file
mode), as C's was.

The columns are found by the table's heading line, so every layout
darshan-dxt-parser prints is read: C Darshan 3.5.0's script took the
MPI-IO lines' offset column for their length, and their length for their
start time. Needs matplotlib (PyDarshan depends on it).
"""

import argparse
import math
import os
import stat
import subprocess
import sys

DEFAULT_OUTPUT = "dxt_plot.pdf"


class Trace:
    """What a darshan-dxt-parser output holds for the picture: the job
    id and each segment as (module, rank, "read"/"write", start, end,
    file name)."""

    def __init__(self):
        self.jobid = "NO_JOBID"
        self.segments = []


def parse(lines):
    """A Trace from darshan-dxt-parser's output lines."""
    t = Trace()
    fname, columns = "", None
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("# jobid: "):
            t.jobid = line[len("# jobid: "):].strip()
        elif line.startswith("# DXT, file_id: ") and ", file_name: " in line:
            fname = line.split(", file_name: ", 1)[1]
        elif line.startswith("# Module"):
            columns = {name: k for k, name in enumerate(line[1:].split())}
        elif columns is not None and line.startswith(" X_"):
            seg = segment(line.split(), columns, fname)
            if seg is not None:
                t.segments.append(seg)
    return t


def segment(fields, columns, fname):
    """One table row as a segment (None if it is not one)."""
    try:
        module = fields[columns["Module"]][2:]
        rank = int(fields[columns["Rank"]])
        action = fields[columns["Wt/Rd"]]
        start = float(fields[columns["Start(s)"]])
        end = float(fields[columns["End(s)"]])
    except (KeyError, IndexError, ValueError):
        return None
    if action not in ("read", "write") or not (math.isfinite(start) and math.isfinite(end)):
        return None
    return (module, rank, action, start, end, fname)


def read_trace(path, here):
    """The Trace of `path`: darshan-dxt-parser's output, or a log read
    through the darshan-dxt-parser beside this script (else on PATH)."""
    # Never waits on a FIFO or a device: a regular file or nothing.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{path}: not a regular file")
    with os.fdopen(fd, "rb") as f:
        if f.read(9) == b"# darshan":
            f.seek(0)
            return parse(line.decode("utf-8", "replace") for line in f)
    parser = os.path.join(here, "darshan-dxt-parser")
    if not os.access(parser, os.X_OK):
        parser = "darshan-dxt-parser"
    try:
        r = subprocess.run([parser, "--show-incomplete", path], capture_output=True)
    except OSError as e:
        raise ValueError(f"{path} is not darshan-dxt-parser output, and {parser} cannot be run: {e.strerror}")
    if r.returncode != 0:
        raise ValueError(f"{path}: neither darshan-dxt-parser output nor a log it reads")
    return parse(r.stdout.decode("utf-8", "replace").splitlines())


def draw(trace, action, fname, out, show):
    """The bars of `action` ("write"/"read"), of file `fname` or every
    file, drawn and saved to `out` (or shown)."""
    import matplotlib
    if not show:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(dpi=150)
    for module, colour in (("MPIIO", "blue"), ("POSIX", "red")):
        per_rank = {}
        for m, rank, a, start, end, f in trace.segments:
            if m == module and a == action and (fname is None or f == fname):
                per_rank.setdefault(rank, []).append((start, end - start))
        for k, (rank, bars) in enumerate(sorted(per_rank.items())):
            ax.broken_barh(bars, (rank - 0.5, 1.0), facecolors=colour, edgecolors=colour,
                           label=module if k == 0 else None)
    ax.autoscale()
    what = action.upper()
    title = f"{trace.jobid}_{what}_activity" if fname is None else \
        f"{trace.jobid}_{fname.rstrip('/').split('/')[-1]}_{what}_activity"
    # A file's name is shown as it is: never read as math text ($...$),
    # its control characters escaped.
    ax.set_title("".join(c if c.isprintable() else repr(c)[1:-1] for c in title), parse_math=False)
    ax.set_ylabel("MPI rank")
    ax.set_xlabel("Time (s)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    if show:
        plt.show()
    else:
        fig.savefig(out, format="pdf")
    plt.close(fig)


def main(argv):
    p = argparse.ArgumentParser(description="io activity plot from dxt log")
    p.add_argument("-i", "--input", dest="dxt_logname", required=True,
                   help="darshan-dxt-parser output (or a Darshan log)")
    p.add_argument("-o", "--save", dest="savefig", default=DEFAULT_OUTPUT,
                   help=f"output file name for the plot (default {DEFAULT_OUTPUT})")
    p.add_argument("--show", action="store_true", help="Show the plot rather than saving to a PDF")
    p.add_argument("--read", action="store_true", help="READ I/O action to be plotted (default WRITE)")
    p.add_argument("--filemode", action="store_true", help="Single file mode (with --fname)")
    p.add_argument("-f", "--fname", help="name of file to be plotted (with --filemode)")
    args = p.parse_args(argv)
    if args.filemode and not args.fname:
        p.error("--filemode needs --fname")
    try:
        trace = read_trace(args.dxt_logname, os.path.dirname(os.path.realpath(__file__)))
    except (OSError, ValueError) as e:
        print(f"dxt_analyzer.py: {e}", file=sys.stderr)
        return 1
    fname = args.fname if (args.filemode or args.fname) else None
    if fname is not None and not any(s[5] == fname for s in trace.segments):
        print(f"dxt_analyzer.py: no DXT segments of {fname!r} in {args.dxt_logname}", file=sys.stderr)
        return 1
    try:
        draw(trace, "read" if args.read else "write", fname, args.savefig, args.show)
    except OSError as e:
        print(f"dxt_analyzer.py: {args.savefig}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
