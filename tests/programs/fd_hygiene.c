/* What a daemon or launcher does to its descriptors, and what it must find
 * afterwards (issue 9, failure 1: the runtime's crash-safe file once sat
 * on fd 3 and its zero-fill writes landed in the program's own file).
 *   argv[1]: loop | closefrom | none   how to close every fd >= 3
 *   argv[2]: data directory
 * Creates records (so the crash-safe file exists), closes the fds, opens
 * its own file, writes 1 MiB of 0xAB in 64 KiB pieces while creating 300
 * more records (the crash-safe file grows), reads the file back, then
 * counts how many opens RLIMIT_NOFILE=16 allows. Prints
 * "first_fd=N intact=1|0 size=S budget=B". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void touch(const char *dir, const char *tag, int i) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s%d", dir, tag, i);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, "x", 1) != 1) exit(3);
        close(fd);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    const char *dir = argv[2];
    for (int i = 0; i < 40; i++) touch(dir, "before", i);
    if (strcmp(argv[1], "loop") == 0) {
        for (int fd = 3; fd < 1024; fd++) close(fd);
    } else if (strcmp(argv[1], "closefrom") == 0) {
        closefrom(3);
    }
    char own[4096];
    snprintf(own, sizeof own, "%s/own.dat", dir);
    int fd = open(own, O_CREAT | O_RDWR | O_TRUNC, 0644);
    static char buf[65536], back[65536];
    memset(buf, 0xAB, sizeof buf);
    for (int i = 0; i < 16; i++) {
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 4;
        for (int k = 0; k < 20; k++) touch(dir, "during", i * 20 + k);
    }
    int intact = 1;
    long size = lseek(fd, 0, SEEK_END);
    lseek(fd, 0, SEEK_SET);
    for (int i = 0; i < 16; i++) {
        if (read(fd, back, sizeof back) != (ssize_t)sizeof back || memcmp(buf, back, sizeof back) != 0) intact = 0;
    }
    close(fd);
    struct rlimit rl = {16, 16};
    setrlimit(RLIMIT_NOFILE, &rl);
    int budget = 0, got[64];
    while (budget < 64 && (got[budget] = open("/dev/null", O_RDONLY)) >= 0) budget++;
    for (int i = 0; i < budget; i++) close(got[i]); /* the log needs one at exit */
    printf("first_fd=%d intact=%d size=%ld budget=%d\n", fd, intact, size, budget);
    return 0;
}
