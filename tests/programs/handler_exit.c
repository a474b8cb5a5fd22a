/* A signal handler that calls _exit or fork while the main thread is in
 * the middle of instrumented writes (issue 9, failure 3: the runtime's
 * shutdown or fork wrapper waited for a lock the interrupted frame held).
 *   argv[1]: exit | fork     argv[2]: data directory
 * exit: SIGALRM every 100 us; the first one calls _exit(7).
 * fork: SIGALRM every 200 us; each forks a child that _exits at once and
 *       is reaped; after 50 forks the program ends normally (exit 0). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t forks;
static int mode_fork;

static void on_alarm(int s) {
    (void)s;
    if (!mode_fork) _exit(7);
    pid_t p = fork();
    if (p == 0) _exit(0);
    if (p > 0) waitpid(p, NULL, 0);
    /* A child that writes a log outlasts the timer's period: stop the
     * timer after the last fork, or the handler would run forever. */
    if (++forks >= 50) {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    mode_fork = strcmp(argv[1], "fork") == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/busy.dat", argv[2]);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) return 3;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, mode_fork ? 200 : 100}, {0, mode_fork ? 200 : 100}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (long i = 0; i < 50000000 && (!mode_fork || forks < 50); i++)
        if (pwrite(fd, "0123456789abcdef", 16, (i % 1024) * 16) != 16) return 4;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    close(fd);
    return 0;
}
