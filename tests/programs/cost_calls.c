/* A known number of recorded calls, for the runtime's cost metadata
 * (docs/cost.md): one open, WRITES pwrites of one byte, READS preads,
 * then one close, or with "kill" a SIGKILL of itself instead of the
 * close (the crash-safe file is then all that is left). Prints nothing.
 * usage: cost_calls FILE WRITES READS [kill] */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    long writes = atol(argv[2]), reads = atol(argv[3]);
    char c = 'x';
    int fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (fd < 0)
        return 1;
    for (long i = 0; i < writes; i++)
        if (pwrite(fd, &c, 1, i) != 1)
            return 1;
    for (long i = 0; i < reads; i++)
        if (pread(fd, &c, 1, i % (writes > 0 ? writes : 1)) < 0)
            return 1;
    if (argc > 4 && !strcmp(argv[4], "kill"))
        kill(getpid(), SIGKILL);
    close(fd);
    return 0;
}
