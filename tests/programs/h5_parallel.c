/* A parallel HDF5 program with a known pattern (ffi/tests/hdf5_mpi.rs):
 * every rank opens <dir>/p.h5 with the MPI-IO driver, creates dataset
 * "rows" (NP*4 x 16 doubles, contiguous), writes its 4 rows collectively
 * (one regular hyperslab of 512 bytes) and reads them back independently;
 * then rank 0 alone reopens the file with the default (sec2) driver and
 * reads the whole dataset (H5S_ALL, NP*512 bytes) and checks every value.
 * Built with mpicc against Debian's Open MPI HDF5 (shared). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 4
#define COLS 16

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        fprintf(stderr, "usage: h5_parallel <dir>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/p.h5", argv[1]);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    hsize_t dims[2] = {(hsize_t)np * ROWS, COLS};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "rows", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

    double mine[ROWS][COLS], back[ROWS][COLS];
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) mine[i][j] = (rank * ROWS + i) * 1000.0 + j;
    hsize_t start[2] = {(hsize_t)rank * ROWS, 0}, count[2] = {ROWS, COLS};
    hid_t slab = H5Scopy(space);
    H5Sselect_hyperslab(slab, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t memspace = H5Screate_simple(2, count, NULL);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);
    int bad = H5Dwrite(dset, H5T_NATIVE_DOUBLE, memspace, slab, coll, mine) < 0;
    bad |= H5Dread(dset, H5T_NATIVE_DOUBLE, memspace, slab, H5P_DEFAULT, back) < 0;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++) bad |= back[i][j] != mine[i][j];
    H5Pclose(coll);
    H5Sclose(memspace);
    H5Sclose(slab);
    H5Sclose(space);
    H5Dclose(dset);
    H5Fclose(file);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        double *all = malloc(sizeof(double) * np * ROWS * COLS);
        file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        dset = H5Dopen2(file, "rows", H5P_DEFAULT);
        bad |= H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0;
        for (int k = 0; k < np * ROWS * COLS; k++) bad |= all[k] != (k / COLS) * 1000.0 + k % COLS;
        H5Dclose(dset);
        H5Fclose(file);
        free(all);
    }
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) puts(any ? "bad" : "ok");
    MPI_Finalize();
    return any;
}
