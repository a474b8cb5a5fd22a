/* An MPI rank's first file I/O: after MPI_Init, each rank makes
 * PREFIX.<rank> with open + write of 4 KiB + close, timed, and prints
 * "first_io_ns=<ns>". usage: mpi_first_io PREFIX */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    static char buf[4096];
    char path[4096];
    int rank;
    if (argc < 2)
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s.%d", argv[1], rank);
    long long t0 = now();
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, sizeof buf) != sizeof buf) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    close(fd);
    long long t1 = now();
    printf("first_io_ns=%lld\n", t1 - t0);
    MPI_Finalize();
    return 0;
}
