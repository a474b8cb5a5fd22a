/* Exercises the less common POSIX entry points with known counts.
 * Compiled plain, with -O2 -D_FORTIFY_SOURCE=2 and with
 * -D_FILE_OFFSET_BITS=64; the expected counters are the same.
 * usage: api_mix <dir> */
#define _GNU_SOURCE
#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHECK(x) do { if (!(x)) { fprintf(stderr, "failed: %s (line %d)\n", #x, __LINE__); exit(1); } } while (0)

int main(int argc, char **argv)
{
    const char *dir = argv[1];
    char a[4096], b[4096], buf[4096];
    memset(buf, 'z', sizeof buf);
    snprintf(a, sizeof a, "%s/a.dat", dir);
    snprintf(b, sizeof b, "%s/b.dat", dir);

    /* a.dat: open(O_CREAT 0640) + write 3x1000 + lseek + read 2x500 +
     * dup + write via dup + fcntl(F_DUPFD) + close x3 + fsync + fdatasync */
    int fd = open(a, O_CREAT | O_TRUNC | O_RDWR, 0640);
    CHECK(fd >= 0);
    for (int i = 0; i < 3; i++) CHECK(write(fd, buf, 1000) == 1000);
    CHECK(fsync(fd) == 0);
    CHECK(fdatasync(fd) == 0);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    CHECK(read(fd, buf, 500) == 500);
    CHECK(read(fd, buf, 500) == 500);
    int d1 = dup(fd);
    CHECK(d1 >= 0);
    CHECK(write(d1, buf, 10) == 10);
    int d2 = fcntl(fd, F_DUPFD, 100);
    CHECK(d2 >= 100);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size == 3000);
    void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(m != MAP_FAILED);
    munmap(m, 4096);
    close(d2);
    close(d1);
    close(fd);

    /* b.dat: creat + writev (2 x 100) + pwritev (1 x 50 at 1000) +
     * preadv (2 x 25 at 0) + aio_write 64 at 4096 + rename to c.dat */
    fd = creat(b, 0600);
    CHECK(fd >= 0);
    struct iovec iov[2] = {{buf, 100}, {buf + 100, 100}};
    CHECK(writev(fd, iov, 2) == 200);
    struct iovec one = {buf, 50};
    CHECK(pwritev(fd, &one, 1, 1000) == 50);
    close(fd);
    fd = open(b, O_RDWR);
    CHECK(fd >= 0);
    struct iovec two[2] = {{buf, 25}, {buf + 25, 25}};
    CHECK(preadv(fd, two, 2, 0) == 50);
    struct aiocb cb;
    memset(&cb, 0, sizeof cb);
    cb.aio_fildes = fd;
    cb.aio_buf = buf;
    cb.aio_nbytes = 64;
    cb.aio_offset = 4096;
    CHECK(aio_write(&cb) == 0);
    const struct aiocb *list[1] = {&cb};
    while (aio_error(&cb) == EINPROGRESS) aio_suspend(list, 1, NULL);
    CHECK(aio_return(&cb) == 64);
    close(fd);
    char c[4096];
    snprintf(c, sizeof c, "%s/c.dat", dir);
    CHECK(rename(b, c) == 0);

    /* d.dat through a directory fd: openat relative to dirfd. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    CHECK(dfd >= 0);
    fd = openat(dfd, "d.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, buf, 7) == 7);
    close(fd);
    close(dfd);

    /* e.dat: STDIO with fileno and fdopen. */
    char e[4096];
    snprintf(e, sizeof e, "%s/e.dat", dir);
    FILE *f = fopen(e, "w+");
    CHECK(f != NULL);
    CHECK(fwrite(buf, 1, 300, f) == 300);
    CHECK(fputs("hello\n", f) >= 0);
    CHECK(fputc('x', f) == 'x');
    CHECK(fflush(f) == 0);
    int efd = fileno(f);
    CHECK(efd >= 0);
    CHECK(fileno(f) == efd); /* a second fileno: the record exists already */
    rewind(f);
    CHECK(fread(buf, 1, 100, f) == 100);
    int ch = fgetc(f);
    CHECK(ch != EOF);
    CHECK(ungetc(ch, f) == ch);
    CHECK(fgetc(f) == ch);
    fclose(f);
    fd = open(e, O_RDONLY);
    FILE *g = fdopen(fd, "r");
    CHECK(g != NULL);
    CHECK(fgets(buf, 50, g) != NULL);
    fclose(g);

    /* mkstemp in dir */
    char t[4096];
    snprintf(t, sizeof t, "%s/tmpXXXXXX", dir);
    fd = mkstemp(t);
    CHECK(fd >= 0);
    CHECK(write(fd, "q", 1) == 1);
    close(fd);
    unlink(t);

    /* stats by path: stat (glibc >= 2.33 symbol), lstat; not a regular
     * file: the directory (not counted). */
    CHECK(stat(c, &st) == 0 && st.st_size == 4160);
    CHECK(lstat(c, &st) == 0);
    CHECK(stat(dir, &st) == 0);
    printf("api_mix done\n");
    return 0;
}
