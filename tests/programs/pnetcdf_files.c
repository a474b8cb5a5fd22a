/* A file per step, as simulations write their output: argv[2] files in
 * turn under argv[1], each made, given argv[3] variables v0, v1, ...
 * (varids 0, 1, ... in each), each written by every rank (k + 1 ints for
 * file k), and closed. C Darshan
 * 3.5.0 finds variables by their varid alone in a uthash table that keeps
 * every definition; the 10th definition of varid 0 doubles the table,
 * which reverses its chains, so file 9's writes count for file 0's
 * record, and the 110th does it again (file 109's for file 9's). */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

static int buf[1000];

int main(int argc, char **argv)
{
    int rank, nprocs, nc, v[8], dim, err = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int n = argc > 2 ? atoi(argv[2]) : 12;
    int vars = argc > 3 ? atoi(argv[3]) : 1;
    if (vars < 1 || vars > 8) return 2;
    for (int k = 0; k < n && k < 999; k++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/step%03d.nc", argv[1], k);
        MPI_Offset start[] = {rank * 1000}, count[] = {k + 1};
        err |= ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &nc);
        err |= ncmpi_def_dim(nc, "x", nprocs * 1000, &dim);
        for (int j = 0; j < vars; j++) {
            char name[8];
            snprintf(name, sizeof name, "v%d", j);
            err |= ncmpi_def_var(nc, name, NC_INT, 1, &dim, &v[j]);
        }
        err |= ncmpi_enddef(nc);
        for (int j = 0; j < vars; j++)
            err |= ncmpi_put_vara_int_all(nc, v[j], start, count, buf);
        err |= ncmpi_close(nc);
    }
    if (err != NC_NOERR) {
        fprintf(stderr, "a PnetCDF call failed\n");
        return 1;
    }
    MPI_Finalize();
    return 0;
}
