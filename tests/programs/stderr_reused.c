/* Closes its stderr, then opens a data file, which gets descriptor 2 (as
 * a daemon's files do), and writes 5 bytes to it through that descriptor.
 *   argv[1]: the data file
 * Returns 0 when the file got descriptor 2 and the write was whole. The
 * file must then hold exactly "data\n": nothing of the runtime's. */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    close(2);
    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd != 2) return 3;
    if (write(fd, "data\n", 5) != 5) return 4;
    return 0;
}
