/* Machine-state probe for the benchmarks: the cost of CLOCK_MONOTONIC and
 * of rdtsc on this machine right now (the C reference figures were taken
 * when CLOCK_MONOTONIC cost about 34 ns). */
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
    const long n = 5000000;
    struct timespec ts;
    volatile long sink = 0;
    double t0 = now();
    for (long i = 0; i < n; i++) { clock_gettime(CLOCK_MONOTONIC, &ts); sink += ts.tv_nsec; }
    double t1 = now();
    double tsc = 0;
#if defined(__x86_64__)
    for (long i = 0; i < n; i++) sink += __rdtsc();
    tsc = (now() - t1) / n * 1e9;
#endif
    printf("clock_monotonic_ns=%.1f rdtsc_ns=%.1f\n", (t1 - t0) / n * 1e9, tsc);
    return 0;
}
