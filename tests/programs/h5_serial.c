/* Serial HDF5: the access patterns the H5F/H5D modules classify.
 * usage: h5_serial <dir>  (writes <dir>/s.h5) */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/s.h5", argc > 1 ? argv[1] : ".");
    double buf[80] = {0};
    hsize_t dims[2] = {10, 8}, chunk[2] = {5, 4};

    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t d = H5Dcreate2(f, "x", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    /* 1: the whole dataset (H5S_ALL): 80 x 8 bytes */
    H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    /* 2, 3: one row each, a regular hyperslab: 8 x 8 bytes */
    hsize_t start[2] = {2, 0}, count[2] = {1, 8};
    hid_t fs = H5Scopy(space);
    hid_t ms = H5Screate_simple(1, &count[1], NULL);
    for (int r = 2; r < 4; r++) {
        start[0] = r;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    }
    /* 4: three points, read back */
    hsize_t pts[3][2] = {{0, 0}, {1, 1}, {9, 7}};
    hid_t ps = H5Scopy(space);
    H5Sselect_elements(ps, H5S_SELECT_SET, 3, (const hsize_t *)pts);
    hsize_t three = 3;
    hid_t ms3 = H5Screate_simple(1, &three, NULL);
    H5Dread(d, H5T_NATIVE_DOUBLE, ms3, ps, H5P_DEFAULT, buf);
    /* 5: an irregular hyperslab (two blocks): 2 + 4 elements, read */
    hid_t is = H5Scopy(space);
    hsize_t s1[2] = {0, 0}, c1[2] = {1, 2}, s2[2] = {5, 3}, c2[2] = {2, 2};
    H5Sselect_hyperslab(is, H5S_SELECT_SET, s1, NULL, c1, NULL);
    H5Sselect_hyperslab(is, H5S_SELECT_OR, s2, NULL, c2, NULL);
    hsize_t six = 6;
    hid_t ms6 = H5Screate_simple(1, &six, NULL);
    H5Dread(d, H5T_NATIVE_DOUBLE, ms6, is, H5P_DEFAULT, buf);
    H5Fflush(d, H5F_SCOPE_LOCAL);
    H5Dclose(d);

    /* The deprecated API, in a group: 4 ints */
    hsize_t four = 4;
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s4 = H5Screate_simple(1, &four, NULL);
    int ibuf[4] = {1, 2, 3, 4};
    hid_t d1 = H5Dcreate1(g, "old", H5T_NATIVE_INT, s4, H5P_DEFAULT);
    H5Dwrite(d1, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ibuf);
    H5Dclose(d1);
    d1 = H5Dopen1(g, "old");
    H5Dread(d1, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ibuf);
    H5Dclose(d1);
    H5Gclose(g);
    H5Fclose(f);

    /* Reopen read-only: the whole of x, through H5Oopen as h5py does */
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t o = H5Oopen(f, "x", H5P_DEFAULT);
    H5Dread(o, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    H5Oclose(o);
    H5Fclose(f);
    printf("ok\n");
    return 0;
}
