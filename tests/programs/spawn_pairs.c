/* Wall time of a command with and without a preloaded library, for the
 * short-process benchmark (scripts/bench_runtime.py): PAIRS alternating
 * blocks of BLOCK runs each, started with posix_spawn from this small
 * process pinned to CPU, so that the launcher's own cost (a Python fork
 * is about a millisecond, and varies by as much) stays out of the
 * figures. The order within a pair alternates, so drift cancels.
 *
 * usage: spawn_pairs PAIRS BLOCK CPU LIB CMD [ARGS...]
 * prints one line per pair: "<us per run without> <us per run with>".
 * The child's stdout and stderr go to /dev/null; the environment is this
 * process's, without LD_PRELOAD for the first, with LD_PRELOAD=LIB for
 * the second. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int run(char **argv, char **envp, posix_spawn_file_actions_t *fa) {
    pid_t pid;
    int status;
    if (posix_spawnp(&pid, argv[0], fa, NULL, argv, envp) != 0) return -1;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static double block(int n, char **argv, char **envp, posix_spawn_file_actions_t *fa) {
    double t = now_us();
    for (int i = 0; i < n; i++)
        if (run(argv, envp, fa) != 0) {
            fprintf(stderr, "spawn_pairs: %s failed\n", argv[0]);
            exit(2);
        }
    return (now_us() - t) / n;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: spawn_pairs PAIRS BLOCK CPU LIB CMD [ARGS...]\n");
        return 2;
    }
    int pairs = atoi(argv[1]), n = atoi(argv[2]), cpu = atoi(argv[3]);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("spawn_pairs: sched_setaffinity");
    size_t ne = 0;
    while (environ[ne]) ne++;
    char **off = calloc(ne + 1, sizeof *off), **on = calloc(ne + 2, sizeof *on);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0) off[k] = on[k] = environ[i], k++;
    size_t len = strlen(argv[4]) + 12;
    char *pre = malloc(len);
    snprintf(pre, len, "LD_PRELOAD=%s", argv[4]);
    on[k] = pre;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char **cmd = argv + 5;
    block(n, cmd, off, &fa); /* warm the page cache for both */
    block(n, cmd, on, &fa);
    for (int p = 0; p < pairs; p++) {
        double a, b;
        if (p % 2 == 0) {
            a = block(n, cmd, off, &fa);
            b = block(n, cmd, on, &fa);
        } else {
            b = block(n, cmd, on, &fa);
            a = block(n, cmd, off, &fa);
        }
        printf("%.1f %.1f\n", a, b);
    }
    return 0;
}
