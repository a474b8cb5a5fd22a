/* A directory stream opened before fork and read by the child: the
 * parent makes <n> files in <dir>, opens <dir>, forks; the child reads
 * the whole stream (n + 2 entries with . and .., then the end) and
 * exits; the parent waits and closes its stream without reading it.
 * usage: dir_fork <dir> <n> */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: dir_fork <dir> <n>\n");
        return 2;
    }
    int n = atoi(argv[2]);
    char path[4096];
    for (int k = 0; k < n; k++) {
        snprintf(path, sizeof path, "%s/f%d", argv[1], k);
        int fd = open(path, O_CREAT | O_WRONLY, 0644);
        if (fd < 0) return 1;
        close(fd);
    }
    DIR *d = opendir(argv[1]);
    if (!d) return 1;
    pid_t p = fork();
    if (p < 0) return 1;
    if (p == 0) {
        int entries = 0;
        while (readdir(d)) entries++;
        printf("child read %d entries\n", entries);
        exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    closedir(d);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
