/* A SIGALRM to this thread every `ns` nanoseconds: a process-wide
 * timer's signal may go to any thread, and an MPI library's own threads
 * (MPICH's UCX) would then run the handler outside the test's loop. The
 * handler is installed with SA_RESTART. Returns the timer (timer_delete
 * stops it), or exits the program if none can be made. */
#ifndef THREAD_TIMER_H
#define THREAD_TIMER_H
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static timer_t thread_timer(void (*handler)(int), long ns)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    ev.sigev_signo = SIGALRM;
    timer_t timer;
    if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0) {
        perror("timer_create");
        exit(1);
    }
    struct itimerspec it = {{0, ns}, {0, ns}};
    timer_settime(timer, 0, &it, NULL);
    return timer;
}
#endif
