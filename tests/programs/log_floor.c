/* The least that writing a Darshan log obliges a process to do, as a
 * preloaded library that interposes nothing (scripts/bench_runtime.py's
 * floor for issue 51's per-process goals):
 *   - at start, the mount table the log's job region holds (read from
 *     /proc/self/mounts, and a statfs per kept mount for its block size,
 *     as the runtime and C Darshan do);
 *   - at exit, the local date for the log's name (localtime_r, as C
 *     does), a job region of 1,088 bytes as one zlib stream in a single
 *     stored block (no compression: the cheapest valid stream), and the
 *     log written under a new name (open O_EXCL, write, close, rename).
 * LOG_FLOOR_SKIP names a part to leave out (mounts, time, zlib, write;
 * several with commas), so that each part's share can be measured;
 * "all" leaves out everything but loading the library.
 * Needs DARSHAN_LOGPATH (a writable directory). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

static char mounts[16384];
static ssize_t mounts_len;

static int skipped(const char *part) {
    const char *s = getenv("LOG_FLOOR_SKIP");
    return s && (strstr(s, part) || strstr(s, "all"));
}

/* The runtime's SKIPPED_TYPES (core/src/counting/mounts.rs). */
static int pseudo(const char *type) {
    static const char *const types[] = {"tmpfs", "proc", "sysfs", "devpts", "binfmt_misc", "fusectl", "debugfs",
                                        "securityfs", "nfsd", "none", "rpc_pipefs", "hugetlbfs", "cgroup"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(type, types[i]) == 0) return 1;
    return 0;
}

static void read_mounts(void) {
    int fd = open("/proc/self/mounts", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n;
    while (mounts_len < (ssize_t)sizeof mounts - 1 &&
           (n = read(fd, mounts + mounts_len, sizeof mounts - 1 - mounts_len)) > 0)
        mounts_len += n;
    close(fd);
    char copy[sizeof mounts];
    memcpy(copy, mounts, mounts_len + 1);
    char *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char dev[256], path[1024], type[64];
        struct statfs s;
        if (sscanf(line, "%255s %1023s %63s", dev, path, type) == 3 && !pseudo(type)) statfs(path, &s);
    }
}

__attribute__((constructor)) static void start(void) {
    if (!skipped("mounts")) read_mounts();
}

static uint32_t adler32(const unsigned char *d, size_t n) {
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + d[i]) % 65521;
        b = (b + a) % 65521;
    }
    return b << 16 | a;
}

/* `in` as a zlib stream of one final stored block; returns its length. */
static size_t stored_zlib(const unsigned char *in, uint16_t n, unsigned char *out) {
    uint32_t check = adler32(in, n);
    unsigned char head[7] = {0x78, 0x01, 0x01, n & 0xff, n >> 8, ~n & 0xff, (~n >> 8) & 0xff};
    memcpy(out, head, sizeof head);
    memcpy(out + sizeof head, in, n);
    unsigned char *t = out + sizeof head + n;
    t[0] = check >> 24, t[1] = check >> 16, t[2] = check >> 8, t[3] = check;
    return sizeof head + n + 4;
}

__attribute__((destructor)) static void finish(void) {
    const char *dir = getenv("DARSHAN_LOGPATH");
    struct tm tm = {0};
    if (!skipped("time")) {
        time_t now = time(NULL);
        localtime_r(&now, &tm);
    }
    static unsigned char job[1088], zjob[1200], header[1328];
    memcpy(job + 40, mounts, mounts_len > 600 ? 600 : mounts_len);
    size_t zlen = skipped("zlib") ? 200 : stored_zlib(job, sizeof job, zjob);
    if (skipped("write") || !dir) return;
    char tmp[4096], final[4096];
    snprintf(tmp, sizeof tmp, "%s/floor_%d.darshan_partial", dir, (int)getpid());
    snprintf(final, sizeof final, "%s/floor_%d_%d-%d.darshan", dir, (int)getpid(), tm.tm_mon + 1, tm.tm_mday);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
    if (fd < 0) return;
    ssize_t ok = write(fd, header, sizeof header) + write(fd, zjob, zlen);
    close(fd);
    if (ok > 0) rename(tmp, final);
}
