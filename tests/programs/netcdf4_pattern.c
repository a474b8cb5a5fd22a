/* A NetCDF-4 file as climate codes write one, through libnetcdf (the
 * program links no HDF5 of its own: libnetcdf brings it): dimensions
 * time (unlimited) and x (100); variable temp(time, x), double, chunked
 * 1 x 100; 10 records written, one nc_put_vara_double each (800 bytes);
 * then the file opened again read-only and records 2..4 read in one
 * nc_get_vara_double (2,400 bytes), and record 7 by nc_get_var1 (one
 * value, 8 bytes). usage: netcdf4_pattern <dir> */
#include <netcdf.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) return 1;
    char path[4200];
    snprintf(path, sizeof path, "%s/t.nc", argv[1]);
    static double row[300];
    for (int i = 0; i < 300; i++) row[i] = i;
    int nc, dt, dx, v, e = 0;
    e |= nc_create(path, NC_NETCDF4 | NC_CLOBBER, &nc);
    e |= nc_def_dim(nc, "time", NC_UNLIMITED, &dt);
    e |= nc_def_dim(nc, "x", 100, &dx);
    int dims[2] = {dt, dx};
    e |= nc_def_var(nc, "temp", NC_DOUBLE, 2, dims, &v);
    size_t chunk[2] = {1, 100};
    e |= nc_def_var_chunking(nc, v, NC_CHUNKED, chunk);
    e |= nc_enddef(nc);
    for (size_t t = 0; t < 10; t++) {
        size_t start[2] = {t, 0}, count[2] = {1, 100};
        e |= nc_put_vara_double(nc, v, start, count, row);
    }
    e |= nc_close(nc);
    e |= nc_open(path, NC_NOWRITE, &nc);
    e |= nc_inq_varid(nc, "temp", &v);
    size_t start[2] = {2, 0}, count[2] = {3, 100}, one[2] = {7, 50};
    e |= nc_get_vara_double(nc, v, start, count, row);
    e |= nc_get_var1_double(nc, v, one, row);
    e |= nc_close(nc);
    printf("%s\n", e ? "failed" : "done");
    return e != 0;
}
