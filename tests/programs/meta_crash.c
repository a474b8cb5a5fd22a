/* Killed mid-run: removes argv[2] files it made under argv[1] and lists
 * argv[1] once, says "ready", then waits to be killed (SIGKILL). The
 * crash-safe file must hold every completed call. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    int n = atoi(argv[2]);
    char p[4200];
    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/g%d", argv[1], i);
        close(open(p, O_CREAT | O_WRONLY, 0644));
        if (unlink(p) != 0) return 1;
    }
    DIR *d = opendir(argv[1]);
    if (!d) return 1;
    while (readdir(d)) {}
    closedir(d);
    printf("ready\n");
    fflush(stdout);
    for (;;) pause();
}
