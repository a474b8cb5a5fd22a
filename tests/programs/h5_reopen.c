/* Datasets opened again after something put another dataset at their
 * path (a link deleted or moved, the file rewritten by another process
 * while closed, an external file rewritten), or another dataset under
 * the same Darshan record name (`/g` + `d` and `/` + `gd` are both
 * `<file>:/gd`), or after their extent grew. After each open the program
 * asks HDF5 what Darshan's wrapper asks (the dataspace, the datatype's
 * size, the chunk sizes from the creation property list) and keeps, per
 * record name, what the last open sets. It prints one line per record:
 *   <file>:<name> <opens> <ndims> <npoints> <type size> <chunk D1..D5>
 * (chunk sizes D1 the fastest-varying, as Darshan keeps them; only a
 * chunked open sets them).
 * usage: h5_reopen <dir>            (the run)
 *        h5_reopen --make <file> <chunk> <type size>   (another process
 *        rewriting a file: its /z and /e chunked <chunk> x <chunk>) */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct rec { char name[600]; long long opens, ndims, npoints, type_size, chunk[5]; };
static struct rec recs[32];
static int nrecs;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "h5_reopen: %s failed\n", what);
        exit(1);
    }
}

static hid_t type_of(int size)
{
    return size == 2 ? H5T_NATIVE_SHORT : size == 4 ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE;
}

