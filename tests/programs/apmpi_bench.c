/* What an MPI call costs with and without the runtime (scripts/bench-apmpi.sh):
 * N calls of MPI_Test on MPI_REQUEST_NULL (the cheapest MPI call there is,
 * so the wrapper's own cost shows), N of MPI_Iprobe with no message, and
 * N/10 of MPI_Allreduce of one int; prints each's ns per call. Any number
 * of ranks; rank 0 prints. usage: apmpi_bench [N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int rank, flag, x = 1, y;
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double t0 = now();
    for (long i = 0; i < n; i++) MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    double t1 = now();
    for (long i = 0; i < n; i++) MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    double t2 = now();
    for (long i = 0; i < n / 10; i++) MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double t3 = now();
    if (rank == 0)
        printf("test=%.2f iprobe=%.2f allreduce=%.2f\n", (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / (n / 10));
    MPI_Finalize();
    return 0;
}
