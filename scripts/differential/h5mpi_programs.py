#!/usr/bin/env python3
"""Random parallel HDF5 programs (C source) for scripts/differential/run.py
h5mpi: h5_programs.py's datasets, the files opened with the MPI-IO driver
on every rank (the same calls on each, so collectives match), each rank
reading and writing its own rows, independently or collectively."""
import sys

import h5_programs


class Program(h5_programs.Program):
    FAPL = "fapl()"

    def dims(self):
        """As h5_programs', at least 4 rows: a row of each rank's own."""
        d = super().dims()
        return [max(4, d[0]) - max(4, d[0]) % 4] + d[1:]

    def hyperslab(self, dims):
        """h5_programs' selection, its rows one row of this rank's quarter."""
        parts = super().hyperslab(dims)
        rows = dims[0] // 4
        parts[0] = (f"rank * {rows} + {parts[0][0] % rows}", 1, 1, 1)
        return parts

    def io(self, f, k):
        dims, t = self.dsets[(f, k)]
        sel, kind = self.select(f"ds[{f}][{k}]", dims)
        if kind in ("points", "all"):  # the same elements from every rank: writes race
            return
        call = self.r.choice(["H5Dwrite", "H5Dread"])
        dxpl = self.r.choice(["H5P_DEFAULT", "coll", "indep"])
        # Every rank's call done before the next: a read of rows no rank
        # has written yet returns what the file's end allows, which
        # another rank's write moves, so without the barrier C's own
        # counts differ from run to run (seed 71016: 0 to 288 bytes).
        self.emit(f"{{ hid_t fs, ms; {sel} {call}(ds[{f}][{k}], {t}, ms, fs, {dxpl}, buf); H5Sclose(fs); H5Sclose(ms); }}"
                  " MPI_Barrier(MPI_COMM_WORLD);")


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
    body = Program(seed).body(nops)
    return PROLOGUE + "    " + body + "\n    H5Pclose(coll); H5Pclose(indep);\n    MPI_Finalize();\n    return 0;\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 40))
