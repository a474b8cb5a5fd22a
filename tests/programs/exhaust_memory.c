/* Uses up its address space before it exits, as a program under
 * `ulimit -v` (or strict overcommit) may: the runtime's shutdown then
 * finds no memory, and a failed allocation in Rust aborts the process.
 *   argv[1]: data directory   argv[2]: number of files
 * Writes 6 bytes into each of argv[2] new files (open + write + close),
 * prints "done N", then takes blocks of 64 KiB, then 4 KiB, then 64
 * bytes until malloc fails for each size (never touching them, keeping
 * them all), and returns 0: almost no memory is left for anyone. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    int n = atoi(argv[2]);
    char p[4096];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/f%05d", argv[1], i);
        int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0 || write(fd, "hello\n", 6) != 6 || close(fd) != 0) return 3;
    }
    printf("done %d\n", n);
    fflush(stdout);
    long blocks = 0;
    for (size_t size = 64 << 10; size >= 64; size /= 64)
        while (malloc(size)) blocks++;
    return blocks > 0 ? 0 : 4;
}
