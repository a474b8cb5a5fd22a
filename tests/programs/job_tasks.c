/* One task of a job: its own file (3 writes of 1000 bytes) and its
 * quarter of a shared file (4 pwrites of 4096 bytes at rank * 16384 +
 * k * 4096), then reads its quarter back with pread. Built with -DUSE_MPI
 * its rank and size are MPI's; without, the launcher's (SLURM_PROCID,
 * SLURM_NTASKS), as srun gives them. With "hang" as the third argument
 * the task prints "ready" after its I/O and waits to be killed.
 * usage: job_tasks <data dir> [hang-rank] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef USE_MPI
#include <mpi.h>
#endif

int main(int argc, char **argv) {
    int rank = 0, size = 1;
#ifdef USE_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#else
    if (getenv("SLURM_PROCID")) rank = atoi(getenv("SLURM_PROCID"));
    if (getenv("SLURM_NTASKS")) size = atoi(getenv("SLURM_NTASKS"));
#endif
    if (argc < 2) return 2;
    char path[4096], buf[4096];
    memset(buf, 'a' + rank % 26, sizeof buf);
    snprintf(path, sizeof path, "%s/own%d", argv[1], rank);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return 1;
    for (int k = 0; k < 3; k++)
        if (write(fd, buf, 1000) != 1000) return 1;
    close(fd);
    snprintf(path, sizeof path, "%s/shared", argv[1]);
    fd = open(path, O_CREAT | O_RDWR, 0644);
    if (fd < 0) return 1;
    for (int k = 0; k < 4; k++)
        if (pwrite(fd, buf, 4096, (off_t)rank * 16384 + k * 4096) != 4096) return 1;
    for (int k = 0; k < 4; k++)
        if (pread(fd, buf, 4096, (off_t)rank * 16384 + k * 4096) != 4096) return 1;
    close(fd);
    if (argc > 2 && atoi(argv[2]) == rank) {
        printf("ready\n");
        fflush(stdout);
        pause();
    }
#ifdef USE_MPI
    MPI_Finalize();
#endif
    (void)size;
    return 0;
}
