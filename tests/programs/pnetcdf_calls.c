/* Per-call cost of the PnetCDF wrappers (just bench): one process, n
 * independent one-element ncmpi_put_vara_int and then ncmpi_get_vara_int
 * calls on a 1-D variable (each reaching MPI-IO and POSIX beneath), and
 * n/10 ncmpi_inq_varid calls (a variable open each).
 * Prints write_s=, read_s=, inq_s= (seconds per loop).
 * usage: pnetcdf_calls <file> <n> */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int ncid, dim, var, v = 1, err = 0;
    MPI_Init(&argc, &argv);
    long n = argc > 2 ? atol(argv[2]) : 20000;
    err |= ncmpi_create(MPI_COMM_SELF, argv[1], NC_CLOBBER, MPI_INFO_NULL, &ncid);
    err |= ncmpi_def_dim(ncid, "x", n, &dim);
    err |= ncmpi_def_var(ncid, "v", NC_INT, 1, &dim, &var);
    err |= ncmpi_enddef(ncid);
    err |= ncmpi_begin_indep_data(ncid);
    MPI_Offset one = 1;
    double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Offset start = i;
        err |= ncmpi_put_vara_int(ncid, var, &start, &one, &v);
    }
    double t1 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Offset start = i;
        err |= ncmpi_get_vara_int(ncid, var, &start, &one, &v);
    }
    double t2 = MPI_Wtime();
    for (long i = 0; i < n / 10; i++)
        err |= ncmpi_inq_varid(ncid, "v", &var);
    double t3 = MPI_Wtime();
    err |= ncmpi_end_indep_data(ncid);
    err |= ncmpi_close(ncid);
    if (err != NC_NOERR) {
        fprintf(stderr, "a PnetCDF call failed\n");
        return 1;
    }
    printf("write_s=%.9f read_s=%.9f inq_s=%.9f\n", t1 - t0, t2 - t1, t3 - t2);
    MPI_Finalize();
    return 0;
}
