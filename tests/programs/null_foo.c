/* Calls the NULL module's template wrapper, found with dlsym so that the
 * program also runs without the library: foo("alpha", 0..4), foo("beta", 42).
 * Prints "sum=52" (foo returns its argument) or "absent". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

typedef long (*foo_t)(const char *, long);

int main(void) {
    foo_t foo = (foo_t)dlsym(RTLD_DEFAULT, "darshan_null_foo");
    if (!foo) {
        puts("absent");
        return 0;
    }
    long sum = 0;
    for (long i = 0; i < 5; i++) sum += foo("alpha", i);
    sum += foo("beta", 42);
    printf("sum=%ld\n", sum);
    return 0;
}
