/* A textbook collective MPI-IO program, correct by design: every rank
 * writes BLOCKS blocks of 1 MiB to one shared file with
 * MPI_File_write_at_all (block b of rank r at (b * nprocs + r) MiB),
 * then reads them back with MPI_File_read_at_all. The diagnosis must
 * find nothing to warn about: its I/O is all collective, and any POSIX
 * imbalance is the MPI library's aggregators doing the file I/O.
 * usage: collective_textbook FILE [BLOCKS] (default 8) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1 << 20)

int main(int argc, char **argv)
{
    int rank, nprocs, blocks = argc > 2 ? atoi(argv[2]) : 8;
    MPI_File fh;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    char *buf = malloc(MIB);
    memset(buf, 'a' + rank % 26, MIB);
    if (argc < 2 || MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh)) {
        fprintf(stderr, "open failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int b = 0; b < blocks; b++)
        MPI_File_write_at_all(fh, ((MPI_Offset)b * nprocs + rank) * MIB, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE);
    for (int b = 0; b < blocks; b++)
        MPI_File_read_at_all(fh, ((MPI_Offset)b * nprocs + rank) * MIB, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    free(buf);
    MPI_Finalize();
    return 0;
}
