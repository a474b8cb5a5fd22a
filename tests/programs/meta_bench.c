/* The per-call time of the calls POSIX_META counts, for the benchmark
 * (scripts/bench_meta.py runs it with and without the library):
 * unlink (of files made beforehand), rename, mkdir + rmdir, readdir of a
 * 10,000-entry directory (per entry), mmap + munmap of a file, and open +
 * close for comparison. Prints name=ns per call.
 * usage: meta_bench <empty directory> [n] */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    const char *d = argv[1];
    int n = argc > 2 ? atoi(argv[2]) : 10000;
    char p[4200], q[4200];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/f%d", d, i);
        close(open(p, O_CREAT | O_WRONLY, 0644));
    }
    /* readdir of the n-entry directory, 5 passes; per entry. */
    double t0 = now();
    long entries = 0;
    for (int k = 0; k < 5; k++) {
        DIR *dir = opendir(d);
        while (readdir(dir)) entries++;
        closedir(dir);
    }
    double readdir_ns = (now() - t0) / entries * 1e9;
    /* rename each file there and back. */
    t0 = now();
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/f%d", d, i);
        snprintf(q, sizeof q, "%s/g%d", d, i);
        rename(p, q);
    }
    double rename_ns = (now() - t0) / n * 1e9;
    /* unlink them. */
    t0 = now();
    for (int i = 0; i < n; i++) {
        snprintf(q, sizeof q, "%s/g%d", d, i);
        unlink(q);
    }
    double unlink_ns = (now() - t0) / n * 1e9;
    /* mkdir + rmdir. */
    t0 = now();
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/d%d", d, i);
        mkdir(p, 0755);
        rmdir(p);
    }
    double mkdir_rmdir_ns = (now() - t0) / n * 1e9;
    /* open + close of one existing file (the reference). */
    snprintf(p, sizeof p, "%s/m", d);
    int fd = open(p, O_CREAT | O_RDWR, 0644);
    if (ftruncate(fd, 4096) != 0) return 1;
    close(fd);
    t0 = now();
    for (int i = 0; i < n; i++) close(open(p, O_RDONLY));
    double open_close_ns = (now() - t0) / n * 1e9;
    /* mmap + munmap of that file. */
    fd = open(p, O_RDONLY);
    t0 = now();
    for (int i = 0; i < n; i++) {
        void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
        munmap(m, 4096);
    }
    double mmap_munmap_ns = (now() - t0) / n * 1e9;
    close(fd);
    unlink(p);
    printf("unlink=%.1f rename=%.1f mkdir_rmdir=%.1f readdir_entry=%.1f mmap_munmap=%.1f open_close=%.1f\n",
           unlink_ns, rename_ns, mkdir_rmdir_ns, readdir_ns, mmap_munmap_ns, open_close_ns);
    return 0;
}
