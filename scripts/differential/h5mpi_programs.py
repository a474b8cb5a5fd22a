#!/usr/bin/env python3
"""Random parallel HDF5 programs (C source) for scripts/differential/run.py
h5mpi: h5_programs.py's datasets, the files opened with the MPI-IO driver
on every rank (the same calls on each, so collectives match), each rank
reading and writing its own rows, independently or collectively."""
import sys

import h5_programs


class Program(h5_programs.Program):
    def dims(self):
        """As h5_programs', at least 4 rows: a row of each rank's own."""
        d = super().dims()
        return [max(4, d[0]) - max(4, d[0]) % 4] + d[1:]

    def hyperslab(self, dims):
        """This rank's block of rows (dimension 0 split over 4 ranks)."""
        parts = super().hyperslab(dims)
        return [("rank * {} + {}".format(max(1, dims[0] // 4), p[0] % max(1, dims[0] // 4)) if j == 0 else p[0],
                 1, 1 if j == 0 else p[2], 1 if j == 0 else p[3]) if j == 0 else p for j, p in enumerate(parts)]

    def io(self, f, k):
        dims, t = self.dsets[(f, k)]
        sel, kind = self.select(f"ds[{f}][{k}]", dims)
        if kind in ("points", "all"):  # the same elements from every rank: writes race
            return
        call = self.r.choice(["H5Dwrite", "H5Dread"])
        dxpl = self.r.choice(["H5P_DEFAULT", "coll", "indep"])
        self.emit(f"{{ hid_t fs, ms; {sel} {call}(ds[{f}][{k}], {t}, ms, fs, {dxpl}, buf); H5Sclose(fs); H5Sclose(ms); }}")


PROLOGUE = """#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
static char dir[4096];
static char names[2][4200];
static const char *name(int k) { snprintf(names[k], sizeof names[k], "%s/h%d.h5", dir, k); return names[k]; }
static double buf[100000];
static hid_t fapl() { hid_t p = H5Pcreate(H5P_FILE_ACCESS); H5Pset_fapl_mpio(p, MPI_COMM_WORLD, MPI_INFO_NULL); return p; }
int main(int argc, char **argv) {
    int rank;
    hid_t fl[2], ds[2][3], coll, indep;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    coll = H5Pcreate(H5P_DATASET_XFER); H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);
    indep = H5Pcreate(H5P_DATASET_XFER); H5Pset_dxpl_mpio(indep, H5FD_MPIO_INDEPENDENT);
    snprintf(dir, sizeof dir, "%s", argv[1]);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    memset(buf, 1, sizeof buf);
"""


def gen(seed, nops=40):
    body = Program(seed).body(nops).replace("H5P_DEFAULT);", "fapl());", 0)
    body = body.replace("H5Fopen(name", "H5Fopen(name").replace(", H5P_DEFAULT);\n", ", H5P_DEFAULT);\n")
    body = "\n    ".join(l.replace("H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)", "H5F_ACC_TRUNC, H5P_DEFAULT, fapl())")
                           .replace("H5F_ACC_RDWR, H5P_DEFAULT)", "H5F_ACC_RDWR, fapl())")
                           .replace("H5F_ACC_RDONLY, H5P_DEFAULT)", "H5F_ACC_RDONLY, fapl())")
                           for l in body.split("\n    "))
    return PROLOGUE + "    " + body + "\n    H5Pclose(coll); H5Pclose(indep);\n    MPI_Finalize();\n    return 0;\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
