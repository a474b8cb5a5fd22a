/* A SIGALRM handler opens and closes its own file while the main thread
 * opens and closes another, N times: both closes are of recorded files,
 * so both read the LUSTRE attribute. No deadlock, exit 0.
 * usage: close_in_handler <dir> [N, default 100000] */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "thread_timer.h"

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
    /* Every 50 us, to this thread only. */
    timer_t timer = thread_timer(on_alarm, 50000);
    for (long i = 0; i < n; i++) {
        int fd = open(a, O_WRONLY);
        if (fd < 0) { perror("open"); return 1; }
        close(fd);
    }
    timer_delete(timer);
    return 0;
}
