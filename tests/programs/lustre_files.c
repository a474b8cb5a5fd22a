/* Writes and closes each file named on the command line (open/write/
 * close), or, for a name given after "-s", through fopen/fprintf/fclose:
 * the closes at which the LUSTRE module reads each file's layout. "-k"
 * kills the program there (SIGKILL: no shutdown, only the crash-safe
 * file is left). */
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static char buf[65536];
    memset(buf, 'x', sizeof buf);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-k") == 0)
            raise(SIGKILL);
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc) {
            FILE *f = fopen(argv[++i], "w");
            if (!f) { perror(argv[i]); return 1; }
            fprintf(f, "through stdio\n");
            if (fclose(f) != 0) { perror("fclose"); return 1; }
            continue;
        }
        int fd = open(argv[i], O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd < 0) { perror(argv[i]); return 1; }
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) { perror("write"); return 1; }
        if (close(fd) != 0) { perror("close"); return 1; }
    }
    return 0;
}
