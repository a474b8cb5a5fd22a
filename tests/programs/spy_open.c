/* Preloaded before libdarshan.so, it watches the runtime's crash-safe
 * file and prints at exit:
 * "spy: crash-safe file made in <ns> ns" (from the open of the
 *   "mmap-log" file to the close of that descriptor), and
 * "spy: <n> writes to the crash-safe file, lowest fd <fd>" (the writes
 *   that make it and give it storage, and the lowest descriptor number
 *   they went through), and
 * "spy: <n> opens of the crash-safe file" (making it, growing it), and
 * "spy: <n> opens of /proc/self/status", and
 * "spy: <n> anonymous mappings" (fresh ones, not MAP_FIXED: each is a
 *   system call and a mapping of its own).
 * The runtime writes its log after this report (its destructor runs
 * after the spy's), so what concerns the log is said when it happens:
 * "spy: a partial log opened" (a log written under a temporary name,
 *   `.darshan_partial`, before its rename), "spy: log linked by
 *   descriptor" (linkat with AT_EMPTY_PATH), "spy: log linked through
 *   /proc" (linkat of a /proc/self/fd path).
 * With SPY_NO_FLINK=1, linkat with AT_EMPTY_PATH fails with ENOENT, as
 * a kernel before 6.10 answers a process without CAP_DAC_READ_SEARCH.
 * With SPY_STRETCH_MS=<n> in the environment, the making of the file is
 * stretched by sleeping n ms right after its open: a test can then tell
 * "inside the timed interval" from "outside it" by a margin no machine's
 * noise reaches, instead of comparing two times of a few microseconds.
 * With SPY_STRETCH_LOCALTIME_MS=<n>, every open of /etc/localtime (the
 * local time zone, which the runtime reads only to name its log at exit)
 * sleeps n ms first. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static int spied = -1;
static long long t_open, took;
static dev_t file_dev;
static ino_t file_ino;
static long writes;
static int lowest_fd = -1;

static long long now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long mmap_opens;
static long status_opens;

static void sleep_ms(const char *ms)
{
    long n = atol(ms);
    struct timespec d = {n / 1000, (n % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0)
        ;
}

/* Before the open: the stretch for the time zone's. */
static void opening(const char *path)
{
    const char *ms = getenv("SPY_STRETCH_LOCALTIME_MS");
    if (ms && path && !strcmp(path, "/etc/localtime"))
        sleep_ms(ms);
}

static int opened(const char *path, int fd, long long t)
{
    if (path && strstr(path, ".darshan_partial"))
        fprintf(stderr, "spy: a partial log opened\n");
    if (path && !strcmp(path, "/proc/self/status"))
        status_opens++;
    if (fd >= 0 && path && strstr(path, "mmap-log"))
        mmap_opens++;
    if (fd >= 0 && path && strstr(path, "mmap-log") && took == 0) {
        struct stat st;
        spied = fd;
        t_open = t;
        if (fstat(fd, &st) == 0) {
            file_dev = st.st_dev;
            file_ino = st.st_ino;
        }
        const char *ms = getenv("SPY_STRETCH_MS");
        if (ms)
            sleep_ms(ms);
    }
    return fd;
}

int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int mode = va_arg(ap, int);
    va_end(ap);
    opening(path);
    long long t = now();
    int (*r)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
    return opened(path, r(path, flags, mode), t);
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    int mode = va_arg(ap, int);
    va_end(ap);
    opening(path);
    long long t = now();
    int (*r)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    return opened(path, r(path, flags, mode), t);
}

int close(int fd)
{
    int (*r)(int) = (int (*)(int))dlsym(RTLD_NEXT, "close");
    int ret = r(fd);
    if (fd == spied) {
        took = now() - t_open;
        spied = -1;
    }
    return ret;
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    ssize_t (*r)(int, const void *, size_t, off_t) =
        (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite64");
    struct stat st;
    if (file_ino && fstat(fd, &st) == 0 && st.st_ino == file_ino && st.st_dev == file_dev) {
        writes++;
        if (lowest_fd < 0 || fd < lowest_fd)
            lowest_fd = fd;
    }
    return r(fd, buf, n, off);
}

static long anon_maps;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *(*r)(void *, size_t, int, int, int, off_t) =
        (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    if ((flags & MAP_ANONYMOUS) && !(flags & MAP_FIXED))
        anon_maps++;
    return r(addr, len, prot, flags, fd, off);
}

int linkat(int olddir, const char *old, int newdir, const char *new, int flags)
{
    int (*r)(int, const char *, int, const char *, int) =
        (int (*)(int, const char *, int, const char *, int))dlsym(RTLD_NEXT, "linkat");
    int by_fd = (flags & AT_EMPTY_PATH) != 0;
    if (by_fd && getenv("SPY_NO_FLINK")) {
        errno = ENOENT;
        return -1;
    }
    int ret = r(olddir, old, newdir, new, flags);
    if (ret == 0 && by_fd)
        fprintf(stderr, "spy: log linked by descriptor\n");
    if (ret == 0 && !strncmp(old, "/proc/self/fd/", 14))
        fprintf(stderr, "spy: log linked through /proc\n");
    return ret;
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "spy: crash-safe file made in %lld ns\n", took);
    fprintf(stderr, "spy: %ld writes to the crash-safe file, lowest fd %d\n", writes, lowest_fd);
    fprintf(stderr, "spy: %ld opens of the crash-safe file\n", mmap_opens);
    fprintf(stderr, "spy: %ld opens of /proc/self/status\n", status_opens);
    fprintf(stderr, "spy: %ld anonymous mappings\n", anon_maps);
}
