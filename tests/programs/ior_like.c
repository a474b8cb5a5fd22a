/* IOR's default run (ior 3.x with no options, or -a MPIIO), reproduced for
 * the diagnosis's correct-program tests (IOR itself is not packaged by
 * Debian): one shared file; each rank writes its 1 MiB block
 * (blockSize) at rank * 1 MiB in 4 transfers of 256 KiB (transferSize),
 * closes, reopens and reads the block back the same way, and rank 0
 * removes the file at the end. POSIX: open/pwrite/pread/close; MPIIO:
 * independent MPI_File_write_at/read_at (IOR's default, no -c). BLOCK and
 * XFER set blockSize and transferSize (IOR's -b and -t; XFER divides BLOCK).
 * usage: ior_like posix|mpiio FILE [BLOCK XFER] */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_XFER (16 << 20)

static char buf[MAX_XFER];

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        fprintf(stderr, "usage: ior_like posix|mpiio FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int mpiio = !strcmp(argv[1], "mpiio");
    const char *file = argv[2];
    long BLOCK = argc > 4 ? atol(argv[3]) : 1 << 20, XFER = argc > 4 ? atol(argv[4]) : 256 << 10;
    if (XFER <= 0 || XFER > MAX_XFER || BLOCK % XFER) {
        fprintf(stderr, "ior_like: XFER must divide BLOCK and be at most %d\n", MAX_XFER);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(buf, 'a' + rank % 26, sizeof buf);
    for (int phase = 0; phase < 2; phase++) {
        int write = phase == 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (mpiio) {
            MPI_File fh;
            int mode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
            if (MPI_File_open(MPI_COMM_WORLD, file, mode, MPI_INFO_NULL, &fh))
                MPI_Abort(MPI_COMM_WORLD, 1);
            for (int t = 0; t < BLOCK / XFER; t++) {
                MPI_Offset off = (MPI_Offset)rank * BLOCK + (MPI_Offset)t * XFER;
                if (write)
                    MPI_File_write_at(fh, off, buf, XFER, MPI_BYTE, MPI_STATUS_IGNORE);
                else
                    MPI_File_read_at(fh, off, buf, XFER, MPI_BYTE, MPI_STATUS_IGNORE);
            }
            MPI_File_close(&fh);
        } else {
            int fd = open(file, write ? O_CREAT | O_WRONLY : O_RDONLY, 0644);
            if (fd < 0) {
                perror(file);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            for (int t = 0; t < BLOCK / XFER; t++) {
                off_t off = (off_t)rank * BLOCK + (off_t)t * XFER;
                ssize_t n = write ? pwrite(fd, buf, XFER, off) : pread(fd, buf, XFER, off);
                if (n != XFER)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            close(fd);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(file);
    MPI_Finalize();
    return 0;
}
