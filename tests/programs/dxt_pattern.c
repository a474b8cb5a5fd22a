/* A known sequence of POSIX reads and writes for DXT (ffi/tests/dxt.rs).
 * usage: dxt_pattern DIR [extra] [kill|hold]
 *   a.dat: write 100, write 200, pwrite 50 at 1000, lseek 0, read 300,
 *          pread 10 at 5, writev 7+9 (at 300)
 *   b.dat: 20 one-byte writes (small, unaligned)
 *   c.dat: 4 writes of 1 MiB (large, aligned), then `extra` 8-byte writes
 *   kill:  SIGKILL itself at the end (a crash-safe file is left)
 *   hold:  print "ready" (not the tid), then wait for standard input to
 *          close (a reader looks at the running process's crash-safe file)
 * Prints `tid=<pthread_self()>` (the thread id DXT may record). */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static char big[1 << 20];

static int open_in(const char *dir, const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (fd < 0) {
        perror(p);
        exit(1);
    }
    return fd;
}

static void check(long got, long want, const char *what) {
    if (got != want) {
        fprintf(stderr, "%s: %ld instead of %ld\n", what, got, want);
        exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    long extra = argc > 2 ? atol(argv[2]) : 0;
    int fd = open_in(argv[1], "a.dat");
    check(write(fd, big, 100), 100, "write");
    check(write(fd, big, 200), 200, "write");
    check(pwrite(fd, big, 50, 1000), 50, "pwrite");
    lseek(fd, 0, SEEK_SET);
    check(read(fd, big, 300), 300, "read");
    check(pread(fd, big, 10, 5), 10, "pread");
    struct iovec v[2] = {{big, 7}, {big, 9}};
    check(writev(fd, v, 2), 16, "writev");
    close(fd);

    fd = open_in(argv[1], "b.dat");
    for (int i = 0; i < 20; i++)
        check(write(fd, big, 1), 1, "write b");
    close(fd);

    fd = open_in(argv[1], "c.dat");
    for (int i = 0; i < 4; i++)
        check(write(fd, big, sizeof big), sizeof big, "write c");
    for (long i = 0; i < extra; i++)
        check(write(fd, big, 8), 8, "write c extra");
    close(fd);
    int hold = argc > 3 && strcmp(argv[3], "hold") == 0;
    if (hold)
        printf("ready\n");
    else
        printf("tid=%lu\n", (unsigned long)pthread_self());
    fflush(stdout);
    if (argc > 3 && strcmp(argv[3], "kill") == 0)
        kill(getpid(), SIGKILL);
    if (hold)
        while (getchar() != EOF) {}
    return 0;
}
