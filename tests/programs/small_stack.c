/* A thread with the smallest stack a pthread may have (PTHREAD_STACK_MIN,
 * 16 KiB on x86-64; an Argobots ULT's default) does the process's first
 * I/O: N new files of 6 bytes (relative names, one of them longer than
 * 512 bytes), each grown with ftruncate and made private with fchmod, and
 * a stream written with fprintf. Prints "ok N" and returns 0.
 * With "exit" the thread ends the process itself: exit(0) after its
 * line. With "main" the main thread does the same work (for a test that
 * starts the program under a small `ulimit -s`) and returns.
 * usage: small_stack <dir> <N> [exit|main] */
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long n;
static int exit_from_thread;

static int one(const char *name)
{
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return -1;
    int bad = write(fd, "abcdef", 6) != 6 || ftruncate(fd, 6) || fchmod(fd, 0600);
    return close(fd) || bad ? -1 : 0;
}

static void *work(void *arg)
{
    (void)arg;
    char name[64];
    for (long i = 0; i < n - 1; i++) {
        snprintf(name, sizeof name, "f%ld", i);
        if (one(name)) return (void *)1;
    }
    /* The last file two directories down, 200 bytes per name: more than
     * 512 bytes in all once made absolute. */
    static char deep[700];
    memset(deep, 'd', 200);
    if (mkdir(deep, 0700)) return (void *)2;
    deep[200] = '/';
    memset(deep + 201, 'e', 200);
    if (mkdir(deep, 0700)) return (void *)2;
    deep[401] = '/';
    memset(deep + 402, 'f', 200);
    if (one(deep)) return (void *)3;
    FILE *f = fopen("stream.txt", "w");
    if (!f || fprintf(f, "%ld files\n", n) < 0 || fclose(f)) return (void *)4;
    if (exit_from_thread) {
        printf("ok %ld\n", n);
        exit(0);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || chdir(argv[1])) return 2;
    n = atol(argv[2]);
    const char *mode = argc == 4 ? argv[3] : "";
    if (!strcmp(mode, "main")) {
        if (work(0)) return 5;
        printf("ok %ld\n", n);
        return 0;
    }
    exit_from_thread = !strcmp(mode, "exit");
    pthread_attr_t a;
    pthread_attr_init(&a);
    if (pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN)) return 3;
    pthread_t t;
    void *r;
    if (pthread_create(&t, &a, work, 0) || pthread_join(t, &r)) return 4;
    if (r) { fprintf(stderr, "step %ld failed\n", (long)r); return 5; }
    printf("ok %ld\n", n);
    return 0;
}
