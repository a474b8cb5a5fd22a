/* A vfork() child shares the parent's memory and leaves with _exit: it
 * must not write the parent's log or stop its recording. The parent then
 * writes 5 more times. usage: vfork_exit <file> */
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
    write(fd, "a", 1);
    pid_t p = vfork();
    if (p == 0)
        _exit(0);
    int st;
    waitpid(p, &st, 0);
    for (int i = 0; i < 5; i++) write(fd, "b", 1);
    close(fd);
    return 0;
}
