/* A library whose constructor does STDIO and POSIX I/O before main, and
 * possibly before the runtime's own constructor. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void early_io(void)
{
    const char *p = getenv("CTOR_FILE");
    if (!p) return;
    FILE *f = fopen(p, "w");
    if (f) { fprintf(f, "written in a constructor\n"); fclose(f); }
    int fd = open(p, O_RDONLY);
    char b[8];
    if (fd >= 0) { read(fd, b, sizeof b); close(fd); }
}

int ctor_lib_marker(void) { return 42; }
