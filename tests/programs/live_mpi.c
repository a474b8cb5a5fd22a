/* An MPI job for the live view's tests: every rank writes 4 KiB blocks to
 * its own file and one to its part of a file all ranks share every 50 us
 * for <seconds>; rank 0 prints "ready" once every
 * rank has written. With <early> seconds, each process first writes a
 * file of its own and waits that long before MPI_Init (what a job run
 * with DARSHAN_ENABLE_NONMPI=1 records before it is an MPI job).
 * usage: live_mpi <dir> <seconds> [<early>] */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void before_init(const char *dir, double secs) {
    char path[4096];
    snprintf(path, sizeof path, "%s/early%d", dir, (int)getpid());
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "early", 5) != 5) exit(1);
    close(fd);
    usleep((useconds_t)(secs * 1e6));
}

int main(int argc, char **argv) {
    if (argc > 3) before_init(argv[1], atof(argv[3]));
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) MPI_Abort(MPI_COMM_WORLD, 2);
    char path[4096], buf[4096];
    memset(buf, 'a' + rank % 26, sizeof buf);
    snprintf(path, sizeof path, "%s/rank%d", argv[1], rank);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || pwrite(fd, buf, sizeof buf, 0) != sizeof buf) MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(path, sizeof path, "%s/shared", argv[1]);
    int shared = open(path, O_CREAT | O_WRONLY, 0644);
    if (shared < 0) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ready\n");
        fflush(stdout);
    }
    double until = MPI_Wtime() + atof(argv[2]);
    for (long i = 1; MPI_Wtime() < until; i++) {
        if (pwrite(fd, buf, sizeof buf, (off_t)((i % 256) * 4096)) != sizeof buf) MPI_Abort(MPI_COMM_WORLD, 1);
        if (pwrite(shared, buf, sizeof buf, (off_t)rank * 4096) != sizeof buf) MPI_Abort(MPI_COMM_WORLD, 1);
        usleep(50);
    }
    close(fd);
    close(shared);
    MPI_Finalize();
    return 0;
}
