/* Records a file, tries to exec a program that does not exist (the
 * runtime removes its crash-safe file before the exec), then records
 * another: the process goes on after the failed exec and must be
 * recorded to its end.   argv[1]: data directory; argv[2] "late": no
 * file recorded before the exec (no crash-safe file made yet then);
 * "kill" or "late-kill": the process ends killed by SIGKILL at its end
 * (what it recorded is then in its crash-safe file alone); "wait": before
 * the exec it prints "ready" and waits for a line on stdin (a test fills
 * the crash-safe file's file system meanwhile) */
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <unistd.h>

static int touch(const char *dir, const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "x", 1) != 1) return 1;
    return close(fd);
}

int main(int argc, char **argv) {
    int late = argc > 2 && strncmp(argv[2], "late", 4) == 0;
    int killed = argc > 2 && strstr(argv[2], "kill") != NULL;
    if (argc < 2 || (!late && touch(argv[1], "before"))) return 2;
    if (argc > 2 && strstr(argv[2], "wait") != NULL) {
        char line[16];
        if (write(1, "ready\n", 6) != 6 || read(0, line, sizeof line) <= 0) return 4;
    }
    char *args[] = {"/no/such/program", NULL};
    execv(args[0], args); /* fails */
    for (int i = 0; i < 200; i++) { /* more records than the first pages hold */
        char n[32];
        snprintf(n, sizeof n, "after%d", i);
        if (touch(argv[1], n)) return 3;
    }
    if (killed) kill(getpid(), SIGKILL);
    return 0;
}
