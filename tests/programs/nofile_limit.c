/* A program that lowers its soft descriptor limit to L (the hard limit
 * stays) and then opens new files until it has no descriptor left,
 * writing 6 bytes to each and keeping them all open to its end, as a
 * program that leaks descriptors does. Prints "opened N" and returns 0.
 * usage: nofile_limit <dir> <L> */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    struct rlimit r;
    if (argc != 3 || getrlimit(RLIMIT_NOFILE, &r)) return 2;
    r.rlim_cur = atol(argv[2]);
    if (setrlimit(RLIMIT_NOFILE, &r)) return 3;
    char path[4096];
    long n = 0;
    for (;;) {
        snprintf(path, sizeof path, "%s/f%ld", argv[1], n);
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        if (fd < 0) {
            if (errno != EMFILE) { perror("open"); return 4; }
            break;
        }
        if (write(fd, "abcdef", 6) != 6) return 5;
        n++;
    }
    printf("opened %ld\n", n);
    return 0;
}
