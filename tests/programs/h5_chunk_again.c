/* A file made twice with a dataset of the same name: 3-D chunked first
 * (10 x 10 x 3, chunks 10 x 10 x 1), then 2-D (100 x 100, chunks
 * 25 x 100). Both are one H5D record; C Darshan 3.5.0 writes the chunk
 * sizes the second dataset has (D1 100, D2 25) and keeps the first one's
 * D3 (10). Found by scripts/differential (hdf5). argv[1]: the file. */
#include <hdf5.h>

static int make(const char *path, int rank, const hsize_t *dims, const hsize_t *chunk) {
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return 1;
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    hid_t pl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(pl, rank, chunk);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_DOUBLE, sp, H5P_DEFAULT, pl, H5P_DEFAULT);
    int bad = d < 0;
    if (!bad) H5Dclose(d);
    H5Pclose(pl);
    H5Sclose(sp);
    return H5Fclose(f) < 0 || bad;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    hsize_t d3[] = {10, 10, 3}, c3[] = {10, 10, 1}, d2[] = {100, 100}, c2[] = {25, 100};
    return make(argv[1], 3, d3, c3) || make(argv[1], 2, d2, c2);
}
