/* Relative paths opened after every way the working directory changes:
 * chdir, fchdir, nftw with FTW_CHDIR and fts without FTS_NOCHDIR (both
 * change directory inside glibc, unseen by interposition), a thread with
 * a directory of its own (unshare(CLONE_FS)), and a raw chdir system
 * call. Before each change a relative open fills the runtime's cached
 * directory, so a stale cache would name the next file wrongly.
 * Usage: cwd_moves BASE (an absolute, empty directory). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static char base[4096];

static void touch(const char *rel) {
    int fd = open(rel, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "x", 1) != 1) {
        perror(rel);
        exit(1);
    }
    close(fd);
}

static void dir(const char *rel) {
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    if (mkdir(p, 0755) != 0) {
        perror(p);
        exit(1);
    }
}

static void go(const char *rel) {
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    if (chdir(p) != 0) {
        perror(p);
        exit(1);
    }
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *f) {
    (void)st;
    if (type == FTW_F) /* the name alone: nftw is in the file's directory */
        touch(path + f->base);
    return 0;
}

static void *own_dir(void *arg) {
    (void)arg;
    if (unshare(CLONE_FS) != 0) {
        perror("unshare");
        exit(1);
    }
    go("t4");
    touch("z.dat");
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    snprintf(base, sizeof base, "%s", argv[1]);
    const char *dirs[] = {"d1", "d2", "d3", "t4", "raw", "tree", "tree/a", "tree/b", "tree2", "tree2/a", "tree2/b"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) dir(dirs[i]);

    go("d1");
    touch("x.dat");
    if (chdir("../d2") != 0) return 1;
    touch("x.dat");
    char p[8192];
    snprintf(p, sizeof p, "%s/d3", base);
    int d3 = open(p, O_RDONLY | O_DIRECTORY);
    if (d3 < 0 || fchdir(d3) != 0) return 1;
    close(d3);
    touch("x.dat");

    /* Files for the walks, made with absolute names. */
    const char *files[] = {"tree/a/f.dat", "tree/b/f.dat", "tree2/a/g.dat", "tree2/b/g.dat"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", base, files[i]);
        touch(p);
    }

    touch("y.dat"); /* d3 again: the cache holds d3 */
    snprintf(p, sizeof p, "%s/tree", base);
    if (nftw(p, visit, 8, FTW_CHDIR | FTW_PHYS) != 0) return 1;

    touch("y.dat");
    snprintf(p, sizeof p, "%s/tree2", base);
    char *roots[] = {p, NULL};
    FTS *fts = fts_open(roots, FTS_PHYSICAL, NULL);
    if (!fts) return 1;
    for (FTSENT *e; (e = fts_read(fts)) != NULL;)
        if (e->fts_info == FTS_F) touch(e->fts_accpath);
    fts_close(fts);
    touch("w.dat"); /* fts_close went back to d3 */

    /* A chdir no interposition sees: right for names after the age limit. */
    snprintf(p, sizeof p, "%s/raw", base);
    if (syscall(SYS_chdir, p) != 0) return 1;
    usleep(50 * 1000);
    touch("r.dat");

    /* Last: after unshare(CLONE_FS) the cache is off for good. */
    go("d1");
    touch("y.dat");
    pthread_t t;
    if (pthread_create(&t, NULL, own_dir, NULL) != 0 || pthread_join(t, NULL) != 0) return 1;
    touch("w.dat"); /* still d1 in this thread */

    return 0;
}
