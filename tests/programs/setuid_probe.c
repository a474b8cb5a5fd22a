/* A program a site might install set-user-ID: it reads a file and writes
 * one (I/O the runtime would record), then says whose it ran as. Built
 * and made setuid by the privileged-use tests (ffi/tests/privileged.rs).
 * usage: setuid_probe <file to read> <file to write> */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: setuid_probe <file to read> <file to write>\n");
        return 2;
    }
    char buf[256];
    int fd = open(argv[1], O_RDONLY);
    if (fd >= 0) {
        while (read(fd, buf, sizeof buf) > 0) {
        }
        close(fd);
    }
    fd = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, "x", 1) != 1) return 1;
        close(fd);
    }
    printf("uid %d euid %d\n", (int)getuid(), (int)geteuid());
    return 0;
}
