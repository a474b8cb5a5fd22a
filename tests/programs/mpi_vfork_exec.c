/* An MPI rank that starts a helper with vfork and exec, as a shell-out
 * does; the exec fails (no such program) and the child leaves with
 * _exit(127), as it must after a vfork. Each rank writes N files of 6
 * bytes under <dir>/rank<R>, before and after; rank 0 prints the
 * child's status.
 * usage: mpi_vfork_exec <dir> <N> */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int files(const char *dir, const char *tag, long n)
{
    char name[4096];
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s/%s%ld", dir, tag, i);
        int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        if (fd < 0 || write(fd, "abcdef", 6) != 6 || close(fd)) return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/rank%d", argv[1], rank);
    long n = atol(argv[2]);
    if (mkdir(dir, 0700) || files(dir, "before", n)) return 3;
    pid_t p = vfork();
    if (p == 0) {
        execl("/nonexistent/helper", "helper", (char *)0);
        _exit(127);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) != p) return 4;
    if (files(dir, "after", n)) return 5;
    MPI_Finalize();
    if (rank == 0) printf("child %d\n", WEXITSTATUS(st));
    return 0;
}
