/* Many streams open at once: <dir>/s0 .. s<n-1> opened with fopen, all
 * of them before any is written; a line written to each; all closed.
 * usage: streams_open <dir> <n> */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    int n = atoi(argv[2]);
    char path[4096];
    FILE **f = calloc(n > 0 ? n : 1, sizeof *f);
    if (!f) return 1;
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/s%d", argv[1], i);
        if (!(f[i] = fopen(path, "w"))) {
            perror(path);
            return 1;
        }
    }
    for (int i = 0; i < n; i++) fprintf(f[i], "%d\n", i);
    for (int i = 0; i < n; i++) fclose(f[i]);
    free(f);
    return 0;
}
