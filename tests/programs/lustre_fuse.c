/* A FUSE file system that serves what a Lustre client would, for the
 * LUSTRE module's end-to-end tests: regular files kept in a backing
 * directory, and for each file the `lustre.lov` extended attribute found
 * in the layouts directory under the file's name (none: ENODATA, as a
 * Lustre file without striping has no attribute ... here, not on Lustre).
 *
 * usage: lustre_fuse <backing dir> <layouts dir> <mount point>
 * Runs in the foreground, single-threaded, until unmounted. */
#define FUSE_USE_VERSION 31
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static char backing[PATH_MAX], layouts[PATH_MAX];

static void real_path(char *out, const char *path)
{
    snprintf(out, PATH_MAX, "%s%s", backing, path);
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    char p[PATH_MAX];
    if (fi)
        return fstat(fi->fh, st) < 0 ? -errno : 0;
    real_path(p, path);
    return lstat(p, st) < 0 ? -errno : 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
    char p[PATH_MAX];
    struct dirent *e;
    (void)off; (void)fi; (void)flags;
    real_path(p, path);
    DIR *d = opendir(p);
    if (!d)
        return -errno;
    while ((e = readdir(d)) != NULL)
        fill(buf, e->d_name, NULL, 0, 0);
    closedir(d);
    return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
    char p[PATH_MAX];
    real_path(p, path);
    int fd = open(p, fi->flags & ~O_CREAT);
    if (fd < 0)
        return -errno;
    fi->fh = fd;
    return 0;
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
    char p[PATH_MAX];
    real_path(p, path);
    int fd = open(p, fi->flags | O_CREAT, mode);
    if (fd < 0)
        return -errno;
    fi->fh = fd;
    return 0;
}

static int fs_read(const char *path, char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    ssize_t r = pread(fi->fh, buf, n, off);
    return r < 0 ? -errno : (int)r;
}

static int fs_write(const char *path, const char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
    (void)path;
    ssize_t r = pwrite(fi->fh, buf, n, off);
    return r < 0 ? -errno : (int)r;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
    (void)path;
    close(fi->fh);
    return 0;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
    char p[PATH_MAX];
    if (fi)
        return ftruncate(fi->fh, size) < 0 ? -errno : 0;
    real_path(p, path);
    return truncate(p, size) < 0 ? -errno : 0;
}

static int fs_unlink(const char *path)
{
    char p[PATH_MAX];
    real_path(p, path);
    return unlink(p) < 0 ? -errno : 0;
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
    char p[PATH_MAX];
    (void)fi;
    real_path(p, path);
    return utimensat(AT_FDCWD, p, tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* LUSTRE_FUSE_BSIZE=<bytes> reports that block size, as a Lustre client
 * reports its stripe size: the runtime takes a mount's block size as the
 * file alignment of files on it. LUSTRE_FUSE_STATFS_SLEEP=<seconds>
 * answers statfs that late, as a client of a server that is down. */
static int fs_statfs(const char *path, struct statvfs *st)
{
    (void)path;
    const char *sleep_s = getenv("LUSTRE_FUSE_STATFS_SLEEP");
    if (sleep_s && atoi(sleep_s) > 0)
        sleep((unsigned)atoi(sleep_s));
    if (statvfs(backing, st) < 0)
        return -errno;
    const char *b = getenv("LUSTRE_FUSE_BSIZE");
    if (b && atol(b) > 0) {
        unsigned long bs = (unsigned long)atol(b);
        st->f_blocks = st->f_blocks * st->f_frsize / bs;
        st->f_bfree = st->f_bfree * st->f_frsize / bs;
        st->f_bavail = st->f_bavail * st->f_frsize / bs;
        st->f_bsize = st->f_frsize = bs;
    }
    return 0;
}

static int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
    (void)path;
    return (datasync ? fdatasync(fi->fh) : fsync(fi->fh)) < 0 ? -errno : 0;
}

/* The recorded layout of this file, if any: the bytes of
 * <layouts>/<the file's name>. */
static int fs_getxattr(const char *path, const char *name, char *value, size_t size)
{
    char p[2 * PATH_MAX + 2];
    const char *base = strrchr(path, '/');
    if (strcmp(name, "lustre.lov") != 0)
        return -ENODATA;
    snprintf(p, sizeof p, "%s/%s", layouts, base ? base + 1 : path);
    FILE *f = fopen(p, "rb");
    if (!f)
        return -ENODATA;
    char blob[65536];
    size_t n = fread(blob, 1, sizeof blob, f);
    fclose(f);
    if (size == 0)
        return (int)n;
    if (size < n)
        return -ERANGE;
    memcpy(value, blob, n);
    return (int)n;
}

static const struct fuse_operations ops = {
    .getattr = fs_getattr,
    .readdir = fs_readdir,
    .open = fs_open,
    .create = fs_create,
    .read = fs_read,
    .write = fs_write,
    .release = fs_release,
    .truncate = fs_truncate,
    .unlink = fs_unlink,
    .utimens = fs_utimens,
    .statfs = fs_statfs,
    .fsync = fs_fsync,
    .getxattr = fs_getxattr,
};

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s <backing dir> <layouts dir> <mount point>\n", argv[0]);
        return 2;
    }
    if (!realpath(argv[1], backing) || !realpath(argv[2], layouts)) {
        perror("realpath");
        return 2;
    }
    char *fargv[] = {argv[0], argv[3], "-f", "-s", "-o", "allow_other", NULL};
    return fuse_main(6, fargv, &ops, NULL);
}
