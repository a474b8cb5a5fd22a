/* POSIX_META in an MPI job: rank 0 makes argv[1]/shared with 4 files;
 * every rank lists it once (6 entries with . and .., 7 readdir calls),
 * then makes and removes a file of its own. The shared directory's
 * records reduce to one rank -1 record; each rank's own file keeps its
 * rank. */
#include <dirent.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char dir[4096], p[4200];
    snprintf(dir, sizeof dir, "%s/shared", argv[1]);
    if (rank == 0) {
        mkdir(dir, 0755);
        for (int i = 0; i < 4; i++) {
            snprintf(p, sizeof p, "%s/f%d", dir, i);
            close(open(p, O_CREAT | O_WRONLY, 0644));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    DIR *d = opendir(dir);
    if (!d) return 1;
    while (readdir(d)) {}
    closedir(d);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(p, sizeof p, "%s/own%d", argv[1], rank);
    close(open(p, O_CREAT | O_WRONLY, 0644));
    unlink(p);
    MPI_Finalize();
    return 0;
}