/* A 2-D dataset n x n at `loc`/`name`, chunked c x c (0: contiguous). */
static void make(hid_t loc, const char *name, hsize_t n, hsize_t c, int size)
{
    hsize_t dims[2] = {n, n}, max[2] = {H5S_UNLIMITED, H5S_UNLIMITED}, chunk[2] = {c, c};
    hid_t s = H5Screate_simple(2, dims, c ? max : NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (c)
        H5Pset_chunk(dcpl, 2, chunk);
    hid_t d = H5Dcreate2(loc, name, type_of(size), s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(d >= 0, name);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
}

/* Opens `loc`/`name` as the program would, and notes what Darshan's
 * wrapper sets for record `<file>:<loc path><name>`. */
static void open_one(const char *file, hid_t loc, const char *name)
{
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    check(d >= 0, name);
    char locname[256] = "";
    H5Iget_name(loc, locname, sizeof locname);
    char full[600];
    snprintf(full, sizeof full, "%s:%s%s", file, locname, name);
    struct rec *r = NULL;
    for (int i = 0; i < nrecs; i++)
        if (!strcmp(recs[i].name, full))
            r = &recs[i];
    if (!r) {
        r = &recs[nrecs++];
        memset(r, 0, sizeof *r);
        strcpy(r->name, full);
    }
    r->opens++;
    hid_t s = H5Dget_space(d), t = H5Dget_type(d), p = H5Dget_create_plist(d);
    r->ndims = H5Sget_simple_extent_ndims(s);
    r->npoints = H5Sget_simple_extent_npoints(s);
    r->type_size = (long long)H5Tget_size(t);
    if (H5Pget_layout(p) == H5D_CHUNKED) {
        hsize_t c[32] = {0};
        int n = H5Pget_chunk(p, 5, c);
        for (int i = 0; i < 5; i++)
            r->chunk[i] = i < n ? (long long)c[n - i - 1] : 0;
    }
    H5Pclose(p);
    H5Tclose(t);
    H5Sclose(s);
    H5Dclose(d);
}

/* Another process, without the runtime, rewrites `path`. */
static void rewritten(const char *self, const char *path, int chunk, int size)
{
    char c[16], z[16];
    snprintf(c, sizeof c, "%d", chunk);
    snprintf(z, sizeof z, "%d", size);
    pid_t pid = fork();
    if (pid == 0) {
        static char *env[64];
        int n = 0;
        for (char **e = environ; *e && n < 62; e++)
            if (strncmp(*e, "LD_PRELOAD=", 11))
                env[n++] = *e;
        env[n] = NULL;
        char *argv[] = {(char *)self, "--make", (char *)path, c, z, NULL};
        execve(self, argv, env);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the other process");
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--make")) {
        hid_t f = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        check(f >= 0, "H5Fcreate");
        make(f, "z", 16, (hsize_t)atoi(argv[3]), atoi(argv[4]));
        make(f, "e", 16, (hsize_t)atoi(argv[3]), atoi(argv[4]));
        H5Fclose(f);
        return 0;
    }
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/reopen.h5", argv[1]);
    snprintf(b, sizeof b, "%s/other.h5", argv[1]);

    rewritten(argv[0], b, 4, 8);
    hid_t f = H5Fcreate(a, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(f >= 0, "H5Fcreate");

    /* Opened twice, then deleted and made again (through its group, so
     * under another record name) and opened by its path again. */
    hid_t h = H5Gcreate2(f, "h", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    make(f, "h/y", 16, 4, 8);
    open_one(a, f, "h/y");
    open_one(a, f, "h/y");
    check(H5Ldelete(f, "h/y", H5P_DEFAULT) >= 0, "H5Ldelete");
    make(h, "y", 8, 2, 4);
    open_one(a, f, "h/y");

    /* Moved away, another made in its place. */
    hid_t m = H5Gcreate2(f, "m", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    make(m, "d", 16, 4, 8);
    open_one(a, f, "m/d");
    H5Gclose(m);
    check(H5Lmove(f, "m", f, "m2", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lmove");
    m = H5Gcreate2(f, "m", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    make(m, "d", 8, 8, 4);
    open_one(a, f, "m/d");
    H5Gclose(m);

    /* Two datasets under one record name, the last open the other's. */
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    make(g, "d", 16, 4, 8);
    make(f, "gd", 10, 0, 2);
    open_one(a, g, "d");
    open_one(a, g, "d");
    open_one(a, f, "gd");
    H5Gclose(g);

    /* Its extent grown between two opens. */
    make(f, "grow", 8, 4, 8);
    open_one(a, f, "grow");
    hid_t d = H5Dopen2(f, "grow", H5P_DEFAULT);
    hsize_t bigger[2] = {12, 20};
    check(H5Dset_extent(d, bigger) >= 0, "H5Dset_extent");
    H5Dclose(d);
    open_one(a, f, "grow");

    /* Through an external link: the other file rewritten meanwhile by
     * another process (this one never opened it itself). */
    check(H5Lcreate_external(b, "e", f, "ext", H5P_DEFAULT, H5P_DEFAULT) >= 0, "H5Lcreate_external");
    open_one(a, f, "ext");
    rewritten(argv[0], b, 2, 4);
    open_one(a, f, "ext");

    /* Closed (with H5Fclose; as h5py closes, with H5Idec_ref), the file
     * rewritten by another process, opened again: one file each. */
    H5Gclose(h);
    H5Fclose(f);
    for (int round = 0; round < 2; round++) {
        char c[512];
        snprintf(c, sizeof c, "%s/closed%d.h5", argv[1], round);
        rewritten(argv[0], c, 4, 8);
        hid_t o = H5Fopen(c, H5F_ACC_RDONLY, H5P_DEFAULT);
        check(o >= 0, "H5Fopen");
        open_one(c, o, "z");
        if (round == 0)
            H5Fclose(o);
        else
            H5Idec_ref(o);
        rewritten(argv[0], c, 8, 2);
        o = H5Fopen(c, H5F_ACC_RDONLY, H5P_DEFAULT);
        check(o >= 0, "H5Fopen again");
        open_one(c, o, "z");
        H5Fclose(o);
    }

    for (int i = 0; i < nrecs; i++) {
        struct rec *r = &recs[i];
        printf("%s %lld %lld %lld %lld", r->name, r->opens, r->ndims, r->npoints, r->type_size);
        for (int k = 0; k < 5; k++)
            printf(" %lld", r->chunk[k]);
        printf("\n");
    }
    return 0;
}
