/* An MPI job that does known I/O and then hangs until it is killed:
 * every rank writes 1000 bytes at rank*1000 of shared.dat (MPI-IO,
 * write_at_all) and r+1 POSIX writes of 10 bytes to own_<r>.dat; then a
 * barrier, "ready" from rank 0, and a sleep that the test ends with a
 * signal. With "exit" after <dir>, every rank calls exit(0) there instead,
 * without MPI_Finalize; with "fail", rank 1 alone calls exit(1) there
 * (the common failure) and the others wait to be killed by the launcher.
 * With "print", no rank does file I/O: each prints one line instead.
 * usage: mpi_crash <dir> [exit|fail|print] */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    char path[4096], buf[1000];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(buf, 'a' + rank, sizeof buf);
    if (argc > 2 && !strcmp(argv[2], "print")) {
        printf("rank %d\n", rank);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            printf("ready\n");
            fflush(stdout);
        }
        sleep(100);
        MPI_Finalize();
        return 0;
    }
    MPI_File fh;
    snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, rank * 1000, buf, 1000, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    snprintf(path, sizeof path, "%s/own_%d.dat", argv[1], rank);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i <= rank; i++) write(fd, buf, 10);
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("ready\n");
        fflush(stdout);
    }
    if (argc > 2 && !strcmp(argv[2], "exit")) {
        /* Rank 0 first: MPICH's Hydra kills the other ranks as soon as one
         * exits without MPI_Finalize, and rank 0, the one that says how
         * to make the log, must not be killed before it has said it (a
         * test of the message, not of the launcher's race: about 1 run in
         * 5 lost it under load). */
        if (rank != 0)
            usleep(300000);
        exit(0);
    }
    if (argc > 2 && !strcmp(argv[2], "fail") && rank == 1)
        exit(1);
    sleep(100);
    MPI_Finalize();
    return 0;
}
