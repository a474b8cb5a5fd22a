/* lock_memory DIR: writes one small file in DIR (a record, so the
 * runtime's crash-safe file exists), locks all its memory with
 * mlockall(MCL_CURRENT), then prints "locked KB" (VmLck) and one line
 * "KB PATH" per mapping (PATH empty for anonymous memory), from
 * /proc/self/status and /proc/self/maps. Exit 1 if a step fails. */
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
    if (mlockall(MCL_CURRENT) != 0) { perror("mlockall"); return 1; }
    FILE *st = fopen("/proc/self/status", "r");
    char line[4200];
    long locked = -1;
    while (st && fgets(line, sizeof line, st))
        if (sscanf(line, "VmLck: %ld kB", &locked) == 1) break;
    if (st) fclose(st);
    if (locked < 0) return 1;
    printf("locked %ld\n", locked);
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
