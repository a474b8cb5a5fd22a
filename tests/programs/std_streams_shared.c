/* The standard streams of an MPI job's ranks, as C Darshan 3.5.0 reduces
 * them. Darshan sets its STDIO module up at a rank's first STDIO call and
 * makes the three standard streams' records then; the ranks agree on the
 * records they share before the unused standard streams are dropped. So
 * stdout written by ranks 0, 1 and 3 is one shared record (OPENS 4) when
 * rank 2 made any STDIO call, and three records of their own when it made
 * none. argv[1]: the data directory; argv[2]: "touch" (the quiet rank
 * writes a file of its own through fopen) or "none" (it makes no STDIO
 * call); argv[3], if given: the quiet rank (2 by default). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, quiet;
    char path[4200];
    if (argc < 3)
        return 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    quiet = argc > 3 ? atoi(argv[3]) : 2;
    if (rank != quiet) {
        printf("rank %d\n", rank);
        fflush(stdout);
    } else if (strcmp(argv[2], "touch") == 0) {
        snprintf(path, sizeof path, "%s/r2.txt", argv[1]);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs("x\n", f);
            fclose(f);
        }
    }
    MPI_Finalize();
    return 0;
}
