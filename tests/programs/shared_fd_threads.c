/* 16 threads write and read through one shared descriptor (issue 9,
 * failure 8: POSIX_F_WRITE_TIME came out negative, -0.1 to -0.6 s).
 *   argv[1]: file   Each thread: 5000 pwrite of 64 B and 5000 pread.
 *   argv[2]: "kill" to end with SIGKILL after the threads (the crash-safe
 *   file then holds the times; issue 36: they were negative there). */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int fd;

static void *work(void *arg) {
    long t = (long)arg;
    char buf[64] = {0};
    for (int i = 0; i < 5000; i++) {
        off_t off = ((t * 5000 + i) % 4096) * 64;
        if (pwrite(fd, buf, 64, off) != 64) return (void *)1;
        if (pread(fd, buf, 64, off) != 64) return (void *)1;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0) return 3;
    pthread_t th[16];
    for (long t = 0; t < 16; t++) pthread_create(&th[t], NULL, work, (void *)t);
    int bad = 0;
    for (int t = 0; t < 16; t++) {
        void *r;
        pthread_join(th[t], &r);
        bad |= r != NULL;
    }
    if (argc > 2 && !strcmp(argv[2], "kill"))
        raise(SIGKILL);
    close(fd);
    return bad;
}
