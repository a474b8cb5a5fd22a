#!/usr/bin/env python3
"""Random NetCDF-4 programs (C source) for scripts/differential/run.py
netcdf4: seeded. NetCDF-4 files are HDF5 files that libnetcdf writes
through HDF5's API, as climate and weather codes write theirs: what the
H5F, H5D and POSIX records of C Darshan and ours say of the same calls.
Up to 2 files, each with a fixed dimension and an unlimited one, and up
to 3 variables (int or double, over the fixed dimension, the unlimited
one or both; contiguous, chunked or compressed), written and read by
vara, vars (strided) and var1 calls, with syncs, attributes, define
mode entered again, files closed and opened again (variables looked up
by name then). A file opened again is only synced and closed: we count
the reads and writes of its variables and C Darshan 3.5.0 does not
(libnetcdf's second reference to each dataset, docs/runtime.md), which
ffi/tests/hdf5.rs checks against a known pattern."""
import random
import sys

TYPES = [("int", "NC_INT"), ("double", "NC_DOUBLE")]
FIXED = 40  # the length of every file's fixed dimension "x"


class Program:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.open = {}  # file -> in define mode
        self.reopened = set()  # files opened again (only synced and closed)
        self.made = set()  # files created in this run (so they can be opened)
        self.vars = {}  # (file, k) -> (dims, type) once defined; dims over "t" (unlimited) and/or "x"
        self.records = {}  # file -> records written along "t"
        self.lines = []

    def emit(self, line):
        self.lines.append(line)

    def create(self, f):
        self.emit(f"E(nc_create(name({f}), NC_NETCDF4 | NC_CLOBBER, &nc[{f}])); "
                  f"E(nc_def_dim(nc[{f}], \"x\", {FIXED}, &dx[{f}])); "
                  f"E(nc_def_dim(nc[{f}], \"t\", NC_UNLIMITED, &dt[{f}]));")
        self.open[f] = True
        self.reopened.discard(f)
        self.made.add(f)
        self.records[f] = 0
        for key in [x for x in self.vars if x[0] == f]:
            del self.vars[key]

    def reopen(self, f):
        mode = self.r.choice(["NC_WRITE", "NC_NOWRITE", "NC_WRITE"])
        self.emit(f"E(nc_open(name({f}), {mode}, &nc[{f}])); E(nc_inq_dimid(nc[{f}], \"x\", &dx[{f}])); "
                  f"E(nc_inq_dimid(nc[{f}], \"t\", &dt[{f}]));")
        for (ff, k) in self.vars:
            if ff == f:
                self.emit(f"E(nc_inq_varid(nc[{f}], \"v{k}\", &v[{f}][{k}]));")
        self.open[f] = False
        self.reopened.add(f)

    def define(self, f, k):
        r = self.r
        if not self.open[f]:
            self.emit(f"E(nc_redef(nc[{f}]));")
            self.open[f] = True
        dims = r.choice([("x",), ("t",), ("t", "x")])
        ctype, nctype = r.choice(TYPES)
        ids = ", ".join(f"d{d}[{f}]" for d in dims)
        line = f"{{ int ids[] = {{{ids}}}; E(nc_def_var(nc[{f}], \"v{k}\", {nctype}, {len(dims)}, ids, &v[{f}][{k}])); }}"
        storage = r.choice(["default", "chunked", "deflate"] + ([] if "t" in dims else ["contiguous"]))
        if storage == "chunked":
            c = ", ".join(str(r.choice([1, 4, 10]) if d == "t" else r.choice([5, 10, FIXED])) for d in dims)
            line += f" {{ size_t c[] = {{{c}}}; E(nc_def_var_chunking(nc[{f}], v[{f}][{k}], NC_CHUNKED, c)); }}"
        elif storage == "contiguous":
            line += f" E(nc_def_var_chunking(nc[{f}], v[{f}][{k}], NC_CONTIGUOUS, NULL));"
        elif storage == "deflate":
            line += f" E(nc_def_var_deflate(nc[{f}], v[{f}][{k}], {r.randint(0, 1)}, 1, {r.randint(1, 5)}));"
        if r.random() < 0.3:
            line += f" E(nc_put_att_text(nc[{f}], v[{f}][{k}], \"units\", 5, \"m s-1\"));"
        self.emit(line)
        self.vars[(f, k)] = (dims, ctype)

    def enddef(self, f):
        if self.open[f]:
            self.emit(f"E(nc_enddef(nc[{f}]));")
            self.open[f] = False

    def extent(self, f, dims, write):
        """start and count of an access to a variable over `dims`."""
        r, start, count = self.r, [], []
        for d in dims:
            if d == "x":
                s = r.randrange(FIXED)
                start.append(s)
                count.append(r.randint(1, FIXED - s))
            else:
                have = self.records[f]
                if write:
                    s = r.randint(0, have + 2)
                    start.append(s)
                    count.append(r.randint(1, 4))
                    self.records[f] = max(have, s + count[-1])
                elif have == 0:
                    return None
                else:
                    s = r.randrange(have)
                    start.append(s)
                    count.append(r.randint(1, have - s))
        return start, count

    def io(self, f, k):
        r = self.r
        dims, ctype = self.vars[(f, k)]
        self.enddef(f)
        write = r.random() < 0.6
        ext = self.extent(f, dims, write)
        if ext is None:
            return
        start, count = ext
        op = "put" if write else "get"
        s, c = ", ".join(map(str, start)), ", ".join(map(str, count))
        how = r.choice(["vara", "vara", "vars", "var1"])
        buf = "ib" if ctype == "int" else "db"
        call = f"{{ size_t s[] = {{{s}}}, c[] = {{{c}}}; "
        if how == "vara":
            call += f"E(nc_{op}_vara_{ctype}(nc[{f}], v[{f}][{k}], s, c, {buf})); }}"
        elif how == "var1":
            call += f"(void)c; E(nc_{op}_var1_{ctype}(nc[{f}], v[{f}][{k}], s, {buf})); }}"
        else:
            strides = [1 if cc == 1 else r.choice([1, 2]) for cc in count]
            st = ", ".join(map(str, strides))
            cs = ", ".join(str(-(-cc // sd)) for cc, sd in zip(count, strides))
            call += (f"ptrdiff_t st[] = {{{st}}}; size_t cs[] = {{{cs}}}; (void)c; "
                     f"E(nc_{op}_vars_{ctype}(nc[{f}], v[{f}][{k}], s, cs, st, {buf})); }}")
        self.emit(call)

    def step(self):
        r = self.r
        f, k = r.randrange(2), r.randrange(3)
        if f not in self.open:
            return self.reopen(f) if f in self.made and r.random() < 0.6 else self.create(f)
        if f in self.reopened:
            return self.close(f) if r.random() < 0.3 else self.emit(f"E(nc_sync(nc[{f}]));")
        if (f, k) not in self.vars:
            return self.define(f, k)
        x = r.random()
        if x < 0.06:
            self.emit(f"E(nc_sync(nc[{f}]));")
        elif x < 0.12:
            self.close(f)
        else:
            self.io(f, k)

    def close(self, f):
        self.emit(f"E(nc_close(nc[{f}]));")
        del self.open[f]

    def body(self, nops):
        for _ in range(nops):
            self.step()
        for f in list(self.open):
            self.close(f)
        return "\n    ".join(self.lines)


# E(): a call's error is printed, not fatal: both libraries see the same
# calls either way (a read past the records written, a write to a file
# opened read-only).
PROLOGUE = """#include <netcdf.h>
#include <stdio.h>
#include <stddef.h>
static char dir[4096];
static char names[2][4200];
static const char *name(int k) { snprintf(names[k], sizeof names[k], "%s/n%d.nc", dir, k); return names[k]; }
static int ib[100000];
static double db[100000];
static int errors;
#define E(x) do { int e_ = (x); if (e_) errors++; } while (0)
int main(int argc, char **argv) {
    int nc[2], dx[2], dt[2], v[2][3];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    for (int i = 0; i < 100000; i++) { ib[i] = i; db[i] = i * 0.5; }
"""


def gen(seed, nops=40):
    # The marks bound the body for run.py's --reduce.
    body = Program(seed).body(nops)
    return PROLOGUE + "    /* calls */\n    " + body + "\n    /* calls */\n    printf(\"%d errors\\n\", errors);\n    return 0;\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
