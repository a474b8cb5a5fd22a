/* aio requests many at a time, as Open MPI's OMPIO makes them (up to
 * thousands in flight for one collective write): every request completed
 * and returned is one read or write, however many were in flight.
 *   a.dat: 300 aio_writes of 100 bytes at 100 * i, all in flight, then
 *          returned in submission order; 300 reads of the same by one
 *          lio_listio (LIO_WAIT), returned last first.
 *   b.dat: 100 aio_writes completed and never returned (leaked: a program
 *          that only asks aio_error), then 200 written and returned one
 *          at a time, then one aiocb submitted twice (its first request
 *          not returned) and returned once.
 * Expected: a.dat 300 writes, 300 reads, 30,000 bytes each way;
 *           b.dat 201 writes, 20,100 bytes.
 * usage: aio_many <dir> */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 300
#define CHECK(x) do { if (!(x)) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

static struct aiocb cbs[N];
static char buf[N][100];

static void wait_for(struct aiocb *cb)
{
    const struct aiocb *list[1] = {cb};
    while (aio_error(cb) == EINPROGRESS) aio_suspend(list, 1, NULL);
    CHECK(aio_error(cb) == 0);
}

static void prepare(struct aiocb *cb, int fd, int i, int op)
{
    memset(cb, 0, sizeof *cb);
    cb->aio_fildes = fd;
    cb->aio_buf = buf[i % N];
    cb->aio_nbytes = 100;
    cb->aio_offset = (off_t)100 * i;
    cb->aio_lio_opcode = op;
}

int main(int argc, char **argv)
{
    char path[4096];
    CHECK(argc == 2);
    memset(buf, 'a', sizeof buf);
    snprintf(path, sizeof path, "%s/a.dat", argv[1]);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    CHECK(fd >= 0);
    for (int i = 0; i < N; i++) {
        prepare(&cbs[i], fd, i, LIO_WRITE);
        CHECK(aio_write(&cbs[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        wait_for(&cbs[i]);
        CHECK(aio_return(&cbs[i]) == 100);
    }
    struct aiocb *list[N];
    for (int i = 0; i < N; i++) {
        prepare(&cbs[i], fd, i, LIO_READ);
        list[i] = &cbs[i];
    }
    CHECK(lio_listio(LIO_WAIT, list, N, NULL) == 0);
    for (int i = N - 1; i >= 0; i--) CHECK(aio_return(&cbs[i]) == 100);
    CHECK(close(fd) == 0);

    snprintf(path, sizeof path, "%s/b.dat", argv[1]);
    fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    CHECK(fd >= 0);
    for (int i = 0; i < 100; i++) {
        prepare(&cbs[i], fd, i, LIO_WRITE);
        CHECK(aio_write(&cbs[i]) == 0);
    }
    for (int i = 0; i < 100; i++) wait_for(&cbs[i]);
    for (int i = 100; i < 300; i++) {
        struct aiocb cb;
        prepare(&cb, fd, i, LIO_WRITE);
        CHECK(aio_write(&cb) == 0);
        wait_for(&cb);
        CHECK(aio_return(&cb) == 100);
    }
    struct aiocb again;
    prepare(&again, fd, 300, LIO_WRITE);
    CHECK(aio_write(&again) == 0);
    wait_for(&again);
    CHECK(aio_write(&again) == 0);
    wait_for(&again);
    CHECK(aio_return(&again) == 100);
    CHECK(close(fd) == 0);
    return 0;
}
