/* What the runtime assumes of HDF5 (ffi/src/hdf5_select.rs), asked of
 * HDF5 on random selections: after H5Sselect_hyperslab(H5S_SELECT_SET)
 * succeeds, the selection is a regular hyperslab whose stride, count and
 * block are the call's (ones for a NULL stride or block) and whose point
 * count is the product of count x block, or, with a zero count or block,
 * no selection at all; whatever the dataspace held before.
 * Prints "same <n> none <n> differ <n> refused <n>" and the first
 * differences. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

static long same, none, differ, refused;

/* Some earlier selection on `s`: a SET, an OR of two, or points. */
static void before(hid_t s, int rank)
{
    hsize_t at[8] = {0}, c[8];
    for (int d = 0; d < rank; d++)
        c[d] = 1;
    switch (rand() % 4) {
    case 0:
        break;
    case 1:
        H5Sselect_hyperslab(s, H5S_SELECT_SET, at, NULL, c, NULL);
        break;
    case 2:
        H5Sselect_hyperslab(s, H5S_SELECT_SET, at, NULL, c, NULL);
        c[0] = 2;
        H5Sselect_hyperslab(s, H5S_SELECT_OR, at, NULL, c, NULL);
        break;
    default:
        H5Sselect_elements(s, H5S_SELECT_SET, 1, at);
    }
}

static void one(void)
{
    int rank = 1 + rand() % 6;
    hsize_t dims[8], start[8], stride[8], count[8], block[8];
    for (int d = 0; d < rank; d++) {
        dims[d] = 1 + (hsize_t)(rand() % 20);
        start[d] = (hsize_t)(rand() % 4);
        stride[d] = (hsize_t)(rand() % 6);
        count[d] = (hsize_t)(rand() % 5);
        block[d] = (hsize_t)(rand() % 4);
    }
    int null_stride = rand() % 3 == 0, null_block = rand() % 3 == 0;
    hid_t s = H5Screate_simple(rank, dims, NULL);
    before(s, rank);
    if (H5Sselect_hyperslab(s, H5S_SELECT_SET, start, null_stride ? NULL : stride, count,
                            null_block ? NULL : block) < 0) {
        refused++;
        H5Sclose(s);
        return;
    }
    hsize_t points = 1;
    int zero = 0;
    for (int d = 0; d < rank; d++) {
        hsize_t b = null_block ? 1 : block[d];
        points *= count[d] * b;
        zero |= count[d] == 0 || b == 0;
    }
    H5S_sel_type kind = H5Sget_select_type(s);
    hssize_t n = H5Sget_select_npoints(s);
    int ok;
    if (zero) {
        ok = kind == H5S_SEL_NONE && n == 0;
    } else {
        hsize_t a[32] = {0}, st[32] = {0}, c[32] = {0}, b[32] = {0};
        ok = kind == H5S_SEL_HYPERSLABS && H5Sis_regular_hyperslab(s) > 0 && (hsize_t)n == points &&
             H5Sget_regular_hyperslab(s, a, st, c, b) >= 0;
        for (int d = 0; ok && d < rank; d++)
            ok = st[d] == (null_stride ? 1 : stride[d]) && c[d] == count[d] && b[d] == (null_block ? 1 : block[d]);
    }
    if (!ok && ++differ <= 5)
        printf("rank %d type %d points %lld (expected %llu%s)\n", rank, kind, (long long)n,
               (unsigned long long)points, zero ? ", none" : "");
    if (ok)
        ++*(zero ? &none : &same);
    H5Sclose(s);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    srand(7);
    for (int i = 0; i < 200000; i++)
        one();
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    printf("HDF5 %u.%u.%u same %ld none %ld differ %ld refused %ld\n", maj, min, rel, same, none, differ, refused);
    return 0;
}
