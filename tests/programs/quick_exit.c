/* Writes 7 records' worth of I/O then leaves through _exit (as Python
 * multiprocessing workers do): the log must still be written.
 * usage: quick_exit <file> */
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
    for (int i = 0; i < 7; i++) write(fd, "abc", 3);
    _exit(0);
}
