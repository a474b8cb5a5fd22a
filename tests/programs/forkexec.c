/* Parent writes <dir>/parent (3 writes); the child of fork() writes
 * <dir>/child (5 writes) and exits; then a second child execs
 * /bin/cat <dir>/parent (a new image, preloaded again). usage: forkexec <dir> */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void writes(const char *dir, const char *name, int n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0) { perror("open"); exit(1); }
    for (int i = 0; i < n; i++) write(fd, "0123456789", 10);
    close(fd);
}

int main(int argc, char **argv)
{
    writes(argv[1], "parent", 3);
    pid_t p = fork();
    if (p == 0) {
        writes(argv[1], "child", 5);
        exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/parent", argv[1]);
    p = fork();
    if (p == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        execl("/bin/cat", "cat", path, (char *)NULL);
        _exit(127);
    }
    waitpid(p, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 3;
}
