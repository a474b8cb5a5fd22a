/* Prints 1 if an MPI library is mapped into this (non-MPI) process, else 0,
 * after doing a little I/O so the runtime records something. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    FILE *out = fopen(argv[1], "w");
    fputs("data\n", out);
    fclose(out);
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, maps))
        if (strstr(line, "libmpi")) found = 1;
    fclose(maps);
    printf("%d\n", found);
    return 0;
}
