/* An MPI job whose MPI calls are known, for the APMPI module (AutoPerf's
 * MPI profile). Every rank makes the same calls, `rounds` times
 * (argv[1], default 1), on MPI_COMM_WORLD of any size >= 2; each rank r
 * talks to its neighbours (r + 1) % n and (r + n - 1) % n:
 *
 *   point-to-point, per round:
 *     MPI_Send / MPI_Recv      100 ints (400 bytes) to the next rank, from
 *                              the previous one (even ranks send first)
 *     MPI_Ssend / MPI_Recv     the same, 1 int (4 bytes)
 *     MPI_Isend + MPI_Irecv    2,048 doubles (16,384 bytes) each way, then
 *                              MPI_Waitall of the two
 *     MPI_Sendrecv             300 chars out, 300 chars in (600 bytes)
 *     MPI_Sendrecv_replace     70,000 ints (280,000 bytes out and in)
 *     MPI_Probe + MPI_Recv     10 ints, the receive's status given
 *     MPI_Wait                 on the request an MPI_Isend of 5 ints gave
 *                              (received by an MPI_Recv), then MPI_Test
 *                              on the request, now MPI_REQUEST_NULL
 *   collectives, per round:
 *     MPI_Barrier x 2, MPI_Bcast 1,000 doubles from rank 0,
 *     MPI_Reduce 3 ints to rank 1, MPI_Allreduce 1 int and 40,000 ints
 *     (in place), MPI_Allgather 2 ints, MPI_Allgatherv 3 ints,
 *     MPI_Gather 4 ints to rank 0, MPI_Gatherv 5 ints to rank 0,
 *     MPI_Scatter 6 ints from rank 0, MPI_Scatterv 7 ints from rank 0,
 *     MPI_Alltoall 8 ints, MPI_Alltoallv 9 ints, MPI_Alltoallw 10 ints,
 *     MPI_Reduce_scatter 11 ints per rank, MPI_Scan 12 ints,
 *     MPI_Exscan 13 ints
 *   non-blocking collectives, per round (each then MPI_Wait):
 *     MPI_Ibarrier, MPI_Ibcast 20 ints, MPI_Iallreduce 21 ints,
 *     MPI_Iallgather 22 ints
 *   one-sided, per round, on a window of 64 ints per rank:
 *     MPI_Win_fence, MPI_Put 4 ints to the next rank, MPI_Win_fence,
 *     MPI_Get 3 ints from the next rank, MPI_Accumulate 2 ints,
 *     MPI_Win_fence; MPI_Win_lock, MPI_Fetch_and_op, MPI_Win_flush,
 *     MPI_Compare_and_swap, MPI_Win_unlock
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs, next, prev;

static void p2p(void) {
    static int a[100], b[100], big[70000], small[10], five[5];
    static double out[2048], in[2048];
    static char s[300], r[300];
    int one = rank, got = 0;
    MPI_Status st;
    MPI_Request rq[2];
    if (rank % 2 == 0) {
        MPI_Send(a, 100, MPI_INT, next, 1, MPI_COMM_WORLD);
        MPI_Recv(b, 100, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
        MPI_Ssend(&one, 1, MPI_INT, next, 2, MPI_COMM_WORLD);
        MPI_Recv(&got, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(b, 100, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
        MPI_Send(a, 100, MPI_INT, next, 1, MPI_COMM_WORLD);
        MPI_Recv(&got, 1, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ssend(&one, 1, MPI_INT, next, 2, MPI_COMM_WORLD);
    }
    MPI_Irecv(in, 2048, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(out, 2048, MPI_DOUBLE, next, 3, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(s, 300, MPI_CHAR, next, 4, r, 300, MPI_CHAR, prev, 4, MPI_COMM_WORLD, &st);
    MPI_Sendrecv_replace(big, 70000, MPI_INT, next, 5, prev, 5, MPI_COMM_WORLD, &st);
    MPI_Isend(small, 10, MPI_INT, next, 6, MPI_COMM_WORLD, &rq[0]);
    MPI_Probe(prev, 6, MPI_COMM_WORLD, &st);
    MPI_Recv(a, 10, MPI_INT, prev, 6, MPI_COMM_WORLD, &st);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Isend(five, 5, MPI_INT, next, 7, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv(b, 5, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    int flag = 0;
    MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
}

static void collectives(void) {
    static double d[1000];
    static int big[40000];
    int *send = calloc(64 * (size_t)nprocs, sizeof(int));
    int *recv = calloc(64 * (size_t)nprocs, sizeof(int));
    int *counts = malloc(sizeof(int) * (size_t)nprocs);
    int *displs = malloc(sizeof(int) * (size_t)nprocs);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)nprocs);
    int x = 1, y = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(d, 1000, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Reduce(send, recv, 3, MPI_INT, MPI_SUM, 1, MPI_COMM_WORLD);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, big, 40000, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(send, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < nprocs; i++) counts[i] = 3, displs[i] = 3 * i;
    MPI_Allgatherv(send, 3, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(send, 4, MPI_INT, recv, 4, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < nprocs; i++) counts[i] = 5, displs[i] = 5 * i;
    MPI_Gatherv(send, 5, MPI_INT, recv, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(send, 6, MPI_INT, recv, 6, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < nprocs; i++) counts[i] = 7, displs[i] = 7 * i;
    MPI_Scatterv(send, counts, displs, MPI_INT, recv, 7, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Alltoall(send, 8, MPI_INT, recv, 8, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < nprocs; i++) counts[i] = 9, displs[i] = 9 * i;
    MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < nprocs; i++) counts[i] = 10, displs[i] = 40 * i, types[i] = MPI_INT;
    MPI_Alltoallw(send, counts, displs, types, recv, counts, displs, types, MPI_COMM_WORLD);
    for (int i = 0; i < nprocs; i++) counts[i] = 11;
    MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(send, recv, 12, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(send, recv, 13, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(send), free(recv), free(counts), free(displs), free(types);
}

static void nonblocking_collectives(void) {
    static int a[64], b[64];
    MPI_Request rq;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Ibcast(a, 20, MPI_INT, 0, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Iallreduce(a, b, 21, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int *all = calloc(22 * (size_t)nprocs, sizeof(int));
    MPI_Iallgather(a, 22, MPI_INT, all, 22, MPI_INT, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    free(all);
}

static void one_sided(MPI_Win win) {
    int src[4] = {1, 2, 3, 4}, dst[4], one = 1, old = 0, cmp = 0, res = 0;
    MPI_Win_fence(0, win);
    MPI_Put(src, 4, MPI_INT, next, 0, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(dst, 3, MPI_INT, next, 8, 3, MPI_INT, win);
    MPI_Accumulate(src, 2, MPI_INT, next, 16, 2, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    MPI_Fetch_and_op(&one, &old, MPI_INT, next, 32, MPI_SUM, win);
    MPI_Win_flush(next, win);
    MPI_Compare_and_swap(&one, &cmp, &res, MPI_INT, next, 40, win);
    MPI_Win_unlock(next, win);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    next = (rank + 1) % nprocs;
    prev = (rank + nprocs - 1) % nprocs;
    int *mem;
    MPI_Win win;
    MPI_Alloc_mem(64 * sizeof(int), MPI_INFO_NULL, &mem);
    memset(mem, 0, 64 * sizeof(int));
    MPI_Win_create(mem, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int k = 0; k < rounds; k++) {
        p2p();
        collectives();
        nonblocking_collectives();
        one_sided(win);
    }
    MPI_Win_free(&win);
    MPI_Free_mem(mem);
    MPI_Finalize();
    return 0;
}
