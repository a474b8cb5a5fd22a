/* In-process A/B benchmark of the per-call cost of recording: the same
 * calls on a file the runtime records (argv[1], tmpfs) and on one it does
 * not (argv[2], a tmpfs under an excluded prefix such as /dev/shm),
 * alternated in blocks so that slow drifts of the machine cancel out.
 * Prints, per operation, the median over rounds of (tracked - untracked)
 * time per call in ns. Without the runtime both files cost the same (the
 * program prints that as a check).
 * usage: ab_calls <tracked path> <untracked path> [rounds] [block] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { PWRITE, PREAD, FPRINTF, FGETS, NOPS };
static const char *names[NOPS] = {"pwrite", "pread", "fprintf", "fgets"};

int main(int argc, char **argv)
{
    /* Without its two paths it would open "(null)" and "(null).stdio" in
     * the current directory (one was once committed at the repository's
     * root). */
    if (argc < 3) {
        fprintf(stderr, "usage: ab_calls <recorded file> <excluded file> [rounds] [block]\n");
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 101;
    long block = argc > 4 ? atol(argv[4]) : 20000;
    char sp[2][4096];
    int fd[2];
    FILE *f[2];
    for (int k = 0; k < 2; k++) {
        fd[k] = open(argv[1 + k], O_CREAT | O_TRUNC | O_RDWR, 0644);
        snprintf(sp[k], sizeof sp[k], "%s.stdio", argv[1 + k]);
        f[k] = fopen(sp[k], "w+");
        if (fd[k] < 0 || !f[k]) { perror("open"); return 1; }
    }
    double *d[NOPS];
    for (int o = 0; o < NOPS; o++) d[o] = calloc(rounds, sizeof(double));
    char buf[8] = "abcdefgh", line[64];
    for (int r = 0; r < rounds; r++) {
        double t[NOPS][2];
        for (int i = 0; i < 2; i++) {
            int k = (r + i) % 2; /* alternate which file goes first */
            long base = (long)r * block;
            double t0 = now();
            for (long j = 0; j < block; j++) pwrite(fd[k], buf, 8, (base + j) * 8);
            double t1 = now();
            for (long j = 0; j < block; j++) pread(fd[k], buf, 8, (base + j) * 8);
            double t2 = now();
            rewind(f[k]);
            for (long j = 0; j < block; j++) fprintf(f[k], "line %ld\n", j);
            double t3 = now();
            rewind(f[k]);
            for (long j = 0; j < block; j++) if (!fgets(line, sizeof line, f[k])) break;
            double t4 = now();
            t[PWRITE][k] = t1 - t0; t[PREAD][k] = t2 - t1; t[FPRINTF][k] = t3 - t2; t[FGETS][k] = t4 - t3;
        }
        for (int o = 0; o < NOPS; o++) d[o][r] = (t[o][0] - t[o][1]) / block * 1e9;
    }
    for (int o = 0; o < NOPS; o++) printf("%s_ns=%.1f ", names[o], median(d[o], rounds));
    printf("\n");
    for (int k = 0; k < 2; k++) { close(fd[k]); fclose(f[k]); unlink(argv[1 + k]); unlink(sp[k]); }
    return 0;
}
