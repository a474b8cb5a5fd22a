/* Loads LIB with dlopen(RTLD_NOW | RTLD_LOCAL), as Python imports an
 * extension module, so that the libraries LIB links (libmpi, liburing)
 * are loaded outside the global scope, and returns what its function
 * SYMBOL(argc, argv) returns, given the arguments from SYMBOL on (SYMBOL
 * as its argv[0]). This program itself links neither.
 * usage: dlopen_main LIB SYMBOL [ARG...] */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return fprintf(stderr, "usage: dlopen_main LIB SYMBOL [ARG...]\n"), 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return fprintf(stderr, "dlopen: %s\n", dlerror()), 2;
    int (*f)(int, char **) = (int (*)(int, char **))dlsym(h, argv[2]);
    if (!f)
        return fprintf(stderr, "dlsym %s: %s\n", argv[2], dlerror()), 2;
    return f(argc - 2, argv + 2);
}
