/* File selections made in every way HDF5 offers, each followed by an
 * access: a SET hyperslab alone, with the memory space selected after it,
 * then changed again by each function that changes a dataspace (another
 * selection, a combination, a copy, an offset, a new extent), or by
 * another thread. After each access the program asks HDF5 what Darshan's
 * C wrapper asks (point count, selection type, regularity, the regular
 * hyperslab) and adds up what Darshan counts from the answers, one
 * dataset per case. It prints, per dataset:
 *   <name> <bytes written> <bytes read> <regular> <irregular> <points>
 * then one line per distinct access of some bytes (at most four per
 * dataset):
 *   = <name> <bytes> <L1..L5> <S1..S5> <count>
 * with Darshan's dimension order (D1 the fifth value HDF5 gives).
 * usage: h5_selections <dir> */
#include <hdf5.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16
#define MAXT 4

struct tuple { long long v[11]; long count; };
struct expect {
    char name[32];
    long long bytes_w, bytes_r, regular, irregular, points;
    struct tuple t[MAXT];
    int nt;
};

static struct expect ex[64];
static int nex;
static double buf[N * N * 4];

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "h5_selections: %s failed\n", what);
        exit(1);
    }
}

/* What Darshan's wrapper counts for an access through file space `fs`,
 * asked after the access as it asks. */
static void count(struct expect *e, hid_t fs, int write)
{
    hssize_t np = H5Sget_select_npoints(fs);
    H5S_sel_type kind = H5Sget_select_type(fs);
    long long v[11] = {np * (long long)sizeof(double)};
    if (kind == H5S_SEL_POINTS) {
        e->points++;
    } else if (kind == H5S_SEL_HYPERSLABS) {
        if (H5Sis_regular_hyperslab(fs) > 0) {
            hsize_t start[32] = {0}, stride[32] = {0}, cnt[32] = {0}, block[32] = {0};
            H5Sget_regular_hyperslab(fs, start, stride, cnt, block);
            e->regular++;
            for (int i = 0; i < 5; i++) {
                v[1 + i] = (long long)(cnt[4 - i] * block[4 - i]);
                v[6 + i] = (long long)stride[4 - i];
            }
        } else {
            e->irregular++;
        }
    }
    if (write)
        e->bytes_w += v[0];
    else
        e->bytes_r += v[0];
    /* Darshan's common accesses leave out accesses of no bytes. */
    if (v[0] == 0)
        return;
    for (int k = 0; k < e->nt; k++)
        if (!memcmp(e->t[k].v, v, sizeof v)) {
            e->t[k].count++;
            return;
        }
    check(e->nt < MAXT, "at most four distinct accesses per case");
    memcpy(e->t[e->nt].v, v, sizeof v);
    e->t[e->nt++].count = 1;
}

static hid_t file;

/* A new dataset of rank `rank` (dims N, or 2 past the second), with
 * its expectations; a 2-D one chunked 4x5 (HDF5 maps a selection onto
 * chunks with copies of the file space: the access must not change it). */
static hid_t dataset(const char *name, int rank, hid_t *space, struct expect **e)
{
    hsize_t dims[8], chunk[2] = {4, 5};
    for (int i = 0; i < rank; i++)
        dims[i] = i < 2 ? N : 2;
    *space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (rank == 2)
        H5Pset_chunk(dcpl, 2, chunk);
    hid_t d = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, *space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    check(d >= 0, name);
    *e = &ex[nex++];
    snprintf((*e)->name, sizeof (*e)->name, "/%s", name);
    return d;
}

/* A memory space as large as the selection of `fs`, all selected. */
static hid_t mem_for(hid_t fs)
{
    hsize_t n = (hsize_t)H5Sget_select_npoints(fs);
    return H5Screate_simple(1, &n, NULL);
}

static void io(struct expect *e, hid_t d, hid_t fs, int write)
{
    hid_t ms = mem_for(fs);
    herr_t r = write ? H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf)
                     : H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    check(r >= 0, e->name);
    count(e, fs, write);
    H5Sclose(ms);
}

static const hsize_t at0[8] = {0}, one[8] = {1, 1, 1, 1, 1, 1, 1, 1};

