/* Four threads, each with a ring of its own (liburing), each writing its
 * own file in 8 writes of 4 KiB; with ROUNDS, each thread does that
 * ROUNDS times, each time with a new ring (set up, 8 writes at the next
 * 32 KiB of its file, torn down), so that rings come and go while the
 * other threads' rings take their descriptor numbers.
 * usage: uring_threads <dir> [ROUNDS] */
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dir;
static int rounds = 1;

/* One ring's life: 8 writes of 4 KiB at block 8 * round of `fd`. */
static long one_ring(int fd, int round)
{
    struct io_uring ring;
    if (io_uring_queue_init(8, &ring, 0) != 0) return 1;
    static char buf[4096];
    for (int k = 0; k < 8; k++) {
        struct io_uring_sqe *s = io_uring_get_sqe(&ring);
        io_uring_prep_write(s, fd, buf, sizeof buf, ((off_t)round * 8 + k) * sizeof buf);
        s->user_data = k;
    }
    if (io_uring_submit_and_wait(&ring, 8) != 8) return 2;
    for (int k = 0; k < 8; k++) {
        struct io_uring_cqe *c;
        if (io_uring_wait_cqe(&ring, &c) != 0 || c->res != (int)sizeof buf) return 3;
        io_uring_cqe_seen(&ring, c);
    }
    io_uring_queue_exit(&ring);
    return 0;
}

static void *worker(void *arg)
{
    long t = (long)arg;
    char path[4096];
    snprintf(path, sizeof path, "%s/t%ld.dat", dir, t);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) return (void *)1;
    for (int r = 0; r < rounds; r++) {
        long e = one_ring(fd, r);
        if (e) return (void *)e;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) return 1;
    dir = argv[1];
    if (argc > 2) rounds = atoi(argv[2]);
    pthread_t th[4];
    for (long t = 0; t < 4; t++) pthread_create(&th[t], 0, worker, (void *)t);
    for (int t = 0; t < 4; t++) {
        void *r;
        pthread_join(th[t], &r);
        if (r) return 2;
    }
    puts("done");
    return 0;
}
