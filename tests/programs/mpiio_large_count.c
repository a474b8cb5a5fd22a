/* Every MPI-IO data call that has an MPI-4 large-count form, once each,
 * on one shared file: with no second argument through the 28 *_c forms
 * (MPI_Count counts), with "plain" through the int forms. Each writes (or
 * reads) 1,000 bytes at its own offset. The two runs' MPI-IO counters
 * must be the same (spec extensions.md section 2: "every counter is
 * updated as for the plain call"). With "toolarge" it only calls
 * MPI_File_write_at_c with a count past INT_MAX on a library that has no
 * large-count calls, and prints the error class it got. With "repeat K"
 * each rank writes its 1,000 bytes through MPI_File_write_at_c K times.
 * usage: mpiio_large_count DIR [plain|toolarge|repeat K]
 *
 * An MPI-3 library (Open MPI 4) has no *_c calls. They are declared weak
 * here, as mpi4py declares them to ask whether the library has them: the
 * library preloaded exports them all, so they are non-null under it. */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000
#define CNT MPI_Count

#if MPI_VERSION < 4
#define W __attribute__((weak))
#define RW(op) int MPI_File_##op##_c(MPI_File, void *, CNT, MPI_Datatype, MPI_Status *) W; \
    int MPI_File_##op##_all_c(MPI_File, void *, CNT, MPI_Datatype, MPI_Status *) W; \
    int MPI_File_##op##_at_c(MPI_File, MPI_Offset, void *, CNT, MPI_Datatype, MPI_Status *) W; \
    int MPI_File_##op##_at_all_c(MPI_File, MPI_Offset, void *, CNT, MPI_Datatype, MPI_Status *) W; \
    int MPI_File_##op##_shared_c(MPI_File, void *, CNT, MPI_Datatype, MPI_Status *) W; \
    int MPI_File_##op##_ordered_c(MPI_File, void *, CNT, MPI_Datatype, MPI_Status *) W; \
    int MPI_File_i##op##_c(MPI_File, void *, CNT, MPI_Datatype, MPI_Request *) W; \
    int MPI_File_i##op##_all_c(MPI_File, void *, CNT, MPI_Datatype, MPI_Request *) W; \
    int MPI_File_i##op##_at_c(MPI_File, MPI_Offset, void *, CNT, MPI_Datatype, MPI_Request *) W; \
    int MPI_File_i##op##_at_all_c(MPI_File, MPI_Offset, void *, CNT, MPI_Datatype, MPI_Request *) W; \
    int MPI_File_i##op##_shared_c(MPI_File, void *, CNT, MPI_Datatype, MPI_Request *) W; \
    int MPI_File_##op##_all_begin_c(MPI_File, void *, CNT, MPI_Datatype) W; \
    int MPI_File_##op##_at_all_begin_c(MPI_File, MPI_Offset, void *, CNT, MPI_Datatype) W; \
    int MPI_File_##op##_ordered_begin_c(MPI_File, void *, CNT, MPI_Datatype) W;
RW(read)
RW(write)
#endif

/* A count past INT_MAX through MPI_File_write_at_c where the library has
 * no large-count calls: the error class, printed ("toolarge"). */
static int too_large(MPI_File fh, char *buf)
{
#if MPI_VERSION >= 4
    (void)fh, (void)buf;
    return printf("the library has large-count calls\n"), 1;
#else
    MPI_Status st;
    int cls = -1;
    if (!MPI_File_write_at_c)
        return printf("no MPI_File_write_at_c\n"), 1;
    int err = MPI_File_write_at_c(fh, 0, buf, (CNT)INT_MAX + 1, MPI_BYTE, &st);
    MPI_Error_class(err, &cls);
    printf("error class %s\n", cls == MPI_ERR_ARG ? "MPI_ERR_ARG" : err == MPI_SUCCESS ? "none" : "other");
    return 0;
#endif
}

