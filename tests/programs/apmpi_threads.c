/* MPI calls from several threads at once (MPI_THREAD_MULTIPLE), for
 * AutoPerf's MPI profile: each of THREADS threads on every rank makes
 * argv[1] rounds of one MPI_Allreduce of one int on a communicator of its
 * own, one MPI_Iprobe without a message and one MPI_Test of a null
 * request. Counted exactly, every rank's record holds THREADS x rounds of
 * each (the per-thread communicators' MPI_Comm_dup calls are not among the
 * operations counted). Prints "provided=N" when the MPI cannot give
 * MPI_THREAD_MULTIPLE and stops (exit 0): the test then says so. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

static int rounds;
static MPI_Comm comms[THREADS];

static void *work(void *arg) {
    MPI_Comm comm = comms[(long)arg];
    for (int i = 0; i < rounds; i++) {
        int in = i, out = 0, flag = 0;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm);
        MPI_Iprobe(MPI_ANY_SOURCE, 99, comm, &flag, MPI_STATUS_IGNORE);
        MPI_Request req = MPI_REQUEST_NULL;
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int provided = 0;
    rounds = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("provided=%d\n", provided);
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, work, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
