/* A plug-in with its own HDF5, loaded RTLD_LOCAL by h5_two_libs.c: built
 * twice, on Debian's 1.10 and on h5py's bundled 2.0 (no 2.0 headers here,
 * so its own declarations, good for both). Both plug-ins' calls reach
 * the same preloaded wrappers, and each must go to its own library. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef int64_t hid_t;
typedef int herr_t;
typedef uint64_t hsize_t;
extern hid_t H5T_NATIVE_INT_g;
herr_t H5open(void);
hid_t H5Fcreate(const char *, unsigned, hid_t, hid_t);
herr_t H5Fclose(hid_t);
hid_t H5Screate_simple(int, const hsize_t *, const hsize_t *);
herr_t H5Sclose(hid_t);
hid_t H5Dcreate2(hid_t, const char *, hid_t, hid_t, hid_t, hid_t, hid_t);
herr_t H5Dwrite(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
herr_t H5Dread(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
herr_t H5Dclose(hid_t);

/* The plug-in's open file and dataset, between the two calls. */
static hid_t f = -1, s = -1, d = -1;

/* Create <dir>/<name> with dataset "o" of 8 ints and keep both open; 0
 * when every call succeeded. */
int other_lib_open(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    H5open();
    hsize_t n = 8;
    f = H5Fcreate(path, 2u /* H5F_ACC_TRUNC */, 0, 0);
    s = H5Screate_simple(1, &n, NULL);
    d = H5Dcreate2(f, "o", H5T_NATIVE_INT_g, s, 0, 0, 0);
    return f < 0 || s < 0 || d < 0;
}

/* Write "o", read it back and close everything; 0 when every call
 * succeeded and every value came back. */
int other_lib_finish(void)
{
    int w[8], r[8] = {0}, bad = 0;
    for (int i = 0; i < 8; i++) w[i] = 7 * i;
    bad |= H5Dwrite(d, H5T_NATIVE_INT_g, 0, 0, 0, w) < 0;
    bad |= H5Dread(d, H5T_NATIVE_INT_g, 0, 0, 0, r) < 0;
    bad |= memcmp(w, r, sizeof w) != 0;
    bad |= H5Dclose(d) < 0 || H5Sclose(s) < 0 || H5Fclose(f) < 0;
    return bad;
}
