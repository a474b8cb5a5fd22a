/* Sockets a liburing ring puts in registered slots the kernel picks
 * (IORING_FILE_INDEX_ALLOC), each written through its slot
 * (IOSQE_FIXED_FILE), beside one file written through the ring:
 *   a multishot accept direct on a listening Unix socket, two clients
 *   connecting: two slots, 5 bytes written on each connection;
 *   a datagram socket made direct (IORING_OP_SOCKET), connected by the
 *   ring, 7 bytes written on it;
 *   f.dat, opened by the program: 4096 bytes written by the ring.
 * The clients read what was written to them (checked). The accept is
 * cancelled before the ring is torn down.
 * usage: uring_accept <dir> */
#include <fcntl.h>
#include <liburing.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static struct io_uring ring;
static char buf[4096];

/* An abstract Unix address (no file): "\0uring-accept-<pid>-<what>". */
static socklen_t address(struct sockaddr_un *a, const char *what)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "uring-accept-%d-%s", (int)getpid(), what);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* One completion: its user_data, result and flags. */
static int reap(unsigned long long *ud, int *res, unsigned *flags)
{
    struct io_uring_cqe *cqe;
    if (io_uring_wait_cqe(&ring, &cqe) < 0)
        return -1;
    *ud = cqe->user_data;
    *res = cqe->res;
    *flags = cqe->flags;
    io_uring_cqe_seen(&ring, cqe);
    return 0;
}

/* Submit the entries prepared and wait for the one with user_data `want`;
 * its result. */
static int wait_for(unsigned long long want)
{
    unsigned long long ud;
    int res;
    unsigned flags;
    io_uring_submit(&ring);
    do {
        if (reap(&ud, &res, &flags) < 0)
            return -1000;
    } while (ud != want);
    return res;
}

static int write_slot(int slot, const char *what, unsigned n, unsigned long long ud)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    io_uring_prep_write(sqe, slot, what, n, 0);
    sqe->flags |= IOSQE_FIXED_FILE;
    sqe->user_data = ud;
    return wait_for(ud);
}

int main(int argc, char **argv)
{
    if (argc < 2 || io_uring_queue_init(8, &ring, 0) < 0 || io_uring_register_files_sparse(&ring, 8) < 0) {
        puts("no ring");
        return 1;
    }
    struct sockaddr_un la, da;
    socklen_t ll = address(&la, "stream"), dl = address(&da, "dgram");
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    int dfd = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (bind(lfd, (struct sockaddr *)&la, ll) < 0 || listen(lfd, 4) < 0 || bind(dfd, (struct sockaddr *)&da, dl) < 0) {
        puts("no sockets");
        return 1;
    }
    struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
    io_uring_prep_multishot_accept_direct(sqe, lfd, NULL, NULL, 0);
    sqe->user_data = 1;
    io_uring_submit(&ring);
    int client[2], slot[2];
    for (int k = 0; k < 2; k++) {
        client[k] = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(client[k], (struct sockaddr *)&la, ll) < 0)
            return puts("no connection"), 1;
        slot[k] = wait_for(1);
    }
    int written = 0;
    for (int k = 0; k < 2; k++)
        written += write_slot(slot[k], "hello", 5, 10 + k);
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_socket_direct_alloc(sqe, AF_UNIX, SOCK_DGRAM, 0, 0);
    sqe->user_data = 2;
    int made = wait_for(2);
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_connect(sqe, made, (struct sockaddr *)&da, dl);
    sqe->flags |= IOSQE_FIXED_FILE;
    sqe->user_data = 3;
    int connected = wait_for(3);
    written += write_slot(made, "datagram", 7, 12);
    char got[3][16] = {{0}};
    for (int k = 0; k < 2; k++)
        if (read(client[k], got[k], 5) != 5)
            return puts("short read"), 1;
    if (read(dfd, got[2], sizeof got[2]) != 7)
        return puts("no datagram"), 1;
    char path[4096];
    snprintf(path, sizeof path, "%s/f.dat", argv[1]);
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_write(sqe, f, buf, sizeof buf, 0);
    sqe->user_data = 4;
    int filed = wait_for(4);
    close(f);
    sqe = io_uring_get_sqe(&ring);
    io_uring_prep_cancel64(sqe, 1, 0);
    sqe->user_data = 5;
    int cancelled = wait_for(1);
    io_uring_queue_exit(&ring);
    int ok = slot[0] >= 0 && slot[1] >= 0 && slot[0] != slot[1] && made >= 0 && connected == 0;
    ok = ok && written == 17 && filed == 4096 && !strcmp(got[0], "hello") && !strcmp(got[2], "datagra");
    printf("%s slots %d %d %d, cancelled %d\n", ok ? "done" : "failed", slot[0], slot[1], made, cancelled);
    return !ok;
}
