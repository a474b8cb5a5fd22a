/* A signal handler that calls _exit(7), or exit(7) as programs do too,
 * while the program allocates as it computes. In a threaded program the
 * handler may interrupt malloc or free with the heap's lock held by the
 * very thread it runs on.
 *   main:   the main thread allocates (an idle thread makes the process
 *           threaded) and takes the signal;
 *   thread: a worker allocates and takes the signal (the main thread
 *           blocks it and waits);
 *   plain:  no signal: the main thread calls _exit(7) or exit(7) itself.
 * First writes <dir>/before.dat (6 bytes), and N more files of 6 bytes
 * (<dir>/fK) when N is given (1,500 or more: a megabyte of records,
 * which the log's compression splits across threads). SIGALRM comes
 * once, 20 ms after.
 * usage: handler_exit_heap <main|thread|plain> <_exit|exit> <dir> [N] */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int plain_exit;

static void leave(void)
{
    if (plain_exit) exit(7);
    _exit(7);
}

static void on_alarm(int s)
{
    (void)s;
    leave();
}

static void *churn(void *arg)
{
    (void)arg;
    void *p[64] = {0};
    for (unsigned long i = 0;; i++) {
        int k = i % 64;
        free(p[k]);
        /* Sizes past the thread cache: most calls take the heap's lock. */
        p[k] = malloc(16 + (i * 7919) % 4000);
        if (p[k]) memset(p[k], 1, 16);
    }
    return 0;
}

static void *idle(void *arg)
{
    (void)arg;
    for (;;) pause();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) return 2;
    int on_main = !strcmp(argv[1], "main");
    plain_exit = !strcmp(argv[2], "exit");
    char path[4096];
    snprintf(path, sizeof path, "%s/before.dat", argv[3]);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0 || write(fd, "abcdef", 6) != 6 || close(fd)) return 3;
    for (long i = 0, n = argc == 5 ? atol(argv[4]) : 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%ld", argv[3], i);
        fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0 || write(fd, "abcdef", 6) != 6 || close(fd)) return 3;
    }
    if (!strcmp(argv[1], "plain")) leave();
    signal(SIGALRM, on_alarm);
    pthread_t t;
    if (pthread_create(&t, 0, on_main ? idle : churn, 0)) return 4;
    if (!on_main) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGALRM);
        pthread_sigmask(SIG_BLOCK, &s, 0);
    }
    struct itimerval it = {{0, 0}, {0, 20000}};
    setitimer(ITIMER_REAL, &it, 0);
    if (on_main) churn(0);
    pthread_join(t, 0);
    return 5;
}
