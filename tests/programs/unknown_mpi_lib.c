/* An MPI library the runtime does not know (built as libunknownmpi.so for
 * the tests): MPI_Init / MPI_Finalize / MPI_File_open with their PMPI_
 * forms and MPI_Get_library_version, returning values of its own so a
 * test sees that they reach the program unchanged. */
#include <string.h>

typedef long MPI_Comm;
typedef long MPI_Info;
typedef long MPI_File;

int PMPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
int MPI_Init(int *argc, char ***argv) { return PMPI_Init(argc, argv); }
int PMPI_Finalize(void) { return 0; }
int MPI_Finalize(void) { return PMPI_Finalize(); }
int PMPI_Get_library_version(char *v, int *len) {
    strcpy(v, "UnknownMPI 0.1");
    *len = (int)strlen(v);
    return 0;
}
int MPI_Get_library_version(char *v, int *len) { return PMPI_Get_library_version(v, len); }
int PMPI_File_open(MPI_Comm c, const char *name, int amode, MPI_Info info, MPI_File *fh) {
    (void)c; (void)name; (void)amode; (void)info;
    *fh = 4242;
    return 7;
}
int MPI_File_open(MPI_Comm c, const char *name, int amode, MPI_Info info, MPI_File *fh) {
    return PMPI_File_open(c, name, amode, info, fh);
}
