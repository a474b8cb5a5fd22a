/* A PnetCDF job with a known access pattern (ffi/tests/pnetcdf.rs checks
 * every counter against it): on each of the job's ranks r,
 *
 * created: dims time (unlimited), y (one row per rank), x = 10;
 *   temp: float (time, y, x), a record variable; grid: int (y, x).
 *   grid: put_vara_int_all of row r (40 bytes); put_vars_int_all of every
 *     other value of row r (stride 2: 5 values, 20 bytes);
 *   temp: put_vara_float of record 0 row r (independent, 40 bytes);
 *     iput_vara_float of records 1 and 2, then wait_all;
 *     bput_var1_float of one value (4 bytes), then wait_all;
 *   sync; redef; enddef;
 *   grid: get_vara_int_all of row r; get_var_int_all (the whole variable);
 *   temp: iget_vara_float of record 0 row r, then an independent wait;
 *   close.
 * opened again: inq_varid of temp; get_vara_float_all of record 0 row r;
 *   get_varn_float_all of 2 pieces (3 + 2 values); close.
 *
 * argv[1]: the file; argv[2]: where rank 0 writes "put=P get=G", the
 * bytes all ranks moved as ncmpi_inq_put_size/ncmpi_inq_get_size report
 * them just before each close (what Darshan adds at close). */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define X 10

static void check(int err, const char *what)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "%s: %s\n", what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Adds what the file moved so far to the totals, before its close. */
static void sizes(int ncid, MPI_Offset *put, MPI_Offset *get)
{
    MPI_Offset p, g;
    check(ncmpi_inq_put_size(ncid, &p), "inq_put_size");
    check(ncmpi_inq_get_size(ncid, &g), "inq_get_size");
    *put += p;
    *get += g;
}

int main(int argc, char **argv)
{
    int rank, nprocs, ncid, dims[3], temp, grid, reqs[2], st[2];
    MPI_Offset put = 0, get = 0, total[2];
    int row[X];
    float frow[X], value = 1.5f;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3) {
        fprintf(stderr, "usage: pnetcdf_pattern FILE SIZES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < X; i++) {
        row[i] = rank * 100 + i;
        frow[i] = (float)row[i];
    }

    check(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER, MPI_INFO_NULL, &ncid), "create");
    check(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &dims[0]), "def_dim time");
    check(ncmpi_def_dim(ncid, "y", nprocs, &dims[1]), "def_dim y");
    check(ncmpi_def_dim(ncid, "x", X, &dims[2]), "def_dim x");
    check(ncmpi_def_var(ncid, "temp", NC_FLOAT, 3, dims, &temp), "def_var temp");
    check(ncmpi_def_var(ncid, "grid", NC_INT, 2, &dims[1], &grid), "def_var grid");
    check(ncmpi_enddef(ncid), "enddef");

    MPI_Offset start2[2] = {rank, 0}, count2[2] = {1, X}, half[2] = {1, X / 2}, stride2[2] = {1, 2};
    check(ncmpi_put_vara_int_all(ncid, grid, start2, count2, row), "put_vara_int_all");
    check(ncmpi_put_vars_int_all(ncid, grid, start2, half, stride2, row), "put_vars_int_all");

    MPI_Offset start3[3] = {0, rank, 0}, count3[3] = {1, 1, X};
    check(ncmpi_begin_indep_data(ncid), "begin_indep_data");
    check(ncmpi_put_vara_float(ncid, temp, start3, count3, frow), "put_vara_float");
    check(ncmpi_end_indep_data(ncid), "end_indep_data");

    MPI_Offset rec1[3] = {1, rank, 0}, rec2[3] = {2, rank, 0};
    check(ncmpi_iput_vara_float(ncid, temp, rec1, count3, frow, &reqs[0]), "iput 1");
    check(ncmpi_iput_vara_float(ncid, temp, rec2, count3, frow, &reqs[1]), "iput 2");
    check(ncmpi_wait_all(ncid, 2, reqs, st), "wait_all iput");

    MPI_Offset one[3] = {0, rank, 5};
    check(ncmpi_buffer_attach(ncid, 1024), "buffer_attach");
    check(ncmpi_bput_var1_float(ncid, temp, one, &value, &reqs[0]), "bput_var1_float");
    check(ncmpi_wait_all(ncid, 1, reqs, st), "wait_all bput");
    check(ncmpi_buffer_detach(ncid), "buffer_detach");

    check(ncmpi_sync(ncid), "sync");
    check(ncmpi_redef(ncid), "redef");
    check(ncmpi_enddef(ncid), "enddef 2");

    int *all = malloc(sizeof(int) * 3 * nprocs * X);
    check(ncmpi_get_vara_int_all(ncid, grid, start2, count2, row), "get_vara_int_all");
    check(ncmpi_get_var_int_all(ncid, grid, all), "get_var_int_all");
    free(all);

    check(ncmpi_begin_indep_data(ncid), "begin_indep_data 2");
    check(ncmpi_iget_vara_float(ncid, temp, start3, count3, frow, &reqs[0]), "iget_vara_float");
    check(ncmpi_wait(ncid, 1, reqs, st), "wait iget");
    check(ncmpi_end_indep_data(ncid), "end_indep_data 2");
    sizes(ncid, &put, &get);
    check(ncmpi_close(ncid), "close");

    check(ncmpi_open(MPI_COMM_WORLD, argv[1], NC_NOWRITE, MPI_INFO_NULL, &ncid), "open");
    check(ncmpi_inq_varid(ncid, "temp", &temp), "inq_varid");
    check(ncmpi_get_vara_float_all(ncid, temp, start3, count3, frow), "get_vara_float_all");
    MPI_Offset s1[3] = {0, rank, 0}, c1[3] = {1, 1, 3}, s2[3] = {1, rank, 4}, c2[3] = {1, 1, 2};
    MPI_Offset *starts[2] = {s1, s2}, *counts[2] = {c1, c2};
    check(ncmpi_get_varn_float_all(ncid, temp, 2, starts, counts, frow), "get_varn_float_all");
    sizes(ncid, &put, &get);
    check(ncmpi_close(ncid), "close 2");

    MPI_Offset mine[2] = {put, get};
    MPI_Reduce(mine, total, 2, MPI_OFFSET, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(argv[2], "w");
        if (!f) {
            perror(argv[2]);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        fprintf(f, "put=%lld get=%lld\n", (long long)total[0], (long long)total[1]);
        fclose(f);
    }
    MPI_Finalize();
    return 0;
}
