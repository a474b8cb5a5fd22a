/* A C program on HDF5 2.0 (the library h5py's wheel bundles; there are no
 * 2.0 headers here, so the few declarations it needs are its own):
 * H5Dwrite_multi / H5Dread_multi, H5Dread_chunk2 and H5Oopen_by_token,
 * which Darshan does not wrap. usage: h5_v2 <dir>  (writes <dir>/v2.h5)
 * Every value read back is checked; prints "ok". */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef int64_t hid_t;
typedef int herr_t;
typedef uint64_t hsize_t;
typedef struct { uint8_t data[16]; } H5O_token_t;
typedef struct {
    unsigned long fileno;
    H5O_token_t token;
    int type;
    unsigned rc;
    time_t atime, mtime, ctime, btime;
    hsize_t num_attrs;
} H5O_info2_t;

extern hid_t H5T_NATIVE_INT_g, H5P_CLS_DATASET_CREATE_ID_g;
herr_t H5open(void);
hid_t H5Fcreate(const char *, unsigned, hid_t, hid_t);
herr_t H5Fclose(hid_t);
hid_t H5Screate_simple(int, const hsize_t *, const hsize_t *);
hid_t H5Scopy(hid_t);
herr_t H5Sselect_hyperslab(hid_t, int, const hsize_t *, const hsize_t *, const hsize_t *, const hsize_t *);
herr_t H5Sclose(hid_t);
hid_t H5Pcreate(hid_t);
herr_t H5Pset_chunk(hid_t, int, const hsize_t *);
herr_t H5Pclose(hid_t);
hid_t H5Dcreate2(hid_t, const char *, hid_t, hid_t, hid_t, hid_t, hid_t);
herr_t H5Dwrite(hid_t, hid_t, hid_t, hid_t, hid_t, const void *);
herr_t H5Dread(hid_t, hid_t, hid_t, hid_t, hid_t, void *);
herr_t H5Dwrite_multi(size_t, const hid_t *, const hid_t *, const hid_t *, const hid_t *, hid_t, const void **);
herr_t H5Dread_multi(size_t, const hid_t *, const hid_t *, const hid_t *, const hid_t *, hid_t, void **);
herr_t H5Dread_chunk2(hid_t, hid_t, const hsize_t *, uint32_t *, void *, size_t *);
herr_t H5Dclose(hid_t);
herr_t H5Oget_info_by_name3(hid_t, const char *, H5O_info2_t *, unsigned, hid_t);
hid_t H5Oopen_by_token(hid_t, H5O_token_t);
herr_t H5Oclose(hid_t);

#define DEFAULT 0 /* H5P_DEFAULT, H5S_ALL */

int main(int argc, char **argv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/v2.h5", argc > 1 ? argv[1] : ".");
    H5open();
    hid_t INT = H5T_NATIVE_INT_g;
    int bad = 0;
    hid_t f = H5Fcreate(path, 2u /* H5F_ACC_TRUNC */, DEFAULT, DEFAULT);
    hsize_t n16 = 16, n8 = 8, n4 = 4, zero = 0, four = 4;
    hid_t s16 = H5Screate_simple(1, &n16, NULL), s8 = H5Screate_simple(1, &n8, NULL);
    hid_t dcpl = H5Pcreate(H5P_CLS_DATASET_CREATE_ID_g);
    H5Pset_chunk(dcpl, 1, &n4);
    hid_t p = H5Dcreate2(f, "p", INT, s16, DEFAULT, DEFAULT, DEFAULT);
    hid_t q = H5Dcreate2(f, "q", INT, s8, DEFAULT, dcpl, DEFAULT);
    int pw[16], qw[8], pr[16], qr[8];
    for (int i = 0; i < 16; i++) pw[i] = i * 3;
    for (int i = 0; i < 8; i++) qw[i] = 1000 + i;

    /* One call: all of p (64 bytes), the first half of q (16 bytes, a
     * regular hyperslab); then q's second half alone (16 bytes). */
    hid_t first = H5Scopy(s8), second = H5Scopy(s8), m4 = H5Screate_simple(1, &n4, NULL);
    H5Sselect_hyperslab(first, 0, &zero, NULL, &four, NULL);
    H5Sselect_hyperslab(second, 0, &four, NULL, &four, NULL);
    hid_t dsets[2] = {p, q}, types[2] = {INT, INT}, mems[2] = {DEFAULT, m4}, files[2] = {DEFAULT, first};
    const void *wbufs[2] = {pw, qw};
    bad |= H5Dwrite_multi(2, dsets, types, mems, files, DEFAULT, wbufs) < 0;
    bad |= H5Dwrite(q, INT, m4, second, DEFAULT, qw + 4) < 0;

    /* One call reads both whole (64 + 32 bytes); q's second chunk is read
     * directly (16 bytes as stored). */
    hid_t all[2] = {DEFAULT, DEFAULT};
    void *rbufs[2] = {pr, qr};
    bad |= H5Dread_multi(2, dsets, types, all, all, DEFAULT, rbufs) < 0;
    bad |= memcmp(pr, pw, sizeof pw) != 0 || memcmp(qr, qw, sizeof qw) != 0;
    uint32_t filters = 0;
    size_t size = sizeof qr;
    memset(qr, 0, sizeof qr);
    bad |= H5Dread_chunk2(q, DEFAULT, &four, &filters, qr, &size) < 0;
    bad |= memcmp(qr, qw + 4, 4 * sizeof(int)) != 0;
    H5Dclose(p);
    H5Dclose(q);

    /* p again, by token (64 bytes). */
    H5O_info2_t info;
    bad |= H5Oget_info_by_name3(f, "p", &info, 1u /* H5O_INFO_BASIC */, DEFAULT) < 0;
    hid_t o = H5Oopen_by_token(f, info.token);
    memset(pr, 0, sizeof pr);
    bad |= H5Dread(o, INT, DEFAULT, DEFAULT, DEFAULT, pr) < 0;
    bad |= memcmp(pr, pw, sizeof pw) != 0;
    H5Oclose(o);
    H5Sclose(first);
    H5Sclose(second);
    H5Sclose(m4);
    H5Sclose(s8);
    H5Sclose(s16);
    H5Pclose(dcpl);
    H5Fclose(f);
    puts(bad ? "bad" : "ok");
    return bad;
}
