/* A stream reopened with freopen (the same FILE *) and closed, then a
 * second stream that glibc makes at the same address: `fdopen` of a
 * descriptor no Darshan records (the raw openat syscall), a seek and a
 * 2-byte write; then a recorded file by fopen, at that address again, with
 * a 3-byte write. The first file is never written or seeked: C 3.5.0's
 * freopen leaves a stale entry in its map of streams, and it counts the
 * second stream's seek and write as the first file's
 * (docs/differential.md, fork seed 12010).
 * usage: reopened_stream DIR -> DIR/first, DIR/unrecorded, DIR/second;
 * prints whether the streams shared the first's address. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    char p[3][4096];
    const char *names[3] = {"first", "unrecorded", "second"};
    for (int i = 0; i < 3; i++) snprintf(p[i], sizeof p[i], "%s/%s", argv[1], names[i]);
    FILE *a = fopen(p[0], "w");
    if (!a) return 1;
    void *first = a;
    a = freopen(p[0], "r", a);
    if (!a) return 1;
    fclose(a);
    int fd = (int)syscall(SYS_openat, AT_FDCWD, p[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    FILE *b = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!b) return 1;
    int same_b = (void *)b == first;
    fseek(b, 100, SEEK_SET);
    fwrite("xy", 1, 2, b);
    fclose(b);
    FILE *c = fopen(p[2], "w");
    if (!c) return 1;
    int same_c = (void *)c == first;
    fwrite("xyz", 1, 3, c);
    fclose(c);
    printf("same address: %d %d\n", same_b, same_c);
    return 0;
}
