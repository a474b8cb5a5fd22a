/* MPI-IO with a known pattern per rank for DXT_MPIIO (ffi/tests/dxt.rs):
 * write_at_all of 1,024 bytes at rank*1024; seek to 4096+rank*100 and
 * write 100; read_at 1,024 at rank*1024; iwrite_at 10 at 8192+rank*10
 * and wait. usage: dxt_mpi FILE */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    static char buf[1024];
    int rank;
    MPI_File fh;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2 || MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh)) {
        fprintf(stderr, "open failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_write_at_all(fh, (MPI_Offset)rank * 1024, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_seek(fh, 4096 + (MPI_Offset)rank * 100, MPI_SEEK_SET);
    MPI_File_write(fh, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, (MPI_Offset)rank * 1024, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_iwrite_at(fh, 8192 + (MPI_Offset)rank * 10, buf, 10, MPI_BYTE, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
