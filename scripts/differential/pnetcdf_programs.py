#!/usr/bin/env python3
"""Random PnetCDF programs (C source) for scripts/differential/run.py
pnetcdf: seeded, the same calls on every rank (so collectives match),
each rank's part of a variable its own. Up to 2 files of up to 3
variables (1 to 3 dimensions, int or double), written and read whole or
by rank (vara), by element (var1), strided (vars), in collective and
independent data mode, blocking and non-blocking (iput/iget + wait_all)."""
import random
import sys

TYPES = [("int", "NC_INT"), ("double", "NC_DOUBLE")]


class Program:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.files = {}  # slot -> 'define' | 'coll' | 'indep'
        self.vars = {}  # (file, k) -> (dims, ctype)
        self.made = set()  # files that exist
        # varid -> the ranks its variables had in any file: Darshan finds a
        # variable by its varid alone, so an access can count for another
        # file's variable of that varid (compared: we find the same one),
        # and where their ranks differ C reads past the program's count
        # array (docs/runtime.md: we do not); such varids are not accessed.
        self.ranks = {}
        self.lines = []

    def emit(self, line):
        self.lines.append(line)

    def define(self, f):
        """Variables of a new file: dims[0] grows with the rank count."""
        r = self.r
        for k in range(r.randint(1, 3)):
            dims = [r.choice([1, 4, 10, 100])] + [r.choice([1, 3, 8, 50]) for _ in range(r.randint(0, 2))]
            ctype, nctype = r.choice(TYPES)
            names = []
            for j, d in enumerate(dims):
                size = f"nprocs * {d}" if j == 0 else str(d)
                self.emit(f"ncmpi_def_dim(nc[{f}], \"d{k}_{j}\", {size}, &dm[{j}]);")
                names.append(f"dm[{j}]")
            self.emit(f"ncmpi_def_var(nc[{f}], \"v{k}\", {nctype}, {len(dims)}, dm, &vr[{f}][{k}]);")
            self.vars[(f, k)] = (dims, ctype)
            self.ranks.setdefault(k, set()).add(len(dims))
        self.emit(f"ncmpi_enddef(nc[{f}]);")
        self.files[f] = "coll"

    def region(self, dims):
        """start and count of this rank's block (dimension 0 by rank)."""
        r = self.r
        starts, counts = [], []
        for j, d in enumerate(dims):
            c = r.randint(1, d)
            s = r.randint(0, d - c)
            starts.append(f"rank * {d} + {s}" if j == 0 else str(s))
            counts.append(str(c))
        return starts, counts

    def access(self, f, k):
        r = self.r
        dims, ctype = self.vars[(f, k)]
        mode = self.files[f]
        coll = "_all" if mode == "coll" else ""
        op = r.choice(["put", "get"])
        kind = r.choice(["vara", "vara", "var1", "vars", "var", "ivara"])
        starts, counts = self.region(dims)
        n = len(dims)
        st = "{" + ", ".join(starts) + "}"
        ct = "{" + ", ".join(counts) + "}"
        v = f"nc[{f}], vr[{f}][{k}]"
        b = f"({ctype} *)buf"
        if kind == "vara":
            call = f"ncmpi_{op}_vara_{ctype}{coll}({v}, s, c, {b})"
        elif kind == "var1":
            call = f"ncmpi_{op}_var1_{ctype}{coll}({v}, s, {b})"
        elif kind == "vars":
            strides = "{" + ", ".join("1" for _ in dims) + "}"
            call = f"{{ MPI_Offset d[] = {strides}; ncmpi_{op}_vars_{ctype}{coll}({v}, s, c, d, {b}); }}"
        elif kind == "var":
            if mode != "coll" or op == "put":
                return self.emit(f"ncmpi_{op}_var_{ctype}{coll}({v}, {b});") if mode != "coll" else None
            call = f"ncmpi_get_var_{ctype}_all({v}, {b})"
        else:
            call = (f"{{ int q, e; ncmpi_i{op}_vara_{ctype}({v}, s, c, {b}, &q); "
                    f"ncmpi_wait{coll}(nc[{f}], 1, &q, &e); }}")
        self.emit(f"{{ MPI_Offset s[] = {st}, c[] = {ct}; {call}; }}" if n else call)

    def step(self):
        r = self.r
        f = r.randrange(2)
        if f not in self.files:
            if f in self.made and r.random() < 0.6:
                self.emit(f"ncmpi_open(MPI_COMM_WORLD, name({f}), {r.choice(['NC_WRITE', 'NC_NOWRITE'])}, "
                          f"{r.choice(['MPI_INFO_NULL', 'info'])}, &nc[{f}]);")
                for (ff, k) in self.vars:
                    if ff == f:
                        self.emit(f"ncmpi_inq_varid(nc[{f}], \"v{k}\", &vr[{f}][{k}]);")
                self.files[f] = "coll"
            else:
                self.emit(f"ncmpi_create(MPI_COMM_WORLD, name({f}), NC_CLOBBER{r.choice(['', ' | NC_64BIT_DATA'])}, "
                          f"{r.choice(['MPI_INFO_NULL', 'info'])}, &nc[{f}]);")
                for key in [x for x in self.vars if x[0] == f]:
                    del self.vars[key]
                self.made.add(f)
                self.define(f)
            return
        x = r.random()
        if x < 0.08:
            self.emit(f"ncmpi_close(nc[{f}]);")
            del self.files[f]
        elif x < 0.16:
            to = "indep" if self.files[f] == "coll" else "coll"
            self.emit(f"ncmpi_{'begin' if to == 'indep' else 'end'}_indep_data(nc[{f}]);")
            self.files[f] = to
        elif x < 0.2:
            self.emit(f"ncmpi_sync(nc[{f}]);")
        else:
            ks = [k for (ff, k) in self.vars if ff == f and len(self.ranks[k]) == 1]
            if ks:
                self.access(f, r.choice(ks))

    def body(self, nops):
        for _ in range(nops):
            self.step()
            self.emit("MPI_Barrier(MPI_COMM_WORLD);")
        for f in list(self.files):
            self.emit(f"ncmpi_close(nc[{f}]);")
        return "\n    ".join(self.lines)


PROLOGUE = """#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <string.h>
static char dir[4096];
static char names[2][4200];
static const char *name(int k) { snprintf(names[k], sizeof names[k], "%s/n%d.nc", dir, k); return names[k]; }
static double buf[1500000];
int main(int argc, char **argv) {
    int rank, nprocs, nc[2], vr[2][3], dm[3];
    MPI_Info info;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Info_create(&info);
    MPI_Info_set(info, "nc_header_align_size", "512");
    snprintf(dir, sizeof dir, "%s", argv[1]);
    memset(buf, 0, sizeof buf);
"""


def gen(seed, nops=40):
    return PROLOGUE + "    " + Program(seed).body(nops) + "\n    MPI_Info_free(&info);\n    MPI_Finalize();\n    return 0;\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
