/* A file written with POSIX calls (its record makes the crash-safe
 * file), then "ready" on stdout and a long sleep, to be killed with
 * SIGKILL. The line goes out by `printf` (the program's first STDIO call
 * in the C shim's wrapper), by `fputs` (in a Rust wrapper) or by
 * `write` (no STDIO call at all).
 * usage: crash_printf <file> printf|fputs|write */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "data\n", 5) != 5 || close(fd) != 0)
        return 1;
    if (strcmp(argv[2], "printf") == 0) {
        printf("ready\n");
        fflush(stdout);
    } else if (strcmp(argv[2], "fputs") == 0) {
        fputs("ready\n", stdout);
        fflush(stdout);
    } else if (write(1, "ready\n", 6) != 6) {
        return 1;
    }
    sleep(100);
    return 0;
}
