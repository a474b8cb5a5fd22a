/* Children killed around their exit: the parent forks <n> children one
 * after another; each writes 3 x 1000 bytes to <dir>/c<k> and exits
 * normally (the runtime then writes its log and removes its crash-safe
 * file). The first 5 are left alone to measure how long a child lives;
 * every later one gets SIGKILL at a random moment between 30 % and 130 %
 * of that, so some die before their log, some between publishing it and
 * removing the crash-safe file, some not at all.
 * usage: exit_race <dir> <n> */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int child(const char *dir, int k) {
    char path[4096], buf[1000];
    memset(buf, 'c', sizeof buf);
    snprintf(path, sizeof path, "%s/c%d", dir, k);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return 1;
    for (int i = 0; i < 3; i++)
        if (write(fd, buf, sizeof buf) != sizeof buf) return 1;
    close(fd);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: exit_race <dir> <n>\n");
        return 2;
    }
    int n = atoi(argv[2]), killed = 0;
    double life = 0;
    srand((unsigned)getpid());
    for (int k = 0; k < n; k++) {
        double t0 = now();
        pid_t p = fork();
        if (p < 0) return 1;
        if (p == 0) exit(child(argv[1], k));
        if (k >= 5) {
            double f = 0.3 + (rand() % 1000) / 1000.0;
            usleep((useconds_t)(life / 5 * f * 1e6));
            if (kill(p, SIGKILL) == 0) killed++;
        }
        int st;
        waitpid(p, &st, 0);
        if (k < 5) life += now() - t0;
    }
    printf("children %d, kill sent %d, mean life %.0f us\n", n, killed, life / 5 * 1e6);
    return 0;
}
