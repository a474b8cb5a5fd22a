/* Per-call cost of the HDF5 wrappers (just bench): n one-element writes
 * and reads of a contiguous 1-D dataset through a one-element hyperslab
 * (the selection is made outside the timed loop's HDF5 calls too, so
 * both runs do the same), and n/10 H5Dopen2 + H5Dclose pairs.
 * Prints write_s=, read_s=, open_s= (seconds per loop).
 * usage: h5_calls <file> <n> */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    long n = argc > 2 ? atol(argv[2]) : 100000;
    hsize_t dims = (hsize_t)n, one = 1;
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(1, &dims, NULL);
    hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t mem = H5Screate_simple(1, &one, NULL);
    double v = 1.0;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        hsize_t start = (hsize_t)i;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &one, NULL);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &v);
    }
    double t1 = now();
    for (long i = 0; i < n; i++) {
        hsize_t start = (hsize_t)i;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &one, NULL);
        H5Dread(d, H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, &v);
    }
    double t2 = now();
    H5Dclose(d);
    long m = n / 10;
    for (long i = 0; i < m; i++)
        H5Dclose(H5Dopen2(f, "x", H5P_DEFAULT));
    double t3 = now();
    H5Sclose(mem);
    H5Sclose(space);
    H5Fclose(f);
    printf("write_s=%.9f read_s=%.9f open_s=%.9f\n", t1 - t0, t2 - t1, t3 - t2);
    return 0;
}
