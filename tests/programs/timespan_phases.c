/* A known timing pattern for the report's timespans (ffi/tests/timespans.rs):
 * rank r waits r x 150 ms, then writes a file of its own; after a barrier
 * and 200 ms more, every rank writes its block of one shared file, then,
 * after another barrier, reads it back.
 * Usage: timespan_phases DIR */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 65536

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static int write_all(int fd, const char *buf, size_t n, off_t at)
{
    return pwrite(fd, buf, n, at) == (ssize_t)n ? 0 : 1;
}

int main(int argc, char **argv)
{
    static char buf[BLOCK];
    char own[4096], shared[4096];
    int rank, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(buf, 'a' + rank % 26, sizeof buf);
    snprintf(own, sizeof own, "%s/own.%d", argv[1], rank);
    snprintf(shared, sizeof shared, "%s/shared.dat", argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    pause_ms(150L * rank);
    int fd = open(own, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    bad |= fd < 0 || write_all(fd, buf, BLOCK, 0);
    if (fd >= 0)
        close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    pause_ms(200);
    fd = open(shared, O_CREAT | O_RDWR, 0600);
    bad |= fd < 0 || write_all(fd, buf, BLOCK, (off_t)rank * BLOCK);
    MPI_Barrier(MPI_COMM_WORLD);
    bad |= fd < 0 || pread(fd, buf, BLOCK, (off_t)rank * BLOCK) != BLOCK;
    if (fd >= 0)
        close(fd);
    MPI_Finalize();
    return bad;
}
