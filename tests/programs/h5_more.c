/* Serial HDF5 (1.10 API): the calls beyond H5Dopen/H5Dread: direct chunk
 * I/O, an anonymous dataset, H5Oopen_by_idx / _by_addr, H5Freopen and
 * H5Idec_ref as a close. usage: h5_more <dir>  (writes <dir>/m.h5)
 * Every value read back is checked; prints "ok". */
#include <hdf5.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/m.h5", argc > 1 ? argv[1] : ".");
    int bad = 0;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);

    /* "c": 16 ints in chunks of 8, written chunk by chunk (2 x 32 bytes
     * as stored), the second chunk read back directly (32 bytes). */
    hsize_t n16 = 16, n8 = 8, n4 = 4;
    hid_t s16 = H5Screate_simple(1, &n16, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &n8);
    hid_t c = H5Dcreate2(f, "c", H5T_NATIVE_INT, s16, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int data[16], back[16];
    for (int i = 0; i < 16; i++) data[i] = 100 + i;
    hsize_t off0 = 0, off8 = 8;
    bad |= H5Dwrite_chunk(c, H5P_DEFAULT, 0, &off0, 32, data) < 0;
    bad |= H5Dwrite_chunk(c, H5P_DEFAULT, 0, &off8, 32, data + 8) < 0;
    uint32_t filters = 0;
    bad |= H5Dread_chunk(c, H5P_DEFAULT, &off8, &filters, back) < 0;
    for (int i = 0; i < 8; i++) bad |= back[i] != data[8 + i];
    H5Dclose(c);

    /* An anonymous dataset of 4 ints (16 bytes written), then linked. */
    hid_t s4 = H5Screate_simple(1, &n4, NULL);
    hid_t anon = H5Dcreate_anon(f, H5T_NATIVE_INT, s4, H5P_DEFAULT, H5P_DEFAULT);
    bad |= H5Dwrite(anon, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0;
    H5Olink(anon, f, "linked", H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(anon);
    hid_t g = H5Gcreate2(f, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);

    /* By index in name order: 0 is "c" (read whole, 64 bytes; closed by
     * dropping the last reference), 1 the group (not a dataset). */
    hid_t o = H5Oopen_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, 0, H5P_DEFAULT);
    bad |= H5Dread(o, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0;
    for (int i = 0; i < 16; i++) bad |= back[i] != data[i];
    bad |= H5Idec_ref(o) != 0;
    o = H5Oopen_by_idx(f, ".", H5_INDEX_NAME, H5_ITER_INC, 1, H5P_DEFAULT);
    H5Oclose(o);

    /* By address: "linked" (16 bytes). */
    H5L_info_t li;
    H5Lget_info(f, "linked", &li, H5P_DEFAULT);
    o = H5Oopen_by_addr(f, li.u.address);
    bad |= H5Dread(o, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0;
    for (int i = 0; i < 4; i++) bad |= back[i] != data[i];
    H5Oclose(o);

    /* A second id for the file. */
    hid_t f2 = H5Freopen(f);
    bad |= f2 < 0;
    H5Fclose(f2);
    H5Sclose(s4);
    H5Sclose(s16);
    H5Pclose(dcpl);
    H5Fclose(f);
    puts(bad ? "bad" : "ok");
    return bad;
}
