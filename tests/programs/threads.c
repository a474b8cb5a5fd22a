/* 8 threads: each writes 1000 x 100 B to its own file and 500 x 64 B with
 * pwrite to one shared file, then reads its own file back with read().
 * Counts are exact: private WRITES 1000, READS 10 (10 x 10000 B), shared
 * WRITES 4000. usage: threads <dir> */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dir;
static int shared_fd;

static void *work(void *arg)
{
    long k = (long)arg;
    char path[4096], buf[10000];
    memset(buf, 'a' + k, sizeof buf);
    snprintf(path, sizeof path, "%s/private.%ld", dir, k);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    if (fd < 0) { perror("open"); exit(1); }
    for (int i = 0; i < 1000; i++)
        if (write(fd, buf, 100) != 100) { perror("write"); exit(1); }
    for (int i = 0; i < 500; i++)
        if (pwrite(shared_fd, buf, 64, (k * 500 + i) * 64) != 64) { perror("pwrite"); exit(1); }
    lseek(fd, 0, SEEK_SET);
    for (int i = 0; i < 10; i++)
        if (read(fd, buf, 10000) != 10000) { perror("read"); exit(1); }
    close(fd);
    return NULL;
}

int main(int argc, char **argv)
{
    char path[4096];
    pthread_t t[8];
    dir = argv[1];
    snprintf(path, sizeof path, "%s/shared", dir);
    shared_fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (shared_fd < 0) { perror("open shared"); return 1; }
    for (long k = 0; k < 8; k++) pthread_create(&t[k], NULL, work, (void *)k);
    for (int k = 0; k < 8; k++) pthread_join(t[k], NULL);
    close(shared_fd);
    return 0;
}
