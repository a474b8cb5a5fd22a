/* A stream's descriptor after fclose: fclose closes it without close(),
 * and the next open (here of an excluded file) gets the same number. C
 * Darshan 3.5.0 keeps the stale descriptor and counts the excluded file's
 * read as the closed file's (the whole of /etc/passwd
 * instead of 10 bytes).
 * usage: fclose_fd_reuse <file of at least 10 bytes> */
#include <stdio.h>
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    char buf[4096];
    FILE *f = fopen(argv[1], "r");
    if (!f) return 1;
    int fd = fileno(f);
    if (read(fd, buf, 10) != 10) return 2;
    fclose(f);                                  /* closes fd without close() */
    int g = open("/etc/passwd", O_RDONLY);    /* excluded, same fd number */
    if (g != fd) return 3;
    ssize_t n = read(g, buf, sizeof buf);
    close(g);
    return n > 0 ? 0 : 4;
}
