/* Two HDF5 libraries in one process, as h5py and netCDF4 wheels bring
 * theirs: plug-ins A and B (h5_other_lib.c built on two HDF5s), each
 * loaded RTLD_LOCAL with its own library; the program itself has none.
 * A and B each create a file and a dataset (the same id numbers in the
 * two libraries), both stay open while A then B write and read theirs;
 * then A does it all once more.
 * usage: h5_two_libs <dir> <plug-in A> <plug-in B>; prints "ok" when
 * every call of both succeeded and every value came back. */
#include <dlfcn.h>
#include <stdio.h>

struct plugin {
    int (*open)(const char *, const char *);
    int (*finish)(void);
};

static int load(const char *so, struct plugin *p)
{
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 0;
    }
    p->open = (int (*)(const char *, const char *))dlsym(h, "other_lib_open");
    p->finish = (int (*)(void))dlsym(h, "other_lib_finish");
    return p->open && p->finish;
}

int main(int argc, char **argv)
{
    struct plugin a, b;
    if (argc < 4 || !load(argv[2], &a) || !load(argv[3], &b)) return 2;
    const char *dir = argv[1];
    int bad = 0;
    if (a.open(dir, "a.h5") || b.open(dir, "b.h5")) bad = fprintf(stderr, "creating failed\n");
    if (a.finish()) bad = fprintf(stderr, "plug-in A's HDF5 calls failed\n");
    if (b.finish()) bad = fprintf(stderr, "plug-in B's HDF5 calls failed\n");
    if (a.open(dir, "a2.h5") || a.finish()) bad = fprintf(stderr, "plug-in A's second file failed\n");
    puts(bad ? "bad" : "ok");
    return bad != 0;
}
