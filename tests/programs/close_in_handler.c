/* A SIGALRM handler opens and closes its own file while the main thread
 * opens and closes another, N times: both closes are of recorded files,
 * so both read the LUSTRE attribute. No deadlock, exit 0.
 * usage: close_in_handler <dir> [N, default 100000] */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static char hpath[4096];

static void on_alarm(int s)
{
    (void)s;
    int f = open(hpath, O_WRONLY);
    if (f >= 0)
        close(f);
}

int main(int argc, char **argv)
{
    char a[4096];
    long n = argc > 2 ? atol(argv[2]) : 100000;
    snprintf(a, sizeof a, "%s/main.dat", argv[1]);
    snprintf(hpath, sizeof hpath, "%s/handler.dat", argv[1]);
    close(open(a, O_CREAT | O_WRONLY, 0644));
    close(open(hpath, O_CREAT | O_WRONLY, 0644));
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    /* Every 50 us, to this thread only. */
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    ev.sigev_signo = SIGALRM;
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) { perror("timer_create"); return 1; }
    struct itimerspec it = {{0, 50000}, {0, 50000}};
    timer_settime(timer, 0, &it, NULL);
    for (long i = 0; i < n; i++) {
        int fd = open(a, O_WRONLY);
        if (fd < 0) { perror("open"); return 1; }
        close(fd);
    }
    timer_delete(timer);
    return 0;
}
