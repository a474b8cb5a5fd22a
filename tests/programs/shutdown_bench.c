/* Shutdown benchmark in the spirit of Darshan's darshan-shutdown-bench:
 * each rank creates records (POSIX: open, one pwrite, close) for one of four cases, then times MPI_Finalize, where the
 * runtime reduces, compresses and writes the log.
 *   argv[1]: directory (tmpfs)   argv[2]: case
 *     shared1     1 file opened by every rank
 *     shared1024  1024 files opened by every rank
 *     fpp1        1 file per rank
 *     fpp1024     1024 files per rank
 * Rank 0 prints "finalize_s <seconds>" and "init_s <seconds>" (MPI_Init,
 * the slowest rank's). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int rank;
    double t0 = now();
    MPI_Init(&argc, &argv);
    double init = now() - t0, slowest;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Reduce(&init, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("init_s %.6f\n", slowest);
    int files = strstr(argv[2], "1024") ? 1024 : 1;
    int shared = strncmp(argv[2], "shared", 6) == 0;
    char path[4096], buf[100];
    memset(buf, 'x', sizeof buf);
    for (int i = 0; i < files; i++) {
        if (shared)
            snprintf(path, sizeof path, "%s/shared-%d", argv[1], i);
        else
            snprintf(path, sizeof path, "%s/fpp-%d_rank-%d", argv[1], i, rank);
        int fd = open(path, O_CREAT | O_WRONLY, 0644);
        pwrite(fd, buf, sizeof buf, (off_t)rank * sizeof buf);
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = now();
    MPI_Finalize();
    if (rank == 0) printf("finalize_s %.6f\n", now() - t);
    return 0;
}
