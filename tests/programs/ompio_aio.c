/* A collective write Open MPI's OMPIO makes through glibc's aio, one
 * request per piece, thousands in flight: every rank's view is a vector
 * of single ints (ranks interleaved, the file write-only, so no piece can
 * be merged with its neighbours' by a read-modify-write), and the data
 * (4 ranks x count doubles) is more than the 1 MiB collective buffer.
 * At 40,000 doubles on 4 ranks OMPIO (Open MPI 4.1) writes 240,006 pieces.
 * usage: mpirun -np 4 --mca io ompio ompio_aio <dir> <count> */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char buf[1 << 22];

int main(int argc, char **argv)
{
    int rank, nprocs, count;
    char name[4096];
    MPI_File fh;
    MPI_Status st;
    MPI_Info info;
    MPI_Datatype v;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    count = argc > 2 ? atoi(argv[2]) : 0;
    if (argc != 3 || count < 0 || (size_t)count * 8 > sizeof buf) {
        if (rank == 0) fprintf(stderr, "usage: ompio_aio <dir> <count, at most %zu>\n", sizeof buf / 8);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(buf, 'q', sizeof buf);
    snprintf(name, sizeof name, "%s/m0", argv[1]);
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    if (MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Type_vector(4, 1, nprocs, MPI_INT, &v);
    MPI_Type_commit(&v);
    MPI_File_set_view(fh, 1 + rank * 4, MPI_INT, v, "native", MPI_INFO_NULL);
    MPI_Type_free(&v);
    MPI_File_write_ordered(fh, buf, count, MPI_DOUBLE, &st);
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    MPI_Finalize();
    return 0;
}
