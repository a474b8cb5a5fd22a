/* Three 8 KiB writes through a ring driven with syscall() (setup and
 * enter), as a program without liburing does. usage: uring_raw <file> */
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
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
    for (int k = 0; k < 3; k++) {
        unsigned t = *tail, i = t & mask;
        memset(&sqes[i], 0, sizeof sqes[i]);
        sqes[i].opcode = IORING_OP_WRITE; sqes[i].fd = fd; sqes[i].addr = (unsigned long)buf; sqes[i].len = 8192; sqes[i].off = 8192 * k; sqes[i].user_data = 100 + k;
        array[i] = i;
        __atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
        if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) { perror("enter"); return 3; }
        unsigned *chead = (unsigned *)(cq + p.cq_off.head);
        struct io_uring_cqe *cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (*chead & (p.cq_entries - 1));
        if (cqe->res != 8192) { fprintf(stderr, "res %d\n", cqe->res); return 4; }
        __atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
    }
    close(fd);
    return 0;
}
