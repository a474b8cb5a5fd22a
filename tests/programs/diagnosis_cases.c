/* One access pattern per diagnosis code, each the smallest program that
 * should make darshan-summary report it (ffi/tests/diagnosis.rs runs each
 * on 4 ranks and checks the code; docs/report.md lists them).
 * usage: diagnosis_cases CASE DIR [INPUT]
 * DIR is where files are made; INPUT an existing file (made by the test,
 * so that reading it is the only I/O on it) for the cases that read. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KIB 1024
#define MIB (1024 * 1024)

static int rank, nprocs;
static char *dir, *input;
static char buf[4 * MIB + 64];

static void die(const char *what)
{
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static char *path(const char *name, int per_rank)
{
    static char p[4096];
    if (per_rank)
        snprintf(p, sizeof p, "%s/%s.%d", dir, name, rank);
    else
        snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static int open_or_die(const char *p, int flags)
{
    int fd = open(p, flags, 0644);
    if (fd < 0)
        die(p);
    return fd;
}

static void pwrite_or_die(int fd, const char *b, size_t n, off_t off)
{
    if (pwrite(fd, b, n, off) != (ssize_t)n)
        die("pwrite");
}

static void pread_or_die(int fd, char *b, size_t n, off_t off)
{
    if (pread(fd, b, n, off) != (ssize_t)n)
        die("pread");
}

/* A file of n bytes made without its bytes being counted (the write
 * system call itself, not the interposed write): its data is then only
 * ever read, as an existing data set's is. */
static void fill_uncounted(const char *p, size_t n)
{
    int fd = open_or_die(p, O_CREAT | O_WRONLY | O_TRUNC);
    for (size_t done = 0; done < n;) {
        long k = syscall(SYS_write, fd, buf, n - done);
        if (k <= 0)
            die("write");
        done += (size_t)k;
    }
    close(fd);
}

/* n requests of size sz, written (or read) one after another from 0. */
static void stream(int fd, int write, size_t sz, int n, size_t mem_offset)
{
    for (int i = 0; i < n; i++) {
        if (write)
            pwrite_or_die(fd, buf + mem_offset, sz, (off_t)i * sz);
        else
            pread_or_die(fd, buf + mem_offset, sz, (off_t)i * sz);
    }
}

