/* A signal handler that calls _exit, fork or exec while the main thread
 * is in the middle of instrumented calls (issue 9, failure 3: the
 * runtime's shutdown or fork wrapper waited for a lock the interrupted
 * frame held).
 *   argv[1]: exit | fork | exec     argv[2]: data directory
 * exit: SIGALRM every 100 us; the first one calls _exit(7).
 * fork: SIGALRM every 200 us; each forks a child that _exits at once and
 *       is reaped; after 50 forks the program ends normally (exit 0).
 * exec: SIGALRM every 50 us; each execs a program that does not exist
 *       (the exec fails and the handler returns) while the main thread
 *       makes a new record at each call (a file of its own: the crash-safe
 *       file's lock is taken then); after 1000 execs the program ends
 *       normally (exit 0). */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define EXECS 1000

/* The forks or execs the handler made. */
static volatile sig_atomic_t handled;
static int mode_fork, mode_exec;

static void on_alarm(int s) {
    (void)s;
    if (mode_exec) {
        char *args[] = {"/no/such/program", NULL};
        execv(args[0], args);
        if (++handled >= EXECS) {
            struct itimerval off = {{0, 0}, {0, 0}};
            setitimer(ITIMER_REAL, &off, NULL);
        }
        return;
    }
    if (!mode_fork) _exit(7);
    pid_t p = fork();
    if (p == 0) _exit(0);
    if (p > 0) waitpid(p, NULL, 0);
    /* A child that writes a log outlasts the timer's period: stop the
     * timer after the last fork, or the handler would run forever. */
    if (++handled >= 50) {
        struct itimerval off = {{0, 0}, {0, 0}};
        setitimer(ITIMER_REAL, &off, NULL);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    mode_fork = strcmp(argv[1], "fork") == 0;
    mode_exec = strcmp(argv[1], "exec") == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/busy.dat", argv[2]);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) return 3;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    long period = mode_fork ? 200 : mode_exec ? 50 : 100;
    struct itimerval it = {{0, period}, {0, period}};
    setitimer(ITIMER_REAL, &it, NULL);
    for (long i = 0; mode_exec && handled < EXECS && i < 20000; i++) {
        snprintf(path, sizeof path, "%s/f%ld", argv[2], i);
        int g = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (g < 0 || write(g, "x", 1) != 1 || close(g) != 0) return 5;
    }
    for (long i = 0; !mode_exec && i < 50000000 && (!mode_fork || handled < 50); i++)
        if (pwrite(fd, "0123456789abcdef", 16, (i % 1024) * 16) != 16) return 4;
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    close(fd);
    return 0;
}
