/* Files whose names are markup or terminal control sequences, for the
 * tools' escaping tests: each is created in DIR, written, read back and
 * closed (POSIX), one more through stdio, and the standard streams are
 * used so <STDOUT>, <STDERR> and <STDIN> records exist.
 * usage: hostile_names DIR < /dev/null  (prints one line per file made) */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A name holding '/' (as "</b>" does) names a file in a directory: make
 * the directories on the way. */
static void make_parents(char *path, size_t from)
{
    for (size_t i = from; path[i]; i++) {
        if (path[i] != '/') continue;
        path[i] = 0;
        mkdir(path, 0700);
        path[i] = '/';
    }
}

static const char *names[] = {
    "<script>alert(1)</script>.txt",
    "\"><svg id=\"inj2\" onload=alert(2)>",
    "a&amp;b<b id=\"inj3\">bold</b>",
    "</style><script>x</script>",
    "<img id=\"inj5\" src=x onerror=alert(5)>.dat",
    "clear\033[2Jscreen",
    "title\033]0;owned\007bell",
    "line\nbreak",
};

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    char path[4096], buf[64];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", argv[1], names[i]);
        make_parents(path, strlen(argv[1]) + 1);
        int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
        if (fd < 0) return 3;
        /* The terminal-escape names (and the one with a newline) move the
         * most bytes, so that darshan-run's three "busiest" lines and the
         * text report's five top files by bytes name them. */
        static char block[4096];
        size_t n = strchr(names[i], '\033') || strchr(names[i], '\n') ? sizeof block : 10;
        memset(block, '0' + (int)i, n);
        if (write(fd, block, n) != (ssize_t)n) return 4;
        if (pread(fd, buf, 10, 0) != 10) return 5;
        close(fd);
        printf("made %zu\n", i);
    }
    snprintf(path, sizeof path, "%s/%s", argv[1], "stdio<i id=\"inj9\">it</i>");
    make_parents(path, strlen(argv[1]) + 1);
    FILE *f = fopen(path, "w");
    if (!f) return 6;
    fputs("hello\n", f);
    fclose(f);
    fprintf(stderr, "to stderr\n");
    if (fgets(buf, sizeof buf, stdin) != NULL) return 7;
    return 0;
}
