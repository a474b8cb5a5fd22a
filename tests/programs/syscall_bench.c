/* The time of syscall(SYS_getpid), in ns per call: the median of ROUNDS
 * blocks of BLOCK calls (the bench runs it with and without the runtime,
 * alternating). usage: syscall_bench [rounds] [block] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
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

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 21, block = argc > 2 ? atoi(argv[2]) : 200000;
    double *t = malloc(sizeof *t * rounds);
    volatile long sink = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int k = 0; k < block; k++) sink += syscall(SYS_getpid);
        t[r] = (now() - t0) / block * 1e9;
    }
    qsort(t, rounds, sizeof *t, cmp);
    printf("syscall_getpid_ns=%.1f\n", t[rounds / 2]);
    return 0;
}
