/* A serial program built against an MPI stub library (mpi_stub.c, no PMPI_
 * layer): every MPI call must reach the stub and return its 0, with the
 * runtime preloaded or not. Prints "calls=<n>" (the stub's count, 8) and
 * exits 1 at the first call that returned anything else. */
#include <stdio.h>
extern int mpi_stub_calls;
int MPI_Init(int *, char ***);
int MPI_Comm_rank(int, int *);
int MPI_Send(const void *, int, int, int, int, int);
int MPI_Allreduce(const void *, void *, int, int, int, int);
int MPI_Barrier(int);
int MPI_File_open(int, const char *, int, int, int *);
int MPI_File_close(int *);
int MPI_Finalize(void);

#define CHECK(call) do { int r = (call); if (r != 0) { printf("%s returned %d\n", #call, r); return 1; } } while (0)

int main(int argc, char **argv) {
    int rank, x = 1, y, fh;
    CHECK(MPI_Init(&argc, &argv));
    CHECK(MPI_Comm_rank(0, &rank));
    CHECK(MPI_Send(&x, 1, 0, 0, 0, 0));
    CHECK(MPI_Allreduce(&x, &y, 1, 0, 0, 0));
    CHECK(MPI_Barrier(0));
    CHECK(MPI_File_open(0, "f", 0, 0, &fh));
    CHECK(MPI_File_close(&fh));
    CHECK(MPI_Finalize());
    printf("calls=%d\n", mpi_stub_calls);
    return 0;
}
