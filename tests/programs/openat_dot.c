/* openat relative to the descriptor of open("."), whose record is named
 * "<dir>/.": C Darshan cleans the joined name, so the file opened through
 * it is "<dir>/f.txt", not "<dir>/./f.txt". usage: openat_dot <dir> */
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    if (argc < 2 || chdir(argv[1]) != 0) return 1;
    int d = open(".", O_RDONLY | O_DIRECTORY);
    if (d < 0) return 2;
    int fd = openat(d, "f.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "hello", 5) != 5) return 3;
    close(fd);
    int s = openat(d, "sub", O_RDONLY | O_DIRECTORY);  /* may fail: no sub */
    if (s >= 0) { int g = openat(s, "./g.txt", O_CREAT | O_WRONLY, 0644); if (g >= 0) close(g); close(s); }
    close(d);
    return 0;
}
