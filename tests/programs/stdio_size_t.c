/* The STDIO calls whose byte counts C Darshan 3.5.0 passes as size_t,
 * where its MAX_BYTE_* check is unsigned (found by running random
 * programs under C Darshan and ours). argv[1]: a directory. C's log:
 *   nul.txt:      fgets reads "" at offset 0 (a line starting with NUL
 *                 bytes), then fread 298 bytes: MAX_BYTE_READ -1.
 *   nul_getc.txt: the same, then fgetc (an int 1) at 298: 298.
 *   empty.txt:    fputs("") at offset 0, then fwrite 50 bytes:
 *                 MAX_BYTE_WRITTEN -1.
 *   flushed.txt:  the same, then fflush (an int 0): 49. */
#include <stdio.h>
#include <string.h>

static FILE *open_in(const char *dir, const char *name, const char *mode) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return fopen(p, mode);
}

/* fgets of "" at offset 0, then fread of 298 bytes; fgetc if `getc`. */
static int read_nul_line(const char *dir, const char *name, int getc) {
    char buf[1024];
    memset(buf, 'a', sizeof buf);
    FILE *f = open_in(dir, name, "w");
    if (!f) return 1;
    fwrite("\0\0\0", 1, 3, f);
    fwrite(buf, 1, 600, f);
    fclose(f);
    f = open_in(dir, name, "r");
    if (!f || !fgets(buf, 10, f) || strlen(buf) != 0) return 1;
    if (fread(buf, 1, 298, f) != 298) return 1;
    if (getc && fgetc(f) == EOF) return 1;
    return fclose(f) != 0;
}

/* fputs of an empty string (not a literal: a compiler drops fputs(""))
 * at offset 0, then fwrite of 50 bytes; fflush if `flush`. */
static int write_empty(const char *dir, const char *name, const char *empty, int flush) {
    char buf[64];
    memset(buf, 'b', sizeof buf);
    FILE *f = open_in(dir, name, "w");
    if (!f || fputs(empty, f) == EOF) return 1;
    if (fwrite(buf, 1, 50, f) != 50) return 1;
    if (flush && fflush(f) != 0) return 1;
    return fclose(f) != 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *empty = argv[0] + strlen(argv[0]);
    return read_nul_line(argv[1], "nul.txt", 0) || read_nul_line(argv[1], "nul_getc.txt", 1) ||
           write_empty(argv[1], "empty.txt", empty, 0) || write_empty(argv[1], "flushed.txt", empty, 1);
}