/* A strided regular hyperslab: 2 blocks of 2x3 every 4x5 from (r, c). */
static void set_slab(hid_t fs, hsize_t r, hsize_t c)
{
    hsize_t start[2] = {r, c}, stride[2] = {4, 5}, cnt[2] = {2, 2}, block[2] = {2, 3};
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, cnt, block) >= 0, "SET");
}

/* SET, then `change` before the access: the access's selection is the
 * changed one. */
static void changed_after_set(const char *name, void (*change)(hid_t fs))
{
    hid_t fs;
    struct expect *e;
    hid_t d = dataset(name, 2, &fs, &e);
    for (int i = 0; i < 2; i++) {
        set_slab(fs, 0, 0);
        change(fs);
        io(e, d, fs, i == 0);
    }
    H5Sclose(fs);
    H5Dclose(d);
}

static void to_points(hid_t fs)
{
    hsize_t c[3][2] = {{0, 0}, {3, 4}, {9, 1}};
    H5Sselect_elements(fs, H5S_SELECT_SET, 3, &c[0][0]);
}
static void to_all(hid_t fs) { H5Sselect_all(fs); }
static void to_none(hid_t fs) { H5Sselect_none(fs); }
static void or_row(hid_t fs)
{
    hsize_t start[2] = {15, 0}, cnt[2] = {1, 16};
    H5Sselect_hyperslab(fs, H5S_SELECT_OR, start, NULL, cnt, NULL);
}
static void shrink(hid_t fs)
{
    /* A second SET: the access uses this one, not the first. */
    hsize_t start[2] = {1, 1}, cnt[2] = {3, 1};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
}
static void offset(hid_t fs)
{
    hssize_t off[2] = {1, 1};
    H5Soffset_simple(fs, off);
}
static void new_extent(hid_t fs)
{
    hsize_t dims[2] = {N, N};
    H5Sset_extent_simple(fs, 2, dims, NULL);
}
static void extent_from(hid_t fs)
{
    hsize_t dims[2] = {N, N};
    hid_t other = H5Screate_simple(2, dims, NULL);
    H5Sextent_copy(fs, other);
    H5Sclose(other);
}
#if H5_VERSION_GE(1, 10, 7)
static void copy_from(hid_t fs)
{
    hsize_t dims[2] = {N, N}, start[2] = {2, 2}, cnt[2] = {5, 5};
    hid_t other = H5Screate_simple(2, dims, NULL);
    H5Sselect_hyperslab(other, H5S_SELECT_SET, start, NULL, cnt, NULL);
    H5Sselect_copy(fs, other);
    H5Sclose(other);
}
static void modified_by(hid_t fs)
{
    hsize_t dims[2] = {N, N}, start[2] = {8, 8}, cnt[2] = {2, 8};
    hid_t other = H5Screate_simple(2, dims, NULL);
    H5Sselect_hyperslab(other, H5S_SELECT_SET, start, NULL, cnt, NULL);
    H5Smodify_select(fs, H5S_SELECT_OR, other);
    H5Sclose(other);
}
static void adjusted(hid_t fs)
{
    hssize_t off[2] = {-2, -1};
    H5Sselect_adjust(fs, off);
}
#endif

/* Another thread selects the same dataspace between this thread's SET
 * and its access (HDF5 built thread-safe only). */
struct other { hid_t fs; pthread_barrier_t *b; };
static void *other_thread(void *arg)
{
    struct other *o = arg;
    pthread_barrier_wait(o->b);
    hsize_t start[2] = {4, 4}, cnt[2] = {2, 7};
    H5Sselect_hyperslab(o->fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
    pthread_barrier_wait(o->b);
    return NULL;
}

static void another_thread(void)
{
    hbool_t safe = 0;
    H5is_library_threadsafe(&safe);
    if (!safe)
        return;
    hid_t fs;
    struct expect *e;
    hid_t d = dataset("other_thread", 2, &fs, &e);
    pthread_barrier_t b;
    pthread_barrier_init(&b, NULL, 2);
    struct other o = {fs, &b};
    pthread_t t;
    pthread_create(&t, NULL, other_thread, &o);
    set_slab(fs, 0, 0);
    pthread_barrier_wait(&b);
    pthread_barrier_wait(&b);
    io(e, d, fs, 1);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&b);
    H5Sclose(fs);
    H5Dclose(d);
}

