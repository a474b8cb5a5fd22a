/* Makes one getcpu system call (a marker: neither the program nor the
 * runtime makes it otherwise), then N files of 6 bytes in DIR (openat,
 * write, close), and ends with exit(0) or _exit(0): what follows the
 * marker in a trace is those calls, the runtime's own after its
 * start-up (the crash-safe file, its growth, the shutdown) and the
 * program's exit_group.
 * usage: runtime_calls DIR N <exit|_exit> */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: %s DIR N <exit|_exit>\n", argv[0]); return 2; }
    long n = atol(argv[2]);
    unsigned cpu, node;
    syscall(SYS_getcpu, &cpu, &node, NULL);
    char path[4096];
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/f%ld", argv[1], i);
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0 || write(fd, "abcdef", 6) != 6 || close(fd)) { perror(path); return 3; }
    }
    if (!strcmp(argv[3], "_exit")) _exit(0);
    exit(0);
}
