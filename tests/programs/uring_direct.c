/* Files a liburing ring puts in its registered slots itself ("direct"),
 * each written through its slot (IOSQE_FIXED_FILE), every descriptor
 * closed before its writes:
 *   a.dat, e.dat  registered at slots 1 and 2 (io_uring_register_files):
 *                 100 bytes to a.dat, then 300 to e.dat after a failed
 *                 open into slot 2 (missing/x.dat does not exist);
 *   b.dat         opened into slot 1 relative to the directory's
 *                 descriptor, written (8192 bytes) and closed "direct",
 *                 linked in one submission;
 *   c.dat         opened into a slot the kernel picks
 *                 (IORING_FILE_INDEX_ALLOC), 3 writes of 4096, closed;
 *   d.dat         put at slot 5 by the ring's own files update
 *                 (IORING_OP_FILES_UPDATE), 1000 bytes.
 * usage: uring_direct <dir> */
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct io_uring ring;
static char buf[8192];
static struct io_uring_sqe *last;

#define SQE() (last = io_uring_get_sqe(&ring))

/* Wait for n completions; the result of each in res (in order). */
static int reap(int n, int *res)
{
    for (int k = 0; k < n; k++) {
        struct io_uring_cqe *c;
        if (io_uring_wait_cqe(&ring, &c) != 0) return -1;
        res[c->user_data] = c->res;
        io_uring_cqe_seen(&ring, c);
    }
    return 0;
}

/* The request just prepared (liburing's prep clears both) gets its
 * user_data and flags. */
static void mark(unsigned long long user_data, unsigned char flags)
{
    struct io_uring_sqe *s = last;
    s->user_data = user_data;
    s->flags |= flags;
}

static int write_slot(int slot, unsigned len, off_t off)
{
    int res[1];
    io_uring_prep_write(SQE(), slot, buf, len, off);
    mark(0, IOSQE_FIXED_FILE);
    if (io_uring_submit(&ring) != 1 || reap(1, res) != 0) return -1;
    return res[0] == (int)len ? 0 : -1;
}

int main(int argc, char **argv)
{
    char path[4096];
    int res[4];
    if (argc < 2 || io_uring_queue_init(8, &ring, 0) != 0) return 1;
    memset(buf, 'x', sizeof buf);
    if (io_uring_register_files_sparse(&ring, 16) != 0) return 2;
    int table[2];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", argv[1], k ? "e.dat" : "a.dat");
        table[k] = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    }
    if (io_uring_register_files_update(&ring, 1, table, 2) != 2) return 3;
    close(table[0]);
    close(table[1]);
    if (write_slot(1, 100, 0) != 0) return 4;

    snprintf(path, sizeof path, "%s/missing/x.dat", argv[1]);
    io_uring_prep_openat_direct(SQE(), AT_FDCWD, path, O_RDONLY, 0, 2);
    mark(0, 0);
    if (io_uring_submit(&ring) != 1 || reap(1, res) != 0 || res[0] >= 0) return 5;
    if (write_slot(2, 300, 0) != 0) return 6;

    int dir = open(argv[1], O_RDONLY | O_DIRECTORY);
    io_uring_prep_openat_direct(SQE(), dir, "b.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644, 1);
    mark(0, IOSQE_IO_LINK);
    io_uring_prep_write(SQE(), 1, buf, 8192, 0);
    mark(1, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
    io_uring_prep_close_direct(SQE(), 1);
    mark(2, 0);
    if (io_uring_submit(&ring) != 3 || reap(3, res) != 0) return 7;
    if (res[0] != 0 || res[1] != 8192 || res[2] != 0) return 8;
    close(dir);

    snprintf(path, sizeof path, "%s/c.dat", argv[1]);
    io_uring_prep_openat(SQE(), AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    mark(0, 0);
    last->file_index = IORING_FILE_INDEX_ALLOC;
    if (io_uring_submit(&ring) != 1 || reap(1, res) != 0 || res[0] < 0) return 9;
    int picked = res[0];
    for (int k = 0; k < 3; k++)
        if (write_slot(picked, 4096, (off_t)k * 4096) != 0) return 10;
    io_uring_prep_close_direct(SQE(), picked);
    mark(0, 0);
    if (io_uring_submit(&ring) != 1 || reap(1, res) != 0 || res[0] != 0) return 11;

    snprintf(path, sizeof path, "%s/d.dat", argv[1]);
    int d = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    io_uring_prep_files_update(SQE(), &d, 1, 5);
    mark(0, 0);
    if (io_uring_submit(&ring) != 1 || reap(1, res) != 0 || res[0] != 1) return 12;
    close(d);
    if (write_slot(5, 1000, 0) != 0) return 13;

    io_uring_queue_exit(&ring);
    printf("done %d\n", picked);
    return 0;
}
