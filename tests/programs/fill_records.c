/* Creates records while something else fills the file system that holds
 * the crash-safe file (issue 9, failure 2: SIGBUS on a full tmpfs).
 *   argv[1]: data directory   argv[2]: number of files
 * One file first, then "ready" on stdout, then waits for a line on stdin
 * (the test fills the file system meanwhile), then creates argv[2] files
 * with open + write + close and prints "done N". With argv[3] = M, then
 * calls the NULL module's wrapper (found with dlsym) on M names, so that a
 * module's first record comes after the file system filled, and prints
 * "null S" (the sum of what the calls returned). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    char p[4096], line[64];
    snprintf(p, sizeof p, "%s/first", argv[1]);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, "x", 1) != 1) return 3;
    close(fd);
    printf("ready\n");
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin)) return 4;
    int n = atoi(argv[2]), made = 0;
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/file-with-a-rather-long-name-to-fill-the-name-table-%06d", argv[1], i);
        fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0) continue;
        if (write(fd, "y", 1) == 1) made++;
        close(fd);
    }
    printf("done %d\n", made);
    if (argc > 3) {
        long (*foo)(const char *, long) = (long (*)(const char *, long))dlsym(RTLD_DEFAULT, "darshan_null_foo");
        long sum = 0;
        for (int i = 0; foo && i < atoi(argv[3]); i++) {
            snprintf(p, sizeof p, "null-%d", i);
            sum += foo(p, i);
        }
        printf("null %ld\n", sum);
    }
    return 0;
}
