/* Opens, writes and closes N distinct files (default 1100, above the
 * 1024-record default): the log must carry the partial flag for POSIX and
 * the program must run to the end. Also the new-record benchmark.
 * usage: manyfiles <dir> [N] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 2 ? atol(argv[2]) : 1100;
    char path[4096], buf[100] = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%ld", argv[1], i);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) { perror("open"); return 1; }
        if (write(fd, buf, sizeof buf) != sizeof buf) { perror("write"); return 1; }
        close(fd);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("manyfiles n=%ld loop_s=%.6f\n", n, (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    return 0;
}
