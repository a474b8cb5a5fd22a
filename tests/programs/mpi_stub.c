/* A serial build's MPI stub library (as mpi-serial or a code's own "fake
 * MPI"): MPI_ functions that do nothing and succeed, with no PMPI_ layer.
 * Built as a shared library (libmpi_stub.so) for mpi_stub_main.c. Each
 * call counts itself in mpi_stub_calls. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_File;
typedef int MPI_Info;
int mpi_stub_calls;

int MPI_Init(int *argc, char ***argv) { (void)argc, (void)argv; return ++mpi_stub_calls, 0; }
int MPI_Comm_rank(MPI_Comm c, int *r) { (void)c; *r = 0; return ++mpi_stub_calls, 0; }
int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c) {
    (void)b, (void)n, (void)t, (void)d, (void)tag, (void)c;
    return ++mpi_stub_calls, 0;
}
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, int op, MPI_Comm c) {
    (void)s, (void)r, (void)n, (void)t, (void)op, (void)c;
    return ++mpi_stub_calls, 0;
}
int MPI_Barrier(MPI_Comm c) { (void)c; return ++mpi_stub_calls, 0; }
int MPI_File_open(MPI_Comm c, const char *name, int mode, MPI_Info i, MPI_File *f) {
    (void)c, (void)name, (void)mode, (void)i;
    *f = 7;
    return ++mpi_stub_calls, 0;
}
int MPI_File_close(MPI_File *f) { (void)f; return ++mpi_stub_calls, 0; }
int MPI_Finalize(void) { return ++mpi_stub_calls, 0; }
