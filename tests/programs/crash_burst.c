/* 4 threads, each writing 1-byte records to its own file t<i>.dat as fast
 * as it can, counting every write that returned in a shared counter file
 * (argv[2], 8 bytes, MAP_SHARED) so that a test can read, after killing
 * the process mid-burst, how many writes had completed. No thread writes
 * before all four have opened their files: on two busy cores, three
 * threads made 28,559 writes while the fourth had opened its file and
 * not yet written, and a kill then could come before its open was
 * recorded (the test wants one record per file).
 * usage: crash_burst <dir> <counter file> */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

static _Atomic long *done;
static const char *dir;
static pthread_barrier_t opened;

static void *burst(void *arg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/t%ld.dat", dir, (long)arg);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    pthread_barrier_wait(&opened);
    for (;;) {
        if (write(fd, "x", 1) == 1) atomic_fetch_add(done, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    dir = argv[1];
    int cfd = open(argv[2], O_RDWR);
    done = mmap(NULL, 8, PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
    pthread_t t[4];
    pthread_barrier_init(&opened, NULL, 4);
    for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, burst, (void *)i);
    pthread_join(t[0], NULL);
    return 0;
}
