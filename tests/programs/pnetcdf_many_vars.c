/* argv[2] files in turn under argv[1], each with argv[3] variables v0, v1,
 * ... (varids 0, 1, ...), each variable written once (1-3 ints), then
 * closed, at one rank. C Darshan 3.5.0 finds a variable by its varid
 * alone in a uthash table that keeps every definition; with hundreds of
 * variables its buckets double at times set by each bucket's
 * expand_mult, which reverses the chains, so some of a file's writes
 * count for an earlier file's record. modules/pnetcdf/src/
 * c_3_files_300_vars.txt is C's log of `pnetcdf_many_vars DIR 3 300`
 * (with MAX_RECORDS 20000 PNETCDF_VAR): every record whose
 * PNETCDF_VAR_PUT_VARA is not 1, as "file varid count";
 * c_6_files_2000_vars.txt the same of `pnetcdf_many_vars DIR 6 2000`
 * (MAX_RECORDS 20000 PNETCDF_VAR, DARSHAN_MODMEM=256). */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int nc, dim, err = 0, files = atoi(argv[2]), vars = atoi(argv[3]);
    int *v = malloc(sizeof(int) * vars), x = 1;
    MPI_Init(&argc, &argv);
    for (int k = 0; k < files; k++) {
        char path[4200], name[32];
        snprintf(path, sizeof path, "%s/f%02d.nc", argv[1], k);
        err |= ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &nc);
        err |= ncmpi_def_dim(nc, "x", 4, &dim);
        for (int j = 0; j < vars; j++) { snprintf(name, sizeof name, "v%d", j); err |= ncmpi_def_var(nc, name, NC_INT, 1, &dim, &v[j]); }
        err |= ncmpi_enddef(nc);
        for (int j = 0; j < vars; j++) { MPI_Offset s[] = {0}, c[] = {1 + (j % 3)}; int b[3] = {1,2,3}; err |= ncmpi_put_vara_int_all(nc, v[j], s, c, b); }
        err |= ncmpi_close(nc);
    }
    MPI_Finalize();
    return err != 0;
}