static void plain_cases(void)
{
    hid_t fs, d;
    struct expect *e;

    /* SET, then the access: three writes and a read of one shape. */
    d = dataset("set", 2, &fs, &e);
    for (int i = 0; i < 3; i++) {
        set_slab(fs, (hsize_t)i, (hsize_t)i);
        io(e, d, fs, 1);
    }
    set_slab(fs, 1, 0);
    io(e, d, fs, 0);
    /* The same selection again, not set again. */
    io(e, d, fs, 0);
    H5Sclose(fs);
    H5Dclose(d);

    /* SET on the file space, then on the memory space, then the access. */
    d = dataset("file_then_memory", 2, &fs, &e);
    for (int i = 0; i < 2; i++) {
        hsize_t big = 64, mstart = 3, mcnt = 24;
        hid_t ms = H5Screate_simple(1, &big, NULL);
        set_slab(fs, 2, 0);
        check(H5Sselect_hyperslab(ms, H5S_SELECT_SET, &mstart, NULL, &mcnt, NULL) >= 0, "memory SET");
        check(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf) >= 0, "write");
        count(e, fs, 1);
        H5Sclose(ms);
    }
    H5Sclose(fs);
    H5Dclose(d);

    /* Six dimensions (Darshan keeps five), NULL stride and block, and a
     * zero count (none selected). */
    d = dataset("six_dims", 6, &fs, &e);
    hsize_t start[6] = {1, 2, 0, 1, 0, 1}, cnt[6] = {3, 4, 2, 1, 2, 1};
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0, "6-D SET");
    io(e, d, fs, 1);
    hsize_t none[6] = {3, 0, 2, 1, 2, 1};
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, none, NULL) >= 0, "zero SET");
    io(e, d, fs, 0);
    H5Sclose(fs);
    H5Dclose(d);

    /* The rank of a dataspace changed between two SETs: the second SET's
     * arrays hold a third value that only the old rank would read. */
    d = dataset("rank_changed", 2, &fs, &e);
    hsize_t dims3[3] = {N, N, 2}, dims2[2] = {N, N};
    check(H5Sset_extent_simple(fs, 3, dims3, NULL) >= 0, "rank 3");
    hsize_t s3[3] = {0, 0, 0}, c3[3] = {2, 2, 2};
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, s3, NULL, c3, NULL) >= 0, "3-D SET");
    check(H5Sset_extent_simple(fs, 2, dims2, NULL) >= 0, "rank 2");
    hsize_t c2[3] = {2, 3, 7};
    check(H5Sselect_hyperslab(fs, H5S_SELECT_SET, s3, NULL, c2, NULL) >= 0, "2-D SET");
    io(e, d, fs, 1);
    H5Sclose(fs);
    H5Dclose(d);

    /* A dataspace closed and another made after a SET. */
    d = dataset("closed", 2, &fs, &e);
    set_slab(fs, 0, 0);
    H5Sclose(fs);
    fs = H5Dget_space(d);
    io(e, d, fs, 1);
    H5Sclose(fs);
    H5Dclose(d);
}

int main(int argc, char **argv)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/sel.h5", argc > 1 ? argv[1] : ".");
    file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(file >= 0, "H5Fcreate");
    for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++)
        buf[i] = (double)i;
    plain_cases();
    changed_after_set("points", to_points);
    changed_after_set("all", to_all);
    changed_after_set("none", to_none);
    changed_after_set("or_row", or_row);
    changed_after_set("set_again", shrink);
    changed_after_set("offset", offset);
    changed_after_set("set_extent", new_extent);
    changed_after_set("extent_copy", extent_from);
#if H5_VERSION_GE(1, 10, 7)
    changed_after_set("select_copy", copy_from);
    changed_after_set("modify_select", modified_by);
    changed_after_set("select_adjust", adjusted);
#endif
    another_thread();
    H5Fclose(file);
    for (int i = 0; i < nex; i++) {
        struct expect *e = &ex[i];
        printf("%s %lld %lld %lld %lld %lld\n", e->name, e->bytes_w, e->bytes_r, e->regular, e->irregular,
               e->points);
        for (int k = 0; k < e->nt; k++) {
            printf("= %s", e->name);
            for (int j = 0; j < 11; j++)
                printf(" %lld", e->t[k].v[j]);
            printf(" %ld\n", e->t[k].count);
        }
    }
    return 0;
}
