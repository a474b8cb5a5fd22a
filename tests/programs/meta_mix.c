/* POSIX_META's known pattern: a known number of each call it counts, by
 * path, by descriptor, through a directory descriptor (*at forms, with
 * AT_EMPTY_PATH) and relative to the working directory after a chdir.
 * argv[1]: an empty directory to work in. Prints "xattr=ok" or
 * "xattr=unsupported" (user xattrs on the file system there). The
 * expected counts are in ffi/tests/posix_meta.rs. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

static char D[4096];

static const char *at(const char *name) {
    static char buf[8][4200];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", D, name);
    return b;
}

static void touch(const char *p) {
    int fd = open(p, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) { perror(p); exit(1); }
    close(fd);
}

static void must(int ok, const char *what) {
    if (!ok) { perror(what); exit(1); }
}

static void list(DIR *d) {
    while (readdir(d) != NULL) {}
    closedir(d);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (!realpath(argv[1], D)) { perror(argv[1]); return 1; }
    int dfd = open(D, O_RDONLY | O_DIRECTORY);
    must(dfd >= 0, "open dir");

    /* mkdir: by path, at, and relative after chdir. */
    must(mkdir(at("sub"), 0755) == 0, "mkdir");
    must(mkdirat(dfd, "sub2", 0755) == 0, "mkdirat");
    must(chdir(D) == 0, "chdir");
    must(mkdir("sub3", 0755) == 0, "mkdir rel");
    /* rmdir and unlinkat(AT_REMOVEDIR). */
    must(rmdir("sub3") == 0, "rmdir rel");
    must(unlinkat(dfd, "sub2", AT_REMOVEDIR) == 0, "unlinkat dir");

    /* unlink: by path, at, relative; remove(). */
    touch(at("f1")); touch(at("f2")); touch(at("f3")); touch(at("f4"));
    must(unlink(at("f1")) == 0, "unlink");
    must(unlinkat(dfd, "f2", 0) == 0, "unlinkat");
    must(unlink("f3") == 0, "unlink rel");
    must(remove(at("f4")) == 0, "remove");
    if (unlink(at("missing")) == 0) return 1; /* fails: not counted */

    /* rename and renameat: counted on both names. */
    touch(at("a"));
    must(rename(at("a"), at("b")) == 0, "rename");
    must(renameat(dfd, "b", dfd, "c") == 0, "renameat");

    /* Directory streams: 5 files + . and .. = 7 entries, 8 readdir calls
     * each time (the last finds the end); opendir, fdopendir. */
    must(mkdir(at("list"), 0755) == 0, "mkdir list");
    for (int i = 0; i < 5; i++) {
        char n[32];
        snprintf(n, sizeof n, "list/e%d", i);
        touch(at(n));
    }
    DIR *d = opendir(at("list"));
    must(d != NULL, "opendir");
    list(d);
    int lfd = open(at("list"), O_RDONLY | O_DIRECTORY);
    must(lfd >= 0, "open list");
    d = fdopendir(lfd);
    must(d != NULL, "fdopendir");
    list(d);

    /* Attributes of t: truncate x2 + ftruncate; fallocate + posix_fallocate;
     * chmod, fchmod, fchmodat; chown, lchown, fchown, fchownat, fchownat
     * (AT_EMPTY_PATH); access x2, faccessat; utime, utimes, utimensat,
     * futimens. */
    touch(at("t"));
    int tfd = open(at("t"), O_RDWR);
    must(tfd >= 0, "open t");
    must(truncate(at("t"), 100) == 0, "truncate");
    must(truncate("t", 200) == 0, "truncate rel");
    must(ftruncate(tfd, 16384) == 0, "ftruncate");
    must(fallocate(tfd, 0, 0, 4096) == 0, "fallocate");
    must(posix_fallocate(tfd, 0, 8192) == 0, "posix_fallocate");
    must(chmod(at("t"), 0640) == 0, "chmod");
    must(fchmod(tfd, 0644) == 0, "fchmod");
    must(fchmodat(dfd, "t", 0644, 0) == 0, "fchmodat");
    uid_t u = getuid();
    gid_t g = getgid();
    must(chown(at("t"), u, g) == 0, "chown");
    must(lchown(at("t"), u, g) == 0, "lchown");
    must(fchown(tfd, u, g) == 0, "fchown");
    must(fchownat(dfd, "t", u, g, 0) == 0, "fchownat");
    must(fchownat(tfd, "", u, g, AT_EMPTY_PATH) == 0, "fchownat empty");
    must(access(at("t"), R_OK) == 0, "access");
    must(access("t", W_OK) == 0, "access rel");
    must(faccessat(dfd, "t", R_OK, 0) == 0, "faccessat");
    if (access(at("missing"), F_OK) == 0) return 1; /* fails: not counted */
    must(utime(at("t"), NULL) == 0, "utime");
    must(utimes(at("t"), NULL) == 0, "utimes");
    must(utimensat(dfd, "t", NULL, 0) == 0, "utimensat");
    must(futimens(tfd, NULL) == 0, "futimens");

    /* Links: counted on the new name. */
    must(link(at("t"), at("t_hard")) == 0, "link");
    must(linkat(dfd, "t", dfd, "t_hard2", 0) == 0, "linkat");
    must(symlink("t", at("t_sym")) == 0, "symlink");
    must(symlinkat("t", dfd, "t_sym2") == 0, "symlinkat");
    char buf[64];
    must(readlink(at("t_sym"), buf, sizeof buf) > 0, "readlink");
    must(readlink("t_sym", buf, sizeof buf) > 0, "readlink rel");
    must(readlinkat(dfd, "t_sym2", buf, sizeof buf) > 0, "readlinkat");

    /* Extended attributes: set x2 (path, fd), get x3 (path x2, fd). */
    int xok = setxattr(at("t"), "user.darshan", "1", 1, 0) == 0;
    if (xok) {
        must(fsetxattr(tfd, "user.darshan", "2", 1, 0) == 0, "fsetxattr");
        must(getxattr(at("t"), "user.darshan", buf, sizeof buf) >= 0, "getxattr");
        must(getxattr("t", "user.darshan", buf, sizeof buf) >= 0, "getxattr rel");
        must(fgetxattr(tfd, "user.darshan", buf, sizeof buf) >= 0, "fgetxattr");
    }

    /* Mappings of m: a shared writable one of 8 KiB (msync x2) and a
     * private read-only one of 4 KiB; both unmapped. An anonymous mapping
     * and its munmap are not counted. A descriptor the runtime never saw
     * opened (a raw system call) is named by /proc/self/fd. */
    touch(at("m"));
    int mfd = (int)syscall(SYS_openat, AT_FDCWD, at("m"), O_RDWR);
    must(mfd >= 0, "raw open m");
    must(ftruncate(mfd, 8192) == 0, "ftruncate m");
    void *p1 = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    must(p1 != MAP_FAILED, "mmap shared");
    void *p2 = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, mfd, 0);
    must(p2 != MAP_FAILED, "mmap private");
    void *anon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    must(anon != MAP_FAILED, "mmap anon");
    memset(p1, 'x', 8192);
    must(msync(p1, 8192, MS_SYNC) == 0, "msync");
    must(msync(p1, 4096, MS_ASYNC) == 0, "msync 2");
    must(munmap(anon, 1 << 20) == 0, "munmap anon");
    must(munmap(p1, 8192) == 0, "munmap");
    must(munmap(p2, 4096) == 0, "munmap 2");

    /* System paths are left out (as Darshan leaves them out of POSIX). */
    access("/etc/passwd", R_OK);
    d = opendir("/proc/self");
    if (d) list(d);

    close(mfd);
    close(tfd);
    close(dfd);
    printf("xattr=%s\n", xok ? "ok" : "unsupported");
    return 0;
}
