#!/usr/bin/env python3
"""Random Fortran programs (gfortran, free form) for
scripts/differential/run.py fortran: libgfortran's own buffered I/O on up
to 4 files (argv[1]/f0..f3) through units 10-13: sequential, direct and
stream access, formatted and unformatted, every status, action and
position; writes and reads of arrays, lines and list-directed values,
records by number, stream positions; rewind, backspace, endfile, flush,
inquire, close keeping or deleting the file. Every statement carries
iostat=, so an error (a read past the end, a record too long) is the
program's to ignore, as the same error under either library."""
import random
import sys

ACCESS = ["sequential", "direct", "stream"]
SIZES = [1, 7, 64, 1000, 5000]


class Program:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.units = {}  # unit -> (access, form)
        self.lines = []

    def emit(self, line):
        self.lines.append(line)

    def open_one(self, u):
        r = self.r
        access = r.choice(ACCESS)
        form = r.choice(["formatted", "unformatted"])
        status = r.choice(["unknown", "replace", "old", "new", "scratch"] if access != "direct" else ["unknown", "replace", "old"])
        action = r.choice(["readwrite", "readwrite", "read", "write"])
        f = r.randrange(4)
        spec = [f"unit={u}", f"access='{access}'", f"form='{form}'", f"status='{status}'", f"action='{action}'"]
        if status != "scratch":
            spec.append(f"file=trim(dir)//'/f{f}'")
        if access == "direct":
            spec.append(f"recl={r.choice([8, 100, 4096])}")
        elif access == "sequential" and r.random() < 0.4:
            spec.append(f"position='{r.choice(['rewind', 'append', 'asis'])}'")
        self.emit(f"open({', '.join(spec)}, iostat=ios)")
        self.emit(f"if (ios /= 0) ok({u}) = .false.")
        self.emit(f"if (ios == 0) ok({u}) = .true.")
        self.units[u] = (access, form)

    def transfer(self, u, write):
        r = self.r
        access, form = self.units[u]
        n = r.choice(SIZES)
        verb = "write" if write else "read"
        where = ""
        if access == "direct":
            where = f", rec={r.choice([1, 2, 5, 40])}"
        elif access == "stream" and r.random() < 0.4:
            where = f", pos={r.choice([1, 9, 4097, 100000])}"
        if form == "unformatted":
            what = r.choice([f"a(1:{n})", f"c(1:{min(n, 4096)})", "a(1)"])
            self.emit(f"if (ok({u})) {verb}({u}{where}, iostat=ios) {what}")
        elif access == "stream":
            self.emit(f"if (ok({u})) {verb}({u}, '(a)'{where}, iostat=ios) c(1:{min(n, 4096)})")
        else:
            fmt = r.choice(["'(a)'", "'(10f12.4)'"] + (["*"] if access == "sequential" else []))
            what = f"c(1:{min(n, 4096)})" if fmt == "'(a)'" else f"a(1:{min(n, 200)})"
            self.emit(f"if (ok({u})) {verb}({u}, {fmt}{where}, iostat=ios) {what}")

    def other(self, u):
        r = self.r
        access, _ = self.units[u]
        op = r.choice(["rewind", "backspace", "endfile", "flush", "inquire", "close"]
                      if access == "sequential" else ["rewind", "flush", "inquire", "close"])
        if op == "close":
            self.emit(f"if (ok({u})) close({u}, status='{r.choice(['keep', 'keep', 'delete'])}', iostat=ios)")
            self.emit(f"ok({u}) = .false.")
            del self.units[u]
        elif op == "inquire":
            self.emit(f"inquire(file=trim(dir)//'/f{r.randrange(4)}', exist=there, iostat=ios)")
        else:
            self.emit(f"if (ok({u})) {op}({u}, iostat=ios)")

    def body(self, nops):
        r = self.r
        for _ in range(nops):
            u = 10 + r.randrange(4)
            if u not in self.units:
                self.open_one(u)
            elif r.random() < 0.75:
                self.transfer(u, r.random() < 0.55)
            else:
                self.other(u)
        if r.random() < 0.5:  # else left to the runtime's exit
            for u in list(self.units):
                self.emit(f"if (ok({u})) close({u}, iostat=ios)")
        return "\n  ".join(self.lines)


PROLOGUE = """program p
  implicit none
  character(len=4096) :: dir, c
  double precision :: a(5000)
  logical :: ok(10:13), there
  integer :: ios, i
  call get_command_argument(1, dir)
  ok = .false.
  do i = 1, 5000
    a(i) = i * 0.5d0
  end do
  do i = 1, 4096
    c(i:i) = achar(97 + mod(i, 26))
  end do
"""


def gen(seed, nops=60):
    # The "calls" marks bound the body for run.py's --reduce.
    return PROLOGUE + "  ! calls\n  " + Program(seed).body(nops) + "\n  ! calls\nend program p\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 60))
