/* A SIGALRM handler writes to its own file while the main thread writes
 * 200000 x 16 B to another: no deadlock, main counts exact.
 * usage: signals <dir> ; prints the number of handler writes. */
#include <fcntl.h>
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
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s/main.dat", argv[1]);
    snprintf(b, sizeof b, "%s/handler.dat", argv[1]);
    int fd = open(a, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    hfd = open(b, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (int i = 0; i < 200000; i++)
        if (write(fd, "0123456789abcdef", 16) != 16) { perror("write"); return 1; }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    close(fd);
    close(hfd);
    printf("%d\n", (int)handled);
    return 0;
}
