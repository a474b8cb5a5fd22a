/* Linked with libctor_lib.so; also dlopens libm and uses it, then does
 * I/O on <file>.main. usage: ctor_main <file> */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int ctor_lib_marker(void);

int main(int argc, char **argv)
{
    void *h = dlopen("libm.so.6", RTLD_NOW);
    if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    double (*c)(double) = (double (*)(double))dlsym(h, "cos");
    if (!c || c(0.0) != 1.0) return 2;
    char path[4096];
    snprintf(path, sizeof path, "%s.main", argv[1]);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    for (int i = 0; i < 4; i++) write(fd, "xy", 2);
    close(fd);
    dlclose(h);
    return ctor_lib_marker() == 42 ? 0 : 3;
}
