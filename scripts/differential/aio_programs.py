#!/usr/bin/env python3
"""posix's programs with glibc's aio among their descriptor calls, for
scripts/differential/run.py's aio kind: aio_read/aio_write (and their 64
forms) returned at once or later, lio_listio of up to three requests,
requests returned after their descriptor was closed, duplicated or its
number reused, in another order than submitted, or never returned.
Darshan counts a request at aio_return, in the record its descriptor
names then, with the offset and size the aiocb asks for. Each request is
waited for before the program goes on (and returned then or later): what
a request moves must not depend on when glibc's aio thread ran it, next
to the program's own calls on the same file."""
import sys

import programs

AIO_OPS = ["aio_now", "aio_now", "aio_later", "aio_later", "aio_return_all", "lio"]

AIO_PROLOGUE = programs.PROLOGUE.replace("#include <fcntl.h>\n", "#include <aio.h>\n#include <errno.h>\n#include <fcntl.h>\n", 1).replace(
    "int main(int argc, char **argv) {",
    """#define NCB 64
static struct aiocb acb[NCB];
static char abuf[NCB][65536 + 8];
static int aok[NCB];
/* Request k on fd: a write from buf or a read into its own buffer. */
static void aio_go(int k, int fd, int write, size_t n, off_t off, int wide) {
    struct aiocb *c = &acb[k];
    memset(c, 0, sizeof *c);
    c->aio_fildes = fd; c->aio_buf = write ? (void *)buf : (void *)abuf[k]; c->aio_nbytes = n; c->aio_offset = off;
    int r = wide ? (write ? aio_write64((struct aiocb64 *)c) : aio_read64((struct aiocb64 *)c))
                 : (write ? aio_write(c) : aio_read(c));
    aok[k] = r == 0;
    /* Done before the program goes on, returned now or later: what a
     * request moves must not depend on when glibc's thread ran it. */
    const struct aiocb *l[1] = {c};
    while (aok[k] && aio_error(c) == EINPROGRESS) aio_suspend(l, 1, NULL);
}
/* Wait for request k and return it (aio_return64 when wide). */
static void aio_end(int k, int wide) {
    if (!aok[k]) return;
    const struct aiocb *l[1] = {&acb[k]};
    while (aio_error(&acb[k]) == EINPROGRESS) aio_suspend(l, 1, NULL);
    sink += wide ? aio_return64((struct aiocb64 *)&acb[k]) : aio_return(&acb[k]);
    aok[k] = 0;
}
/* n requests (bit i of writes: a write) at off, off + size, ... by lio_listio. */
static void lio(int k0, int fd, int n, int writes, size_t size, off_t off, int wide) {
    struct aiocb *l[3];
    for (int i = 0; i < n; i++) {
        int k = (k0 + i) % NCB;
        memset(&acb[k], 0, sizeof acb[k]);
        acb[k].aio_fildes = fd; acb[k].aio_nbytes = size; acb[k].aio_offset = off + (off_t)(i * size);
        acb[k].aio_lio_opcode = (writes >> i) & 1 ? LIO_WRITE : LIO_READ;
        acb[k].aio_buf = (writes >> i) & 1 ? (void *)buf : (void *)abuf[k];
        l[i] = &acb[k];
    }
    int r = wide ? lio_listio64(LIO_WAIT, (struct aiocb64 **)l, n, NULL) : lio_listio(LIO_WAIT, l, n, NULL);
    for (int i = 0; i < n; i++) aok[(k0 + i) % NCB] = r == 0 || aio_error(l[i]) != EINPROGRESS;
}
int main(int argc, char **argv) {""", 1)


class Program(programs.Program):
    def __init__(self, seed):
        super().__init__(seed)
        self.next_cb = 0
        self.pending = []  # (cb, wide) submitted and not yet returned

    def more_fd_ops(self):
        return AIO_OPS

    def cb(self):
        k = self.next_cb % 64
        self.next_cb += 1
        # A slot still pending is returned before it is used again.
        for p in [p for p in self.pending if p[0] == k]:
            self.emit(f"aio_end({k}, {p[1]});")
            self.pending.remove(p)
        return k

    def more_fd_call(self, g, op, size, off):
        r = self.r
        size = min(size, 65536)
        wide = int(r.random() < 0.3)
        if op == "aio_return_all":
            order = list(self.pending)
            if r.random() < 0.5:
                order.reverse()
            for k, w in order:
                self.emit(f"aio_end({k}, {w});")
            self.pending = []
        elif op == "lio":
            n = r.randint(1, 3)
            ks = [self.cb() for _ in range(n)]
            k0 = ks[0]
            # lio's slots must be consecutive: fall back to one request.
            if ks != [(k0 + i) % 64 for i in range(n)]:
                n, ks = 1, [k0]
            self.emit(f"if ({g} >= 0) lio({k0}, {g}, {n}, {r.randrange(1 << n)}, {size}, {off}, {wide});")
            for k in ks:
                if r.random() < 0.6:
                    self.emit(f"aio_end({k}, {wide});")
                else:
                    self.pending.append((k, wide))
        else:
            k = self.cb()
            write = int(r.random() < 0.5)
            self.emit(f"if ({g} >= 0) aio_go({k}, {g}, {write}, {size}, {off}, {wide});")
            if op == "aio_now":
                self.emit(f"aio_end({k}, {wide});")
            else:
                self.pending.append((k, wide))


def gen(seed, nops=100):
    return AIO_PROLOGUE + "    " + Program(seed).body(nops) + "\n    return (int)(sink & 0);\n}\n"


if __name__ == "__main__":
    print(gen(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 100))