int main(int argc, char **argv)
{
    static char buf[N];
    int rank, nprocs, plain = argc > 2 && !strcmp(argv[2], "plain");
    int toolarge = argc > 2 && !strcmp(argv[2], "toolarge");
    int repeat = argc > 3 && !strcmp(argv[2], "repeat") ? atoi(argv[3]) : 0;
    char path[4096];
    MPI_File fh;
    MPI_Request rq;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    snprintf(path, sizeof path, "%s/lc.dat", argv[1]);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    /* Slot k of this rank: offset (k * nprocs + rank) * N. */
#define AT(k) ((MPI_Offset)((k) * nprocs + rank) * N)
#define SEEK(k) MPI_File_seek(fh, AT(k), MPI_SEEK_SET)
    if (repeat) {
        for (int i = 0; i < repeat; i++)
            MPI_File_write_at_c(fh, AT(0), buf, N, MPI_BYTE, &st);
        MPI_File_close(&fh);
        MPI_Finalize();
        return 0;
    }
    if (toolarge) {
        MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
        int r = rank == 0 ? too_large(fh, buf) : 0;
        MPI_File_close(&fh);
        MPI_Finalize();
        return r;
    }
    for (int pass = 0; pass < 2; pass++) {
        int w = pass == 0;
        int k = 0;
        if (plain) {
            SEEK(k++); w ? MPI_File_write(fh, buf, N, MPI_BYTE, &st) : MPI_File_read(fh, buf, N, MPI_BYTE, &st);
            SEEK(k++); w ? MPI_File_write_all(fh, buf, N, MPI_BYTE, &st) : MPI_File_read_all(fh, buf, N, MPI_BYTE, &st);
            w ? MPI_File_write_at(fh, AT(k), buf, N, MPI_BYTE, &st) : MPI_File_read_at(fh, AT(k), buf, N, MPI_BYTE, &st); k++;
            w ? MPI_File_write_at_all(fh, AT(k), buf, N, MPI_BYTE, &st) : MPI_File_read_at_all(fh, AT(k), buf, N, MPI_BYTE, &st); k++;
            w ? MPI_File_write_shared(fh, buf, N, MPI_BYTE, &st) : MPI_File_read_shared(fh, buf, N, MPI_BYTE, &st);
            w ? MPI_File_write_ordered(fh, buf, N, MPI_BYTE, &st) : MPI_File_read_ordered(fh, buf, N, MPI_BYTE, &st);
            SEEK(k++); w ? MPI_File_iwrite(fh, buf, N, MPI_BYTE, &rq) : MPI_File_iread(fh, buf, N, MPI_BYTE, &rq); MPI_Wait(&rq, &st);
            SEEK(k++); w ? MPI_File_iwrite_all(fh, buf, N, MPI_BYTE, &rq) : MPI_File_iread_all(fh, buf, N, MPI_BYTE, &rq); MPI_Wait(&rq, &st);
            w ? MPI_File_iwrite_at(fh, AT(k), buf, N, MPI_BYTE, &rq) : MPI_File_iread_at(fh, AT(k), buf, N, MPI_BYTE, &rq); MPI_Wait(&rq, &st); k++;
            w ? MPI_File_iwrite_at_all(fh, AT(k), buf, N, MPI_BYTE, &rq) : MPI_File_iread_at_all(fh, AT(k), buf, N, MPI_BYTE, &rq); MPI_Wait(&rq, &st); k++;
            w ? MPI_File_iwrite_shared(fh, buf, N, MPI_BYTE, &rq) : MPI_File_iread_shared(fh, buf, N, MPI_BYTE, &rq); MPI_Wait(&rq, &st);
            SEEK(k++);
            if (w) { MPI_File_write_all_begin(fh, buf, N, MPI_BYTE); MPI_File_write_all_end(fh, buf, &st); }
            else { MPI_File_read_all_begin(fh, buf, N, MPI_BYTE); MPI_File_read_all_end(fh, buf, &st); }
            if (w) { MPI_File_write_at_all_begin(fh, AT(k), buf, N, MPI_BYTE); MPI_File_write_at_all_end(fh, buf, &st); }
            else { MPI_File_read_at_all_begin(fh, AT(k), buf, N, MPI_BYTE); MPI_File_read_at_all_end(fh, buf, &st); }
            k++;
            if (w) { MPI_File_write_ordered_begin(fh, buf, N, MPI_BYTE); MPI_File_write_ordered_end(fh, buf, &st); }
            else { MPI_File_read_ordered_begin(fh, buf, N, MPI_BYTE); MPI_File_read_ordered_end(fh, buf, &st); }
        } else {
            CNT n = N;
            SEEK(k++); w ? MPI_File_write_c(fh, buf, n, MPI_BYTE, &st) : MPI_File_read_c(fh, buf, n, MPI_BYTE, &st);
            SEEK(k++); w ? MPI_File_write_all_c(fh, buf, n, MPI_BYTE, &st) : MPI_File_read_all_c(fh, buf, n, MPI_BYTE, &st);
            w ? MPI_File_write_at_c(fh, AT(k), buf, n, MPI_BYTE, &st) : MPI_File_read_at_c(fh, AT(k), buf, n, MPI_BYTE, &st); k++;
            w ? MPI_File_write_at_all_c(fh, AT(k), buf, n, MPI_BYTE, &st) : MPI_File_read_at_all_c(fh, AT(k), buf, n, MPI_BYTE, &st); k++;
            w ? MPI_File_write_shared_c(fh, buf, n, MPI_BYTE, &st) : MPI_File_read_shared_c(fh, buf, n, MPI_BYTE, &st);
            w ? MPI_File_write_ordered_c(fh, buf, n, MPI_BYTE, &st) : MPI_File_read_ordered_c(fh, buf, n, MPI_BYTE, &st);
            SEEK(k++); w ? MPI_File_iwrite_c(fh, buf, n, MPI_BYTE, &rq) : MPI_File_iread_c(fh, buf, n, MPI_BYTE, &rq); MPI_Wait(&rq, &st);
            SEEK(k++); w ? MPI_File_iwrite_all_c(fh, buf, n, MPI_BYTE, &rq) : MPI_File_iread_all_c(fh, buf, n, MPI_BYTE, &rq); MPI_Wait(&rq, &st);
            w ? MPI_File_iwrite_at_c(fh, AT(k), buf, n, MPI_BYTE, &rq) : MPI_File_iread_at_c(fh, AT(k), buf, n, MPI_BYTE, &rq); MPI_Wait(&rq, &st); k++;
            w ? MPI_File_iwrite_at_all_c(fh, AT(k), buf, n, MPI_BYTE, &rq) : MPI_File_iread_at_all_c(fh, AT(k), buf, n, MPI_BYTE, &rq); MPI_Wait(&rq, &st); k++;
            w ? MPI_File_iwrite_shared_c(fh, buf, n, MPI_BYTE, &rq) : MPI_File_iread_shared_c(fh, buf, n, MPI_BYTE, &rq); MPI_Wait(&rq, &st);
            SEEK(k++);
            if (w) { MPI_File_write_all_begin_c(fh, buf, n, MPI_BYTE); MPI_File_write_all_end(fh, buf, &st); }
            else { MPI_File_read_all_begin_c(fh, buf, n, MPI_BYTE); MPI_File_read_all_end(fh, buf, &st); }
            if (w) { MPI_File_write_at_all_begin_c(fh, AT(k), buf, n, MPI_BYTE); MPI_File_write_at_all_end(fh, buf, &st); }
            else { MPI_File_read_at_all_begin_c(fh, AT(k), buf, n, MPI_BYTE); MPI_File_read_at_all_end(fh, buf, &st); }
            k++;
            if (w) { MPI_File_write_ordered_begin_c(fh, buf, n, MPI_BYTE); MPI_File_write_ordered_end(fh, buf, &st); }
            else { MPI_File_read_ordered_begin_c(fh, buf, n, MPI_BYTE); MPI_File_read_ordered_end(fh, buf, &st); }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
