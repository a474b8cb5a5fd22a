/* Loads the runtime with dlopen, as a program that loads a tracing
 * library itself would, writes N files of 6 bytes through its open,
 * write and close (looked up in its handle: the program's own calls were
 * bound before it came), lets it go with dlclose, prints "ok N" and
 * returns 0.
 * usage: dlclose_runtime <lib> <dir> <N> */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

int main(int argc, char **argv)
{
    if (argc != 4) return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
    int (*open_)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(h, "open");
    ssize_t (*write_)(int, const void *, size_t) = (ssize_t (*)(int, const void *, size_t))dlsym(h, "write");
    int (*close_)(int) = (int (*)(int))dlsym(h, "close");
    if (!open_ || !write_ || !close_) return 4;
    long n = atol(argv[3]);
    char name[4096];
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s/f%ld", argv[2], i);
        int fd = open_(name, O_CREAT | O_WRONLY | O_TRUNC, 0600);
        if (fd < 0 || write_(fd, "abcdef", 6) != 6 || close_(fd)) return 5;
    }
    if (dlclose(h)) { fprintf(stderr, "dlclose: %s\n", dlerror()); return 6; }
    printf("ok %ld\n", n);
    return 0;
}
