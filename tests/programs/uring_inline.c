/* As raw.c, but entering the kernel with an inline syscall instruction,
 * as fio does on x86-64: the runtime sees the set-up, the mappings and
 * the munmap/close, never the submissions. usage: uring_inline <file> <n> */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
static long enter(int fd, unsigned n, unsigned min, unsigned flags)
{
    long ret;
    register long r10 __asm__("r10") = flags;
    register long r8 __asm__("r8") = 0;
    register long r9 __asm__("r9") = 0;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(426L), "D"((long)fd), "S"((long)n), "d"((long)min), "r"(r10), "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return ret;
}
int main(int argc, char **argv)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    int ring = syscall(__NR_io_uring_setup, 4, &p);
    if (ring < 0) { perror("setup"); return 1; }
    size_t sqsz = p.sq_off.array + p.sq_entries * 4, cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    char *sq = mmap(0, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
    char *cq = mmap(0, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = mmap(0, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) { perror("mmap"); return 2; }
    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    static char buf[8192];
    unsigned *tail = (unsigned *)(sq + p.sq_off.tail), *array = (unsigned *)(sq + p.sq_off.array), mask = *(unsigned *)(sq + p.sq_off.ring_mask);
    int n = argc > 2 ? atoi(argv[2]) : 3;
    for (int k = 0; k < n; k++) {
        unsigned t = *tail, i = t & mask;
        memset(&sqes[i], 0, sizeof sqes[i]);
        sqes[i].opcode = IORING_OP_WRITE; sqes[i].fd = fd; sqes[i].addr = (unsigned long)buf; sqes[i].len = 8192; sqes[i].off = 8192 * k; sqes[i].user_data = 100 + k;
        array[i] = i;
        __atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
        if (enter(ring, 1, 1, IORING_ENTER_GETEVENTS) < 0) { fprintf(stderr, "enter\n"); return 3; }
        unsigned *chead = (unsigned *)(cq + p.cq_off.head);
        struct io_uring_cqe *cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (*chead & (p.cq_entries - 1));
        if (cqe->res != 8192) { fprintf(stderr, "res %d\n", cqe->res); return 4; }
        __atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
    }
    close(fd);
    munmap(sq, sqsz); munmap(cq, cqsz); munmap(sqes, p.sq_entries * sizeof *sqes);
    close(ring);
    return 0;
}
