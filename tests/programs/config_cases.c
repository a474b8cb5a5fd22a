/* Records a configuration decides on (ffi/tests/config_as_c.rs): usage
 * config_cases DATA NFILES. One file written with open/write, then a
 * system file read (left out by Darshan's default prefixes), then NFILES
 * files (a1, a2, b) written with fopen/fputs, then a line on stdout and
 * one on stderr. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static const char *names[] = {"a1", "a2", "b"};
    char p[4096], c;
    int i, fd, n = argc > 2 ? atoi(argv[2]) : 3;
    if (argc < 2)
        return 2;
    snprintf(p, sizeof p, "%s/p", argv[1]);
    fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "abc", 3) != 3)
        return 1;
    close(fd);
    fd = open("/etc/passwd", O_RDONLY);
    if (fd < 0 || read(fd, &c, 1) != 1)
        return 1;
    close(fd);
    for (i = 0; i < n && i < 3; i++) {
        FILE *f;
        snprintf(p, sizeof p, "%s/%s", argv[1], names[i]);
        f = fopen(p, "w");
        if (!f)
            return 1;
        fputs("x\n", f);
        fclose(f);
    }
    fprintf(stdout, "out %d\n", n);
    fprintf(stderr, "err %d\n", n);
    return 0;
}
