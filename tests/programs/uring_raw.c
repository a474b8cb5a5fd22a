/* N 8 KiB writes through a ring driven without liburing: set up with
 * syscall(), mapped with mmap, entered either with syscall() or, with
 * "inline" (x86-64), with the program's own syscall instruction, as fio
 * does: then the runtime sees the set-up, the mappings and the
 * munmap/close, never the submissions. With "keep", the ring is left
 * mapped and open when the program ends, as many programs leave theirs.
 * usage: uring_raw <file> <n> [inline] [keep] */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int inline_enter;

static long enter(int fd, unsigned n, unsigned min, unsigned flags)
{
#if defined(__x86_64__)
    if (inline_enter) {
        long ret;
        register long r10 __asm__("r10") = flags;
        register long r8 __asm__("r8") = 0;
        register long r9 __asm__("r9") = 0;
        __asm__ volatile("syscall"
                         : "=a"(ret)
                         : "a"((long)__NR_io_uring_enter), "D"((long)fd), "S"((long)n), "d"((long)min), "r"(r10),
                           "r"(r8), "r"(r9)
                         : "rcx", "r11", "memory");
        return ret;
    }
#endif
    return syscall(__NR_io_uring_enter, fd, n, min, flags, NULL, 0);
}

int main(int argc, char **argv)
{
    if (argc < 3) return 1;
    int n = atoi(argv[2]);
    int keep = 0;
    for (int a = 3; a < argc; a++) {
        inline_enter |= strcmp(argv[a], "inline") == 0;
        keep |= strcmp(argv[a], "keep") == 0;
    }
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    int ring = syscall(__NR_io_uring_setup, 4, &p);
    if (ring < 0) { perror("setup"); return 1; }
    size_t sqsz = p.sq_off.array + p.sq_entries * 4, cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    size_t sqesz = p.sq_entries * sizeof(struct io_uring_sqe);
    char *sq = mmap(0, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
    char *cq = mmap(0, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = mmap(0, sqesz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) { perror("mmap"); return 2; }
    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    static char buf[8192];
    unsigned *tail = (unsigned *)(sq + p.sq_off.tail), *array = (unsigned *)(sq + p.sq_off.array);
    unsigned mask = *(unsigned *)(sq + p.sq_off.ring_mask);
    for (int k = 0; k < n; k++) {
        unsigned t = *tail, i = t & mask;
        memset(&sqes[i], 0, sizeof sqes[i]);
        sqes[i].opcode = IORING_OP_WRITE;
        sqes[i].fd = fd;
        sqes[i].addr = (unsigned long)buf;
        sqes[i].len = sizeof buf;
        sqes[i].off = (unsigned long long)k * sizeof buf;
        sqes[i].user_data = 100 + k;
        array[i] = i;
        __atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
        if (enter(ring, 1, 1, IORING_ENTER_GETEVENTS) < 0) { perror("enter"); return 3; }
        unsigned *chead = (unsigned *)(cq + p.cq_off.head);
        struct io_uring_cqe *cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (*chead & (p.cq_entries - 1));
        if (cqe->res != (int)sizeof buf) { fprintf(stderr, "res %d\n", cqe->res); return 4; }
        __atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
    }
    close(fd);
    if (keep) return 0;
    munmap(sq, sqsz);
    munmap(cq, cqsz);
    munmap(sqes, sqesz);
    close(ring);
    return 0;
}
