/* Known I/O patterns for darshan-replay's round trips (ffi/tests/replay.rs).
 * usage: replay_patterns PATTERN DIR
 *   seq_fpp      each rank writes DIR/out.<rank>.dat: 16 sequential 1 MiB writes
 *   rand_shared  rank 0 writes DIR/shared.dat (8 MiB) before the others start;
 *                then every rank reads 256 random 4 KiB blocks of it
 *                (a fixed seed per rank: the same blocks every run)
 *   meta_storm   each rank creates 50 empty files DIR/meta.<rank>.<i>, then
 *                stats each, then removes each
 *   mixed        each rank writes DIR/table.<rank>.txt with 2000 fwrite()s of
 *                a 512-byte row and reads it back with 2000 fread()s (STDIO),
 *                and writes DIR/bin.<rank>.dat with 32 write()s of 64 KiB
 *                (POSIX) */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIB (1 << 20)

static void die(const char *what)
{
    perror(what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void seq_fpp(const char *dir, int rank)
{
    char path[4096], *buf = calloc(1, MIB);
    snprintf(path, sizeof path, "%s/out.%d.dat", dir, rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0 || !buf)
        die(path);
    for (int i = 0; i < 16; i++)
        if (write(fd, buf, MIB) != MIB)
            die("write");
    close(fd);
    free(buf);
}

static void rand_shared(const char *dir, int rank)
{
    char path[4096], block[4096];
    snprintf(path, sizeof path, "%s/shared.dat", dir);
    if (rank == 0) {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
        char *buf = calloc(1, 8 * MIB);
        if (fd < 0 || !buf || write(fd, buf, 8 * MIB) != 8 * MIB)
            die(path);
        close(fd);
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        die(path);
    unsigned seed = 12345u + (unsigned)rank;
    for (int i = 0; i < 256; i++) {
        off_t block_no = rand_r(&seed) % (8 * MIB / 4096);
        if (pread(fd, block, sizeof block, block_no * 4096) != sizeof block)
            die("pread");
    }
    close(fd);
}

static void meta_storm(const char *dir, int rank)
{
    char path[4096];
    struct stat st;
    for (int step = 0; step < 3; step++)
        for (int i = 0; i < 50; i++) {
            snprintf(path, sizeof path, "%s/meta.%d.%d", dir, rank, i);
            if (step == 0) {
                int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
                if (fd < 0)
                    die(path);
                close(fd);
            } else if (step == 1 && stat(path, &st) != 0)
                die(path);
            else if (step == 2 && unlink(path) != 0)
                die(path);
        }
}

static void mixed(const char *dir, int rank)
{
    char path[4096], row[512];
    memset(row, 'x', sizeof row);
    snprintf(path, sizeof path, "%s/table.%d.txt", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f)
        die(path);
    for (int i = 0; i < 2000; i++)
        if (fwrite(row, sizeof row, 1, f) != 1)
            die("fwrite");
    fclose(f);
    if (!(f = fopen(path, "r")))
        die(path);
    for (int i = 0; i < 2000; i++)
        if (fread(row, sizeof row, 1, f) != 1)
            die("fread");
    fclose(f);
    char *buf = calloc(1, 64 << 10);
    snprintf(path, sizeof path, "%s/bin.%d.dat", dir, rank);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    if (fd < 0 || !buf)
        die(path);
    for (int i = 0; i < 32; i++)
        if (write(fd, buf, 64 << 10) != 64 << 10)
            die("write");
    close(fd);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 3) {
        fprintf(stderr, "usage: replay_patterns PATTERN DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[1], "seq_fpp") == 0)
        seq_fpp(argv[2], rank);
    else if (strcmp(argv[1], "rand_shared") == 0)
        rand_shared(argv[2], rank);
    else if (strcmp(argv[1], "meta_storm") == 0)
        meta_storm(argv[2], rank);
    else if (strcmp(argv[1], "mixed") == 0)
        mixed(argv[2], rank);
    else
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
    return 0;
}
