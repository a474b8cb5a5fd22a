/* Forked children that only exit, as a shell's subshells are: each of N
 * children of fork() exits at once (exit(0), so that its log is written
 * as a program's would be); the parent waits for each before the next.
 * Prints "fork_us=<fork's own time> child_us=<until the child was
 * reaped>", averages over the N children, in microseconds.
 * usage: fork_exit N */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1;
    double in_fork = 0, in_child = 0;
    for (int i = 0; i < n; i++) {
        double a = now_us();
        pid_t p = fork();
        if (p < 0) {
            perror("fork");
            return 1;
        }
        if (p == 0)
            exit(0);
        double b = now_us();
        if (waitpid(p, NULL, 0) != p) {
            perror("waitpid");
            return 1;
        }
        in_child += now_us() - b;
        in_fork += b - a;
    }
    printf("fork_us=%.1f child_us=%.1f\n", in_fork / (n > 0 ? n : 1), in_child / (n > 0 ? n : 1));
    return 0;
}
