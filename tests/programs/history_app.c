/* An MPI application run many times, for the history comparison
 * (darshan-summary --history): each rank writes COUNT blocks of SIZE
 * bytes to its own file DIR/rank<r>.dat and reads them back, then all
 * ranks write 2 blocks of 1 MiB each to DIR/shared.dat with a collective
 * MPI-IO write.
 * usage: history_app DIR [SIZE] [extra] [slow=R]
 *   SIZE     bytes per block of the per-rank files (default 1 MiB)
 *   extra    rank 0 also writes DIR/extra.log (a file new to the history)
 *   slow=R   every rank but R sleeps 1 s before the collective write, so
 *            rank R waits 1 s inside it: R becomes the slowest rank */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1 << 20)
#define COUNT 8

static void die(const char *what)
{
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void own_file(const char *dir, int rank, size_t size, char *buf)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.dat", dir, rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    if (fd < 0)
        die(path);
    for (int i = 0; i < COUNT; i++)
        if (write(fd, buf, size) != (ssize_t)size)
            die("write");
    if (lseek(fd, 0, SEEK_SET) != 0)
        die("lseek");
    for (int i = 0; i < COUNT; i++)
        if (read(fd, buf, size) != (ssize_t)size)
            die("read");
    close(fd);
}

int main(int argc, char **argv)
{
    int rank, nprocs, slow = -1, extra = 0;
    size_t size = MIB;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 2) {
        fprintf(stderr, "usage: history_app DIR [SIZE] [extra] [slow=R]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "extra") == 0)
            extra = 1;
        else if (strncmp(argv[i], "slow=", 5) == 0)
            slow = atoi(argv[i] + 5);
        else
            size = strtoul(argv[i], NULL, 10);
    }
    char *buf = malloc(size > MIB ? size : MIB);
    memset(buf, 'a' + rank % 26, size > MIB ? size : MIB);
    own_file(argv[1], rank, size, buf);
    if (extra && rank == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/extra.log", argv[1]);
        FILE *f = fopen(path, "w");
        if (!f)
            die(path);
        fprintf(f, "rank 0 says more this time\n");
        fclose(f);
    }
    char shared[4096];
    snprintf(shared, sizeof shared, "%s/shared.dat", argv[1]);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, shared, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh))
        die(shared);
    if (slow >= 0 && rank != slow)
        sleep(1);
    for (int b = 0; b < 2; b++)
        MPI_File_write_at_all(fh, ((MPI_Offset)b * nprocs + rank) * MIB, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    free(buf);
    MPI_Finalize();
    return 0;
}
