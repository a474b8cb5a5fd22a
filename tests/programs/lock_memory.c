/* lock_memory DIR: writes one small file in DIR (a record, so the
 * runtime's crash-safe file exists), locks all its memory with
 * mlockall(MCL_CURRENT) if it may (root, or a high enough `ulimit -l`),
 * then prints "size KB locked KB" (VmSize, VmLck: 0 when it may not)
 * and one line "KB PATH" per mapping (PATH empty for anonymous memory),
 * from /proc/self/status and /proc/self/maps. Exit 1 if a step fails. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s/data", argv[1]);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    if (fd < 0 || write(fd, "locked", 6) != 6 || close(fd) != 0) return 1;
    mlockall(MCL_CURRENT);
    FILE *st = fopen("/proc/self/status", "r");
    char line[4200];
    long size = -1, locked = -1;
    while (st && fgets(line, sizeof line, st)) {
        sscanf(line, "VmSize: %ld kB", &size);
        sscanf(line, "VmLck: %ld kB", &locked);
    }
    if (st) fclose(st);
    if (size < 0 || locked < 0) return 1;
    printf("size %ld locked %ld\n", size, locked);
    FILE *maps = fopen("/proc/self/maps", "r");
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char name[4096] = "";
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095s", &lo, &hi, name) < 2) continue;
        printf("%lu %s\n", (hi - lo) / 1024, name);
    }
    if (maps) fclose(maps);
    return 0;
}
