/* Copies a file through liburing, QD requests in flight, in blocks of BS
 * bytes: reads with io_uring_prep_read, writes with io_uring_prep_write,
 * waited for with io_uring_wait_cqe and consumed with io_uring_cqe_seen
 * (an inline: no call the runtime sees). With "fixed", the two files are
 * registered and used by index (IOSQE_FIXED_FILE).
 * With "hold", the program says "ready" once the copy is done and waits
 * for its standard input to close before it ends the ring. With "mix", it
 * then also reads 1,000 bytes of the source with pread and appends 4,096
 * to the destination with pwrite: POSIX and io_uring on the same files.
 * With "twice" (not with "fixed"), the copy is made a second time through
 * a new ring, after the first ring's descriptor was closed with a raw
 * close system call, so that the new ring reuses its number unseen.
 * usage: uring_copy <src> <dst> <block bytes> <queue depth> [fixed|plain] [hold] [mix] [twice] */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The copy through `ring`: 0, or the step that failed. */
static int copy(struct io_uring *ring, int fin, int fout, int flag, char *buf, size_t bs, unsigned qd, off_t size)
{
    off_t off = 0;
    /* Each round: up to qd reads, wait for them, then the same writes. */
    while (off < size) {
        unsigned n = 0;
        for (; n < qd && off + (off_t)(n * bs) < size; n++) {
            struct io_uring_sqe *s = io_uring_get_sqe(ring);
            size_t len = size - (off + n * bs) < (off_t)bs ? size - (off + n * bs) : bs;
            io_uring_prep_read(s, fin, buf + n * bs, len, off + n * bs);
            s->flags |= flag;
            s->user_data = n;
        }
        if (io_uring_submit(ring) != (int)n) return 5;
        for (unsigned k = 0; k < n; k++) {
            struct io_uring_cqe *c;
            if (io_uring_wait_cqe(ring, &c) != 0 || c->res < 0) return 6;
            io_uring_cqe_seen(ring, c);
        }
        for (unsigned k = 0; k < n; k++) {
            struct io_uring_sqe *s = io_uring_get_sqe(ring);
            size_t len = size - (off + k * bs) < (off_t)bs ? size - (off + k * bs) : bs;
            io_uring_prep_write(s, fout, buf + k * bs, len, off + k * bs);
            s->flags |= flag;
            s->user_data = 1000 + k;
        }
        if (io_uring_submit_and_wait(ring, n) != (int)n) return 7;
        for (unsigned k = 0; k < n; k++) {
            struct io_uring_cqe *c;
            if (io_uring_peek_cqe(ring, &c) != 0 || c->res < 0) return 8;
            io_uring_cqe_seen(ring, c);
        }
        off += (off_t)n * bs;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 5) return 1;
    size_t bs = strtoul(argv[3], 0, 10);
    unsigned qd = strtoul(argv[4], 0, 10);
    int fixed = 0, hold = 0, mix = 0, twice = 0;
    for (int a = 5; a < argc; a++) {
        fixed |= strcmp(argv[a], "fixed") == 0;
        hold |= strcmp(argv[a], "hold") == 0;
        mix |= strcmp(argv[a], "mix") == 0;
        twice |= strcmp(argv[a], "twice") == 0;
    }
    int in = open(argv[1], O_RDONLY), out = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    struct stat st;
    if (in < 0 || out < 0 || fstat(in, &st) != 0) return 2;
    struct io_uring ring;
    if (io_uring_queue_init(qd, &ring, 0) != 0) return 3;
    int fds[2] = {in, out};
    if (fixed && io_uring_register_files(&ring, fds, 2) != 0) return 4;
    int fin = fixed ? 0 : in, fout = fixed ? 1 : out, flag = fixed ? IOSQE_FIXED_FILE : 0;
    char *buf = malloc(bs * qd);
    off_t size = st.st_size;
    int failed = copy(&ring, fin, fout, flag, buf, bs, qd, size);
    if (failed) return failed;
    if (twice) {
        /* The ring's descriptor closed where the runtime cannot see it
         * (its mapping left as it is); the next ring gets its number. */
        int old = ring.ring_fd;
        syscall(SYS_close, old);
        if (io_uring_queue_init(qd, &ring, 0) != 0 || ring.ring_fd != old) return 10;
        if ((failed = copy(&ring, fin, fout, flag, buf, bs, qd, size))) return failed;
    }
    if (mix) {
        char posix[4096];
        memset(posix, 1, sizeof posix);
        if (pread(in, posix, 1000, 0) != 1000 || pwrite(out, posix, sizeof posix, size) != (ssize_t)sizeof posix)
            return 9;
    }
    if (hold) {
        printf("ready\n");
        fflush(stdout);
        while (getchar() != EOF) {}
    }
    io_uring_queue_exit(&ring);
    close(in);
    close(out);
    printf("copied %lld bytes\n", (long long)size);
    return 0;
}
