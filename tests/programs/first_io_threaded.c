/* The cost of a threaded program's first file I/O, and its descriptor
 * table: with "thread", an idle second thread is started first (MPI
 * progress threads, OpenMP, Python and Java all have one). Then one
 * open + write of 4 KiB + close of FILE is timed, and the process's
 * descriptor table size (FDSize in /proc/self/status) is read.
 * Prints "first_io_ns=<ns> fdsize=<n>".
 * Built with -DUSE_MPI (mpicc): after MPI_Init, each rank times its own
 * FILE.<rank>, and leaves through MPI_Finalize (where the log is written).
 * usage: first_io_threaded FILE [thread] */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef USE_MPI
#include <mpi.h>
#endif

static void *idle(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return NULL;
}

static long long now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
    static char buf[4096];
    char path[4096];
    if (argc < 2)
        return 2;
#ifdef USE_MPI
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s.%d", argv[1], rank);
#else
    snprintf(path, sizeof path, "%s", argv[1]);
#endif
    if (argc > 2 && !strcmp(argv[2], "thread")) {
        pthread_t t;
        pthread_create(&t, NULL, idle, NULL);
        usleep(1000);
    }
    long long t0 = now();
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, sizeof buf) != sizeof buf) {
        perror(path);
        return 1;
    }
    close(fd);
    long long t1 = now();
    char status[8192];
    int sfd = open("/proc/self/status", O_RDONLY);
    ssize_t n = read(sfd, status, sizeof status - 1);
    close(sfd);
    status[n > 0 ? n : 0] = 0;
    const char *f = strstr(status, "FDSize:");
    int fdsize = 0;
    if (f)
        sscanf(f + 7, "%d", &fdsize);
    printf("first_io_ns=%lld fdsize=%d\n", t1 - t0, fdsize);
    fflush(stdout);
#ifdef USE_MPI
    MPI_Finalize();
    return 0;
#else
    _exit(0);
#endif
}
