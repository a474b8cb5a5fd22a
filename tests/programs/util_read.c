/* Reads a log through libdarshan-util's C API, linked as darshan-util's
 * users link it (pkg-config darshan-util): every POSIX and MPI-IO record,
 * each counter named from the library's own name arrays, printed as
 * darshan-parser prints it ("<module>\t<rank>\t<id>\t<name>\t<value>").
 * usage: util_read LOG */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct darshan_base_record { uint64_t id; int64_t rank; };
extern void *darshan_log_open(const char *);
extern int darshan_log_get_record(void *, int, void **);
extern void darshan_log_close(void *);
extern void darshan_free(void *);
extern char *posix_counter_names[], *posix_f_counter_names[];
extern char *mpiio_counter_names[], *mpiio_f_counter_names[];

static int count(char **names, const char *end)
{
    int n = 0;
    while (strcmp(names[n], end))
        n++;
    return n;
}

static void print(void *fd, int mod, const char *label, char **c, const char *cend, char **f, const char *fend)
{
    int nc = count(c, cend), nf = count(f, fend);
    void *buf = NULL;
    while (darshan_log_get_record(fd, mod, &buf) == 1) {
        struct darshan_base_record *b = buf;
        int64_t *counters = (int64_t *)(b + 1);
        double *fcounters = (double *)(counters + nc);
        for (int k = 0; k < nc; k++)
            printf("%s\t%" PRId64 "\t%" PRIu64 "\t%s\t%" PRId64 "\n", label, b->rank, b->id, c[k], counters[k]);
        for (int k = 0; k < nf; k++)
            printf("%s\t%" PRId64 "\t%" PRIu64 "\t%s\t%.6f\n", label, b->rank, b->id, f[k], fcounters[k]);
        darshan_free(buf);
        buf = NULL;
    }
}

int main(int argc, char **argv)
{
    void *fd = argc > 1 ? darshan_log_open(argv[1]) : NULL;
    if (!fd)
        return 1;
    print(fd, 1, "POSIX", posix_counter_names, "POSIX_NUM_INDICES", posix_f_counter_names, "POSIX_F_NUM_INDICES");
    print(fd, 2, "MPI-IO", mpiio_counter_names, "MPIIO_NUM_INDICES", mpiio_f_counter_names, "MPIIO_F_NUM_INDICES");
    darshan_log_close(fd);
    return 0;
}
