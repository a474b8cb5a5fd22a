/* The parent writes p.dat (3 writes) and forks; the child writes c.dat
 * (5 writes), says "ready" and sleeps until killed; the parent sleeps too.
 * usage: crash_fork <dir> */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static void writes(const char *dir, const char *name, int n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    for (int i = 0; i < n; i++) write(fd, "0123456789", 10);
    close(fd);
}

int main(int argc, char **argv)
{
    writes(argv[1], "p.dat", 3);
    if (fork() == 0) {
        writes(argv[1], "c.dat", 5);
        printf("ready\n");
        fflush(stdout);
    }
    sleep(100);
    return 0;
}
