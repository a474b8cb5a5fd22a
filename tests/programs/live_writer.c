/* Writes continuously for the live view's tests: <threads> threads each
 * pwrite 4096-byte blocks to one shared file (one POSIX record updated
 * from every thread) for <seconds>, then the file is closed. A reader
 * must only ever see POSIX_BYTES_WRITTEN == 4096 * POSIX_WRITES.
 * Prints "ready" once the file is open and every thread runs. With
 * <pause-us>, each thread sleeps that long after each write (a program
 * doing I/O at an ordinary pace rather than millions of calls a second).
 * With <idle-seconds>, the process stays that long after closing the
 * file, doing no I/O, and prints "idle" when it starts to. With <seconds>
 * 0 it writes until its standard input closes (a test that looks at it
 * while it runs, however slow the machine, then lets it end).
 * usage: live_writer <file> <threads> <seconds> [pause-us] [idle-seconds] */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fd;
static double until;
static int stop;
static pthread_barrier_t start;
static int pause_us;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *run(void *arg) {
    long k = (long)arg;
    char buf[4096];
    memset(buf, 'a' + (int)k, sizeof buf);
    pthread_barrier_wait(&start);
    for (long i = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED) && now() < until; i++) {
        if (pwrite(fd, buf, sizeof buf, (off_t)((i % 256) * 4096)) != sizeof buf) return (void *)1;
        if (pause_us > 0) usleep((useconds_t)pause_us);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int n = atoi(argv[2]);
    fd = open(argv[1], O_CREAT | O_WRONLY, 0644);
    if (fd < 0 || n < 1 || n > 64) return 1;
    double seconds = atof(argv[3]);
    until = seconds > 0 ? now() + seconds : 1e300;
    pause_us = argc > 4 ? atoi(argv[4]) : 0;
    pthread_t t[64];
    pthread_barrier_init(&start, NULL, (unsigned)n + 1);
    for (long k = 0; k < n; k++) pthread_create(&t[k], NULL, run, (void *)k);
    pthread_barrier_wait(&start);
    printf("ready\n");
    fflush(stdout);
    if (seconds <= 0) {
        char c;
        while (read(0, &c, 1) > 0)
            ;
        __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    }
    int bad = 0;
    for (int k = 0; k < n; k++) {
        void *r;
        pthread_join(t[k], &r);
        bad |= r != NULL;
    }
    close(fd);
    if (argc > 5) {
        printf("idle\n");
        fflush(stdout);
        usleep((useconds_t)(atof(argv[5]) * 1e6));
    }
    return bad;
}
