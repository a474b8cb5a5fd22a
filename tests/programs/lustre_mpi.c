/* Every rank writes its block of one shared file through MPI-IO and its
 * own file through POSIX, on the directory given: the LUSTRE record of
 * the shared file is then every rank's, reduced to rank -1. */
#include <mpi.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    char path[4096], buf[4096];
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(buf, 'a' + rank, sizeof buf);
    snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * sizeof buf, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    snprintf(path, sizeof path, "%s/rank%d.dat", argv[1], rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0 || write(fd, buf, sizeof buf) != (ssize_t)sizeof buf || close(fd) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Finalize();
    return 0;
}
