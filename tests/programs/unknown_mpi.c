/* A program on an MPI library the runtime does not know (tests/programs/
 * unknown_mpi_lib.c): prints what its MPI calls returned, "init 0 open 7
 * fh 4242 finalize 0", which must be the same with the runtime. */
#include <stdio.h>

typedef long MPI_Comm;
typedef long MPI_Info;
typedef long MPI_File;
int MPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int MPI_File_open(MPI_Comm c, const char *name, int amode, MPI_Info info, MPI_File *fh);

int main(int argc, char **argv) {
    int i = MPI_Init(&argc, &argv);
    MPI_File fh = 0;
    int o = MPI_File_open(1, "/nonexistent/file", 5, 0, &fh);
    int f = MPI_Finalize();
    printf("init %d open %d fh %ld finalize %d\n", i, o, fh, f);
    return 0;
}
