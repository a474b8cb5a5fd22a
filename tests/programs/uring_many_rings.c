/* RINGS liburing rings set up at once in one thread, each with a file of
 * its own, registered at index SLOT + ring (in a table of that many slots
 * plus one, the others sparse), written in 8 writes of 4 KiB through the
 * registered index (IOSQE_FIXED_FILE); then every ring is torn down.
 * As fio --thread --numjobs=RINGS has RINGS rings in one process.
 * usage: uring_many_rings <dir> <RINGS> <SLOT> */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) return 1;
    int n = atoi(argv[2]), slot = atoi(argv[3]);
    struct io_uring *rings = calloc(n, sizeof *rings);
    int *table = malloc(sizeof(int) * (slot + n + 1));
    static char buf[4096];
    for (int r = 0; r < n; r++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/r%d.dat", argv[1], r);
        int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0 || io_uring_queue_init(8, &rings[r], 0) != 0) return 2;
        for (int k = 0; k <= slot + r; k++) table[k] = k == slot + r ? fd : -1;
        if (io_uring_register_files(&rings[r], table, slot + r + 1) != 0) return 3;
        close(fd);
    }
    for (int r = 0; r < n; r++) {
        for (int k = 0; k < 8; k++) {
            struct io_uring_sqe *s = io_uring_get_sqe(&rings[r]);
            io_uring_prep_write(s, slot + r, buf, sizeof buf, (off_t)k * sizeof buf);
            s->flags |= IOSQE_FIXED_FILE;
            s->user_data = k;
        }
        if (io_uring_submit_and_wait(&rings[r], 8) != 8) return 4;
        for (int k = 0; k < 8; k++) {
            struct io_uring_cqe *c;
            if (io_uring_wait_cqe(&rings[r], &c) != 0 || c->res != (int)sizeof buf) return 5;
            io_uring_cqe_seen(&rings[r], c);
        }
    }
    for (int r = 0; r < n; r++) io_uring_queue_exit(&rings[r]);
    puts("done");
    return 0;
}
