#!/usr/bin/env python3
"""Random HDF5 programs (C source) for scripts/differential/run.py --hdf5:
seeded. Up to 2 files of up to 3 datasets each (1 to 3 dimensions,
contiguous or chunked, int, double or char), written and read whole, by
regular and irregular hyperslabs, by points and by nothing."""
import math
import random
import sys

TYPES = [("H5T_NATIVE_INT", 4), ("H5T_NATIVE_DOUBLE", 8), ("H5T_NATIVE_CHAR", 1)]


class Program:
    FAPL = "H5P_DEFAULT"  # the file access property list files are opened with

    def __init__(self, seed):
        self.r = random.Random(seed)
        self.files = {}  # file slot -> open
        self.dsets = {}  # (file, k) -> (dims, type) once created
        self.open = {}  # (file, k) -> True while open
        self.lines = []

    def emit(self, line):
        self.lines.append(line)

    def dims(self):
        """At most 100,000 elements (the program's buffer holds them)."""
        r = self.r
        while True:
            d = [r.choice([1, 3, 10, 64, 100, 1000]) for _ in range(r.randint(1, 3))]
            if math.prod(d) <= 100_000:
                return d

    def hyperslab(self, dims):
        """start, stride, count, block within `dims`."""
        r, parts = self.r, []
        for d in dims:
            block = r.randint(1, max(1, min(d, 4)))
            stride = block + r.choice([0, 0, 1, 3])
            count = r.randint(1, max(1, (d - block) // stride + 1))
            start = r.randint(0, d - ((count - 1) * stride + block))
            parts.append((start, stride, count, block))
        return parts

    def select(self, ds, dims):
        """C statements choosing a file space `fs` and memory space `ms`."""
        r, n = self.r, len(dims)
        kind = r.choice(["all", "regular", "irregular", "points", "none", "regular"])
        if kind == "all":
            return "fs = H5S_ALL; ms = H5S_ALL;", kind
        lines = f"fs = H5Dget_space({ds}); "
        if kind in ("regular", "irregular"):
            slabs = [self.hyperslab(dims)] + ([self.hyperslab(dims)] if kind == "irregular" else [])
            for j, sl in enumerate(slabs):
                arr = lambda i: "{" + ", ".join(str(p[i]) for p in sl) + "}"
                op = "H5S_SELECT_SET" if j == 0 else "H5S_SELECT_OR"
                lines += (f"{{ hsize_t a[] = {arr(0)}, s[] = {arr(1)}, c[] = {arr(2)}, b[] = {arr(3)}; "
                          f"H5Sselect_hyperslab(fs, {op}, a, s, c, b); }} ")
        elif kind == "points":
            k = r.randint(1, 5)
            pts = ", ".join(str(r.randrange(d)) for _ in range(k) for d in dims)
            lines += f"{{ hsize_t p[] = {{{pts}}}; H5Sselect_elements(fs, H5S_SELECT_SET, {k}, p); }} "
        else:
            lines += "H5Sselect_none(fs); "
        lines += "{ hsize_t m = H5Sget_select_npoints(fs); ms = H5Screate_simple(1, &m, NULL); if (m == 0) H5Sselect_none(ms); }"
        return lines, kind

    def create(self, f, k):
        r = self.r
        dims = self.dims()
        t, _ = r.choice(TYPES)
        d = ", ".join(map(str, dims))
        chunk = r.random() < 0.5
        plist = "H5P_DEFAULT"
        pre = f"{{ hsize_t d[] = {{{d}}}; hid_t sp = H5Screate_simple({len(dims)}, d, NULL); hid_t pl = H5Pcreate(H5P_DATASET_CREATE); "
        if chunk:
            c = ", ".join(str(max(1, x // r.choice([1, 2, 4]))) for x in dims)
            pre += f"{{ hsize_t c[] = {{{c}}}; H5Pset_chunk(pl, {len(dims)}, c); }} "
        self.emit(pre + f"ds[{f}][{k}] = H5Dcreate2(fl[{f}], \"d{k}\", {t}, sp, H5P_DEFAULT, pl, H5P_DEFAULT); "
                        f"H5Pclose(pl); H5Sclose(sp); }}")
        self.dsets[(f, k)] = (dims, t)
        self.open[(f, k)] = True

    def io(self, f, k):
        dims, t = self.dsets[(f, k)]
        sel, kind = self.select(f"ds[{f}][{k}]", dims)
        call = self.r.choice(["H5Dwrite", "H5Dread"])
        close = "" if kind == "all" else " H5Sclose(fs); H5Sclose(ms);"
        self.emit(f"{{ hid_t fs, ms; {sel} {call}(ds[{f}][{k}], {t}, ms, fs, H5P_DEFAULT, buf);{close} }}")

    def step(self):
        r = self.r
        f, k = r.randrange(2), r.randrange(3)
        if f not in self.files:
            if any(ff == f for ff, _ in self.dsets) and r.random() < 0.7:
                self.emit(f"fl[{f}] = H5Fopen(name({f}), {r.choice(['H5F_ACC_RDWR', 'H5F_ACC_RDONLY'])}, {self.FAPL});")
            else:
                self.emit(f"fl[{f}] = H5Fcreate(name({f}), H5F_ACC_TRUNC, H5P_DEFAULT, {self.FAPL});")
                for key in [x for x in self.dsets if x[0] == f]:
                    del self.dsets[key]
            self.files[f] = True
            return
        if (f, k) not in self.dsets:
            return self.create(f, k)
        if not self.open.get((f, k)):
            self.emit(f"ds[{f}][{k}] = H5Dopen2(fl[{f}], \"d{k}\", H5P_DEFAULT);")
            self.open[(f, k)] = True
            return
        x = r.random()
        if x < 0.1:
            self.emit(f"H5Dclose(ds[{f}][{k}]);")
            self.open[(f, k)] = False
        elif x < 0.15:
            self.emit(f"H5Fflush(fl[{f}], H5F_SCOPE_LOCAL);")
        elif x < 0.2:
            self.close_file(f)
        else:
            self.io(f, k)

    def close_file(self, f):
        for (ff, k), is_open in list(self.open.items()):
            if ff == f and is_open:
                self.emit(f"H5Dclose(ds[{f}][{k}]);")
                self.open[(ff, k)] = False
        self.emit(f"H5Fclose(fl[{f}]);")
        del self.files[f]

    def body(self, nops):
        for _ in range(nops):
            self.step()
        for f in list(self.files):
            self.close_file(f)
        return "\n    ".join(self.lines)


PROLOGUE = """#include <hdf5.h>
#include <stdio.h>
#include <string.h>
static char dir[4096];
static char names[2][4200];
static const char *name(int k) { snprintf(names[k], sizeof names[k], "%s/h%d.h5", dir, k); return names[k]; }
static double buf[100000];
int main(int argc, char **argv) {
    hid_t fl[2], ds[2][3];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    memset(buf, 1, sizeof buf);
"""


def gen(seed, nops=40):
    return PROLOGUE + "    " + Program(seed).body(nops) + "\n    return 0;\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
