/* A known amount of I/O, then "ready" on stdout and a long sleep, to be
 * killed with SIGKILL: open a.dat, 7 x write(1000), 1 x pread(100), close;
 * fopen b.txt, 3 x fprintf (21 bytes), fflush (the stream stays open).
 * usage: crash_io <a.dat> <b.txt> */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char buf[1000] = {0};
    int fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
    for (int i = 0; i < 7; i++) write(fd, buf, sizeof buf);
    pread(fd, buf, 100, 0);
    close(fd);
    FILE *f = fopen(argv[2], "w");
    for (int i = 0; i < 3; i++) fprintf(f, "line %d\n", i);
    fflush(f);
    printf("ready\n");
    fflush(stdout);
    sleep(100);
    return 0;
}
