/* Page faults a forked child takes before it does anything (the runtime's
 * fork handlers run in it): the parent writes a file first, so that the
 * child inherits records; the child reports its minor faults since the
 * fork (its rusage starts at zero) and leaves with _exit.
 * usage: fork_faults FILE  -> prints the child's minor faults */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0 || write(fd, "x", 1) != 1)
        return 1;
    close(fd);
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        long n = ru.ru_minflt;
        (void)!write(pipefd[1], &n, sizeof n);
        _exit(0);
    }
    long n = -1;
    if (pid < 0 || read(pipefd[0], &n, sizeof n) != sizeof n)
        return 1;
    waitpid(pid, NULL, 0);
    printf("%ld\n", n);
    return 0;
}
