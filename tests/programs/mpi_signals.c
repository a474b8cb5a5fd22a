/* Each rank: a SIGALRM handler writes to the rank's own file while the
 * main thread writes 100000 x 16 B to another; the number of handler
 * writes made goes to <dir>/handled.<rank> (its write is not recorded:
 * made after the timer stopped, through a file the test reads).
 * usage: mpi_signals <dir> */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int hfd;
static volatile sig_atomic_t handled;

static void on_alarm(int s)
{
    (void)s;
    if (write(hfd, "!", 1) == 1) handled++;
}

int main(int argc, char **argv)
{
    int rank;
    char a[4096], b[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(a, sizeof a, "%s/main.%d", argv[1], rank);
    snprintf(b, sizeof b, "%s/handler.%d", argv[1], rank);
    int fd = open(a, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    hfd = open(b, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (int i = 0; i < 100000; i++)
        if (write(fd, "0123456789abcdef", 16) != 16) { perror("write"); MPI_Abort(MPI_COMM_WORLD, 1); }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    close(fd);
    close(hfd);
    char c[4096];
    snprintf(c, sizeof c, "%s/handled.%d", argv[1], rank);
    FILE *f = fopen(c, "w");
    fprintf(f, "%d\n", (int)handled);
    fclose(f);
    MPI_Finalize();
    return 0;
}
