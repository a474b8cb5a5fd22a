/* Runs under a file size limit (`ulimit -f`, RLIMIT_FSIZE): the runtime's
 * own files (the crash-safe file, its growth, the log) must never bring
 * the program the kernel's SIGXFSZ, which kills it.
 *   argv[1]: data directory   argv[2]: number of files
 *   argv[3] (optional): a limit in bytes the program sets for itself
 *   after its first file (the runtime's crash-safe file is made then)
 * Writes 6 bytes into each of argv[2] new files with open + write +
 * close, all far below any limit the tests set, and prints "done N".
 * Built with -DUSE_MPI: every rank does so between MPI_Init and
 * MPI_Finalize, in a directory of its own under argv[1] (rank 0 prints). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef USE_MPI
#include <mpi.h>
#endif

static int make(const char *dir, int i) {
    char p[4096];
    snprintf(p, sizeof p, "%s/f%05d", dir, i);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "hello\n", 6) != 6) return -1;
    return close(fd);
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    int n = atoi(argv[2]), rank = 0;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", argv[1]);
#ifdef USE_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(dir, sizeof dir, "%s/rank%d", argv[1], rank);
    mkdir(dir, 0755);
#endif
    if (make(dir, 0) != 0) return 3;
    if (argc > 3) {
        struct rlimit r;
        if (getrlimit(RLIMIT_FSIZE, &r) != 0) return 4;
        r.rlim_cur = strtoull(argv[3], NULL, 10);
        if (setrlimit(RLIMIT_FSIZE, &r) != 0) return 5;
    }
    for (int i = 1; i < n; i++)
        if (make(dir, i) != 0) return 6;
#ifdef USE_MPI
    MPI_Finalize();
#endif
    if (rank == 0) printf("done %d\n", n);
    return 0;
}
