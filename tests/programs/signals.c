/* A SIGALRM handler writes to its own file while the main thread writes
 * N x 16 B to another: no deadlock, main counts exact; the handler's
 * writes are recorded or counted as lost.
 * usage: signals <dir> [N, default 200000]
 * Prints the number of handler writes. Built with -DUSE_MPI (mpicc): each
 * rank does the same on main.<rank> and handler.<rank>, and writes its
 * count to <dir>/handled.<rank> instead (after the timer stopped). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>
#include "thread_timer.h"
#ifdef USE_MPI
#include <mpi.h>
#endif

static int hfd;
static volatile sig_atomic_t handled;

static void on_alarm(int s)
{
    (void)s;
    if (write(hfd, "!", 1) == 1) handled++;
}

int main(int argc, char **argv)
{
    char a[4096], b[4096];
    long n = argc > 2 ? atol(argv[2]) : 200000;
#ifdef USE_MPI
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(a, sizeof a, "%s/main.%d", argv[1], rank);
    snprintf(b, sizeof b, "%s/handler.%d", argv[1], rank);
#else
    snprintf(a, sizeof a, "%s/main.dat", argv[1]);
    snprintf(b, sizeof b, "%s/handler.dat", argv[1]);
#endif
    int fd = open(a, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    hfd = open(b, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    /* Every 200 us, to this thread only. */
    timer_t timer = thread_timer(on_alarm, 200000);
    for (long i = 0; i < n; i++)
        if (write(fd, "0123456789abcdef", 16) != 16) { perror("write"); return 1; }
    timer_delete(timer);
    /* A SIGALRM already pending is not cancelled with the timer. */
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    sigprocmask(SIG_BLOCK, &alarm, NULL);
    close(fd);
    close(hfd);
#ifdef USE_MPI
    char c[4096];
    snprintf(c, sizeof c, "%s/handled.%d", argv[1], rank);
    FILE *f = fopen(c, "w");
    fprintf(f, "%d\n", (int)handled);
    fclose(f);
    MPI_Finalize();
#else
    printf("%d\n", (int)handled);
#endif
    return 0;
}
