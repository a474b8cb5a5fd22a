/* An MPI job with a known access pattern, for the MPI tests:
 *   shared.dat  MPI-IO, every rank: open (COMM_WORLD, CREATE|RDWR),
 *               2 x write_at_all of 250 ints at rank*1000 and 4000+rank*1000,
 *               1 x read_at of 10 doubles at rank*1000, iread_at of 2 doubles
 *               + wait, read_at_all of 250 ints at rank*1000, close.
 *   fpp.<r>     MPI-IO, each rank its own (COMM_SELF, CREATE|WRONLY, with an
 *               info object holding one hint): set_view,
 *               3 x write of 100 bytes, iwrite_at of 64 bytes + wait,
 *               write_all_begin/end of 32 bytes, sync, set_size, close.
 *   posix_shared.dat  POSIX, every rank: open, pwrite 4096 at rank*4096, close.
 *   posix_<r>.dat     POSIX, each rank: r+1 writes of 10 bytes.
 *   var.dat     POSIX, every rank: open, one write of (r+1)*100 bytes at r*1000.
 *   subset.dat  POSIX, ranks 0 and 1 only: one 7-byte write.
 *   stdio0.txt  STDIO, rank 0 only: fopen, fprintf "hello 0\n" (8 bytes), fclose.
 * argv[1]: the data directory. argv[2] (optional): "thread" to start with
 * MPI_Init_thread, "mpiio-first" is the default order anyway (MPI-IO calls
 * come before any POSIX call of the program). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[4096];

static const char *at(const char *dir, const char *name) {
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

int main(int argc, char **argv) {
    const char *dir = argv[1];
    int rank, nprocs, provided;
    if (argc > 2 && strcmp(argv[2], "thread") == 0) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int ints[250];
    double dbl[10];
    char bytes[4096];
    memset(ints, rank, sizeof ints);
    memset(bytes, 'a' + rank, sizeof bytes);

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, at(dir, "shared.dat"), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, rank * 1000, ints, 250, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_write_at_all(fh, 4000 + rank * 1000, ints, 250, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, rank * 1000, dbl, 10, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Request rq;
    MPI_File_iread_at(fh, rank * 1000, dbl, 2, MPI_DOUBLE, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_read_at_all(fh, rank * 1000, ints, 250, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);

    char name[64];
    snprintf(name, sizeof name, "fpp.%d", rank);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once");
    MPI_File_open(MPI_COMM_SELF, at(dir, name), MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh);
    MPI_Info_free(&info);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    for (int i = 0; i < 3; i++) MPI_File_write(fh, bytes, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_iwrite_at(fh, 1000, bytes, 64, MPI_BYTE, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_write_all_begin(fh, bytes, 32, MPI_BYTE);
    MPI_File_write_all_end(fh, bytes, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_File_set_size(fh, 2000);
    MPI_File_close(&fh);

    int fd = open(at(dir, "posix_shared.dat"), O_CREAT | O_RDWR, 0644);
    pwrite(fd, bytes, 4096, (off_t)rank * 4096);
    close(fd);

    snprintf(name, sizeof name, "posix_%d.dat", rank);
    fd = open(at(dir, name), O_CREAT | O_WRONLY | O_TRUNC, 0600);
    for (int i = 0; i <= rank; i++) write(fd, bytes, 10);
    close(fd);

    fd = open(at(dir, "var.dat"), O_CREAT | O_WRONLY, 0644);
    pwrite(fd, bytes, (rank + 1) * 100, (off_t)rank * 1000);
    close(fd);

    if (rank < 2) {
        fd = open(at(dir, "subset.dat"), O_CREAT | O_WRONLY, 0644);
        write(fd, bytes, 7);
        close(fd);
    }
    if (rank == 0) {
        FILE *f = fopen(at(dir, "stdio0.txt"), "w");
        fprintf(f, "hello %d\n", rank);
        fclose(f);
    }
    MPI_Finalize();
    return 0;
}
