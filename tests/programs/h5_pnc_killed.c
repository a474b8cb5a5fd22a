/* An MPI job that does HDF5 and PnetCDF I/O which differs from rank to
 * rank, then hangs until it is killed: its ranks' crash-safe files hold
 * per-rank H5F, H5D, PNETCDF_FILE and PNETCDF_VAR records for
 * darshan-merge --shared-redux to combine (tests/c-darshan/writer/
 * make-ranks.sh makes the writer cases' inputs with it).
 *
 * On each rank r of NP:
 * shared.h5 (MPI-IO driver): dataset "rows" (NP*4 x 16 doubles): NP
 *   collective writes, the first r+1 of row slab r (4 x 16), the others
 *   of nothing; then r independent reads of the slab; dataset "tail" (NP*64 ints): one write of (r+1)*8 ints at
 *   r*64, then a read of 8 ints (so the ranks' access tuples differ in
 *   size and count).
 * rank 0 only, afterwards: solo.h5 (default driver), dataset "one" of
 *   32 ints written once: a record only rank 0 has.
 * shared.nc: variables grid (int, NP x 10): NP put_vara_int_all, the
 *   first r+1 of row r, the others of no values; temp (float record variable, time x NP x 10):
 *   put_vara_float of (r+1) records of row r, independently.
 * rank 0 only: solo.nc (MPI_COMM_SELF), variable v (int, 5) written
 *   once.
 * Then a barrier, "ready" from rank 0, and a sleep that the launcher's
 * time limit ends; with "finish" after <dir>, MPI_Finalize instead.
 * usage: h5_pnc_killed <dir> [finish] */
#include <hdf5.h>
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROWS 4
#define COLS 16
#define X 10

static void ok(int failed, const char *what)
{
    if (failed) {
        fprintf(stderr, "h5_pnc_killed: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void rows(hid_t file, int rank, int np)
{
    hsize_t dims[2] = {(hsize_t)np * ROWS, COLS}, start[2] = {(hsize_t)rank * ROWS, 0}, count[2] = {ROWS, COLS};
    double buf[ROWS * COLS];
    for (int i = 0; i < ROWS * COLS; i++) buf[i] = rank * 1000 + i;
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t set = H5Dcreate2(file, "rows", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok(set < 0, "H5Dcreate2 rows");
    hid_t mem = H5Screate_simple(2, count, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);
    /* Collective calls: every rank makes the most rank's count of them,
     * the extra ones selecting nothing. */
    for (int i = 0; i < np; i++) {
        if (i > rank) {
            H5Sselect_none(space);
            H5Sselect_none(mem);
        }
        ok(H5Dwrite(set, H5T_NATIVE_DOUBLE, mem, space, coll, buf) < 0, "H5Dwrite rows");
    }
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    H5Sselect_all(mem);
    for (int i = 0; i < rank; i++)
        ok(H5Dread(set, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, buf) < 0, "H5Dread rows");
    H5Pclose(coll);
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(set);
}

static void tail(hid_t file, int rank, int np)
{
    hsize_t dims[1] = {(hsize_t)np * 64}, start[1] = {(hsize_t)rank * 64}, count[1] = {(hsize_t)(rank + 1) * 8};
    hsize_t eight[1] = {8};
    int buf[64] = {0};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t set = H5Dcreate2(file, "tail", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ok(set < 0, "H5Dcreate2 tail");
    hid_t mem = H5Screate_simple(1, count, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    ok(H5Dwrite(set, H5T_NATIVE_INT, mem, space, H5P_DEFAULT, buf) < 0, "H5Dwrite tail");
    H5Sclose(mem);
    mem = H5Screate_simple(1, eight, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, eight, NULL);
    ok(H5Dread(set, H5T_NATIVE_INT, mem, space, H5P_DEFAULT, buf) < 0, "H5Dread tail");
    H5Sclose(mem);
    H5Sclose(space);
    H5Dclose(set);
}

static void hdf5(const char *dir, int rank, int np)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/shared.h5", dir);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    ok(file < 0, "H5Fcreate shared.h5");
    rows(file, rank, np);
    tail(file, rank, np);
    H5Fclose(file);
    H5Pclose(fapl);
    if (rank == 0) {
        int buf[32] = {0};
        hsize_t n[1] = {32};
        snprintf(path, sizeof path, "%s/solo.h5", dir);
        file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        hid_t space = H5Screate_simple(1, n, NULL);
        hid_t set = H5Dcreate2(file, "one", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ok(H5Dwrite(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0, "H5Dwrite one");
        H5Dclose(set);
        H5Sclose(space);
        H5Fclose(file);
    }
}

static void pnetcdf(const char *dir, int rank, int np)
{
    char path[4096];
    int ncid, dims[3], grid, temp, row[X];
    float frow[X];
    for (int i = 0; i < X; i++) frow[i] = (float)(row[i] = rank * 100 + i);
    snprintf(path, sizeof path, "%s/shared.nc", dir);
    ok(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &ncid) != NC_NOERR, "ncmpi_create");
    ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]);
    ncmpi_def_dim(ncid, "y", np, &dims[1]);
    ncmpi_def_dim(ncid, "x", X, &dims[2]);
    ncmpi_def_var(ncid, "grid", NC_INT, 2, &dims[1], &grid);
    ncmpi_def_var(ncid, "temp", NC_FLOAT, 3, dims, &temp);
    ok(ncmpi_enddef(ncid) != NC_NOERR, "ncmpi_enddef");
    /* Collective calls: every rank makes the most rank's count of them,
     * the extra ones of no values. */
    MPI_Offset start2[2] = {rank, 0}, count2[2] = {1, X};
    for (int i = 0; i < np; i++) {
        if (i > rank) count2[0] = 0;
        ok(ncmpi_put_vara_int_all(ncid, grid, start2, count2, row) != NC_NOERR, "put_vara_int_all");
    }
    ncmpi_begin_indep_data(ncid);
    for (int t = 0; t <= rank; t++) {
        MPI_Offset start3[3] = {t, rank, 0}, count3[3] = {1, 1, X};
        ok(ncmpi_put_vara_float(ncid, temp, start3, count3, frow) != NC_NOERR, "put_vara_float");
    }
    ncmpi_end_indep_data(ncid);
    ok(ncmpi_close(ncid) != NC_NOERR, "ncmpi_close");
    if (rank == 0) {
        int v, d;
        snprintf(path, sizeof path, "%s/solo.nc", dir);
        ok(ncmpi_create(MPI_COMM_SELF, path, NC_CLOBBER, MPI_INFO_NULL, &ncid) != NC_NOERR, "ncmpi_create solo");
        ncmpi_def_dim(ncid, "n", 5, &d);
        ncmpi_def_var(ncid, "v", NC_INT, 1, &d, &v);
        ncmpi_enddef(ncid);
        ok(ncmpi_put_var_int_all(ncid, v, row) != NC_NOERR, "put_var_int_all");
        ncmpi_close(ncid);
    }
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc < 2) {
        fprintf(stderr, "usage: h5_pnc_killed <dir>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hdf5(argv[1], rank, np);
    pnetcdf(argv[1], rank, np);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ready\n");
        fflush(stdout);
    }
    if (argc < 3 || strcmp(argv[2], "finish")) sleep(100);
    MPI_Finalize();
    return 0;
}