/* n requests of size sz at scattered offsets within span bytes. */
static void scattered(int fd, int write, size_t sz, int n, size_t span)
{
    unsigned long x = 12345 + rank;
    for (int i = 0; i < n; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        off_t off = (off_t)((x >> 20) % (span / sz)) * sz;
        if (write)
            pwrite_or_die(fd, buf, sz, off);
        else
            pread_or_die(fd, buf, sz, off);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 3) {
        fprintf(stderr, "usage: diagnosis_cases CASE DIR [INPUT]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *c = argv[1];
    dir = argv[2];
    input = argc > 3 ? argv[3] : NULL;
    memset(buf, 'x', sizeof buf);
    int fd;
    if (!strcmp(c, "stdio")) {
        /* S01: every byte through STDIO (2 MiB on rank 0). */
        if (rank == 0) {
            FILE *f = fopen(path("stdio.dat", 0), "w");
            for (int i = 0; i < 32; i++)
                fwrite(buf, 1, 64 * KIB, f);
            fclose(f);
        }
    } else if (!strcmp(c, "small-writes")) {
        /* M01, P01, P03, P06, P14: 2,000 writes of 2 KiB (4 MiB) per
         * rank, each to its own file, in order, through POSIX only. */
        fd = open_or_die(path("small-writes", 1), O_CREAT | O_WRONLY | O_TRUNC);
        stream(fd, 1, 2 * KIB, 2000, 0);
        close(fd);
    } else if (!strcmp(c, "small-reads")) {
        /* P02, P04, P05, P12: 2,000 reads of 2 KiB of the input, in order. */
        fd = open_or_die(input, O_RDONLY);
        stream(fd, 0, 2 * KIB, 2000, 0);
        close(fd);
    } else if (!strcmp(c, "misaligned")) {
        /* P07, P08: 64 KiB requests from an odd address in memory, at
         * offsets that are not multiples of the file's alignment. */
        fd = open_or_die(path("misaligned", 1), O_CREAT | O_WRONLY | O_TRUNC);
        for (int i = 0; i < 64; i++)
            pwrite_or_die(fd, buf + 1, 64 * KIB, (off_t)i * 64 * KIB + 100);
        close(fd);
    } else if (!strcmp(c, "reread")) {
        /* P09: the 4 MiB input read twice. */
        fd = open_or_die(input, O_RDONLY);
        stream(fd, 0, MIB, 4, 0);
        stream(fd, 0, MIB, 4, 0);
        close(fd);
    } else if (!strcmp(c, "rewrite")) {
        /* P10: the same 2 MiB written twice. */
        fd = open_or_die(path("rewrite", 1), O_CREAT | O_WRONLY | O_TRUNC);
        stream(fd, 1, MIB, 2, 0);
        stream(fd, 1, MIB, 2, 0);
        close(fd);
    } else if (!strcmp(c, "random-reads")) {
        /* P11: 2,000 reads of 4 KiB at scattered offsets of the input. */
        fd = open_or_die(input, O_RDONLY);
        scattered(fd, 0, 4 * KIB, 2000, 8 * MIB);
        close(fd);
    } else if (!strcmp(c, "random-writes")) {
        /* P13: 2,000 writes of 4 KiB at scattered offsets. */
        fd = open_or_die(path("random-writes", 1), O_CREAT | O_WRONLY | O_TRUNC);
        pwrite_or_die(fd, buf, 1, 8 * MIB - 1);
        scattered(fd, 1, 4 * KIB, 2000, 8 * MIB);
        close(fd);
    } else if (!strcmp(c, "shared-small")) {
        /* P15, P16, X04: every rank reads and writes 600 interleaved 2 KiB
         * pieces of one shared file through POSIX (no MPI-IO). */
        fd = open_or_die(path("shared-small", 0), O_CREAT | O_RDWR);
        for (int i = 0; i < 600; i++)
            pwrite_or_die(fd, buf, 2 * KIB, ((off_t)i * nprocs + rank) * 2 * KIB);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < 600; i++)
            pread_or_die(fd, buf, 2 * KIB, ((off_t)i * nprocs + rank) * 2 * KIB);
        close(fd);
    } else if (!strcmp(c, "metadata")) {
        /* P17, X02, X03: 3,000 opens and stats of one file per rank, and a
         * single small write. */
        fd = open_or_die(path("metadata", 1), O_CREAT | O_WRONLY | O_TRUNC);
        pwrite_or_die(fd, buf, 100, 0);
        close(fd);
        struct stat st;
        for (int i = 0; i < 3000; i++) {
            fd = open_or_die(path("metadata", 1), O_RDONLY);
            fstat(fd, &st);
            close(fd);
            stat(path("metadata", 1), &st);
        }
    } else if (!strcmp(c, "stragglers")) {
        /* P18, P19, P21: one shared file; rank 0 writes 8 MiB and syncs,
         * sixteen times over, the others 4 KiB each (with
         * DARSHAN_DISABLE_SHARED_REDUCTION for P21: the per-rank records
         * stay). Rank 0 must be the slowest rank by a margin no scheduling
         * noise crosses: with one 8 MiB pass (6 ms here) a loaded machine
         * once kept another rank's open waiting 8.5 ms, which made that
         * rank the slowest and took P18 away. */
        fd = open_or_die(path("stragglers", 0), O_CREAT | O_WRONLY);
        if (rank == 0) {
            for (int pass = 0; pass < 16; pass++) {
                stream(fd, 1, MIB, 8, 0);
                fsync(fd);
            }
        } else {
            pwrite_or_die(fd, buf, 4 * KIB, 8 * MIB + (off_t)rank * 4 * KIB);
        }
        close(fd);
    } else if (!strcmp(c, "read-imbalance")) {
        /* P22: every rank reads the shared input, rank 0 all 4 MiB, the
         * others 4 KiB (per-rank records kept, as for P21). */
        fd = open_or_die(input, O_RDONLY);
        if (rank == 0)
            stream(fd, 0, MIB, 4, 0);
        else
            pread_or_die(fd, buf, 4 * KIB, (off_t)rank * 4 * KIB);
        close(fd);
    } else if (!strcmp(c, "independent-mpiio")) {
        /* M02, M03: 300 independent MPI_File_write_at and read_at of 4 KiB
         * per rank (1,200 each in all), no collective call. */
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path("independent", 0), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh))
            die("MPI_File_open");
        for (int i = 0; i < 300; i++)
            MPI_File_write_at(fh, ((MPI_Offset)i * nprocs + rank) * 4 * KIB, buf, 4 * KIB, MPI_BYTE,
                              MPI_STATUS_IGNORE);
        for (int i = 0; i < 300; i++)
            MPI_File_read_at(fh, ((MPI_Offset)i * nprocs + rank) * 4 * KIB, buf, 4 * KIB, MPI_BYTE,
                             MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    } else if (!strcmp(c, "collective")) {
        /* M04-M07, M08-M11, N01: 8 blocks of 1 MiB per rank with
         * MPI_File_write_at_all, then read back with read_at_all. */
        MPI_File fh;
        if (MPI_File_open(MPI_COMM_WORLD, path("collective", 0), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                          &fh))
            die("MPI_File_open");
        for (int b = 0; b < 8; b++)
            MPI_File_write_at_all(fh, ((MPI_Offset)b * nprocs + rank) * MIB, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE);
        for (int b = 0; b < 8; b++)
            MPI_File_read_at_all(fh, ((MPI_Offset)b * nprocs + rank) * MIB, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE);
        MPI_File_close(&fh);
    } else if (!strcmp(c, "burst")) {
        /* J01: all data in one burst, then a second of nothing, then a
         * byte: the busiest time bin moves far more than the mean. */
        fd = open_or_die(path("burst", 1), O_CREAT | O_WRONLY | O_TRUNC);
        stream(fd, 1, MIB, 4, 0);
        usleep(1500000);
        pwrite_or_die(fd, buf, 1, 4 * MIB);
        close(fd);
    } else if (!strcmp(c, "serial")) {
        /* J02: 4 ranks, only rank 0 does I/O (8 MiB over a second). */
        if (rank == 0) {
            fd = open_or_die(path("serial", 0), O_CREAT | O_WRONLY | O_TRUNC);
            for (int i = 0; i < 8; i++) {
                pwrite_or_die(fd, buf, MIB, (off_t)i * MIB);
                usleep(125000);
            }
            close(fd);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(c, "fs-load")) {
        /* F01: 4,000 tiny writes per rank over just over a second: the FSU
         * model's per-operation cost dwarfs the run time. */
        fd = open_or_die(path("fs-load", 1), O_CREAT | O_WRONLY | O_TRUNC);
        stream(fd, 1, 16, 4000, 0);
        close(fd);
        usleep(1100000);
    } else if (!strcmp(c, "lustre")) {
        /* L01-L03 on the FUSE file system that serves Lustre layouts:
         * wide.dat (2 MiB shared, 4 KiB requests, striped 1 MiB x 1) and
         * tiny.dat (100 B on rank 0, striped over 4). */
        fd = open_or_die(path("wide.dat", 0), O_CREAT | O_WRONLY);
        for (int i = 0; i < 128; i++)
            pwrite_or_die(fd, buf, 4 * KIB, ((off_t)i * nprocs + rank) * 4 * KIB);
        close(fd);
        if (rank == 0) {
            fd = open_or_die(path("tiny.dat", 0), O_CREAT | O_WRONLY | O_TRUNC);
            pwrite_or_die(fd, buf, 100, 0);
            close(fd);
        }
    } else if (!strcmp(c, "epochs")) {
        /* E01: each rank's data set, 4 files of 1 MiB, read three times
         * over (three epochs). */
        char name[64];
        for (int f = 0; f < 4; f++) {
            snprintf(name, sizeof name, "epoch%d", f);
            fill_uncounted(path(name, 1), MIB);
        }
        for (int pass = 0; pass < 3; pass++)
            for (int f = 0; f < 4; f++) {
                snprintf(name, sizeof name, "epoch%d", f);
                fd = open_or_die(path(name, 1), O_RDONLY);
                stream(fd, 0, MIB, 1, 0);
                close(fd);
            }
    } else if (!strcmp(c, "software")) {
        /* N02: a Python environment's modules, 30 files of 4 KiB under
         * lib/python3.11/site-packages, each opened and read once. */
        char p[4096];
        const char *parts[] = {"", "/lib", "/lib/python3.11", "/lib/python3.11/site-packages"};
        for (int k = 0; k < 4; k++) {
            snprintf(p, sizeof p, "%s/env.%d%s", dir, rank, parts[k]);
            mkdir(p, 0755);
        }
        for (int k = 0; k < 30; k++) {
            snprintf(p, sizeof p, "%s/env.%d/lib/python3.11/site-packages/mod%d.py", dir, rank, k);
            fill_uncounted(p, 4 * KIB);
            fd = open_or_die(p, O_RDONLY);
            stream(fd, 0, 4 * KIB, 1, 0);
            close(fd);
        }
    } else {
        fprintf(stderr, "unknown case %s\n", c);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Finalize();
    return 0;
}
