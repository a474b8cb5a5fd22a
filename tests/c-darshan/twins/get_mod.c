/* darshan_log_get_mod on every module of a log, as a module reader of a
 * site's own would call it: for each module, one record through its table
 * first (where it has one), then the module's bytes in chunks of varying
 * size until a chunk comes back short (the region ended), then one more
 * chunk (darshan-util starts the region again after a short one); then
 * two ids that are not modules.
 * Prints what each call returned and a hash of the bytes, for
 * util_twins.sh to compare between C's library and ours.
 *
 * usage: get_mod LOG */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "darshan-logutils.h"

static uint64_t fnv(uint64_t h, const unsigned char *p, int n)
{
    for (int i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static void module(darshan_fd fd, int m)
{
    static const int sizes[] = { 1000, 7, 4096, 1, 333 };
    static unsigned char buf[4096];
    void *rec = NULL;
    printf("%s:", darshan_module_names[m]);
    if (mod_logutils[m] && mod_logutils[m]->log_get_record)
        printf(" record %d", mod_logutils[m]->log_get_record(fd, &rec));
    free(rec);
    uint64_t h = 1469598103934665603ULL;
    long total = 0;
    int calls = 0, ret, n;
    do {
        n = sizes[calls % 5];
        ret = darshan_log_get_mod(fd, m, buf, n);
        calls++;
        if (ret > 0) {
            /* what a short read leaves in the rest of the buffer, too */
            h = fnv(h, buf, n);
            total += ret;
        }
    } while (ret == n);
    printf(" calls %d last %d bytes %ld hash %016llx", calls, ret, total, (unsigned long long)h);
    ret = darshan_log_get_mod(fd, m, buf, 16);
    printf(" again %d %016llx\n", ret, (unsigned long long)fnv(1469598103934665603ULL, buf, ret > 0 ? ret : 0));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: get_mod LOG\n");
        return 2;
    }
    /* A handle per module: darshan-util reads every region through one
     * zlib stream, and the chunk after the end leaves it mid-stream, where
     * the next region's first read fails (ours starts that region). */
    for (int m = 0; m < DARSHAN_KNOWN_MODULE_COUNT; m++) {
        /* AutoPerf's: C's library reads them only when built with them
         * (PyDarshan's wheel is; a default build and ours are not). */
        if (m == DARSHAN_APXC_MOD || m == DARSHAN_APMPI_MOD)
            continue;
        darshan_fd fd = darshan_log_open(argv[1]);
        if (!fd)
            return 1;
        module(fd, m);
        darshan_log_close(fd);
    }
    darshan_fd fd = darshan_log_open(argv[1]);
    if (!fd)
        return 1;
    unsigned char b[8];
    printf("id -1: %d, id %d: %d\n", darshan_log_get_mod(fd, -1, b, 8), DARSHAN_KNOWN_MODULE_COUNT,
           darshan_log_get_mod(fd, DARSHAN_KNOWN_MODULE_COUNT, b, 8));
    darshan_log_close(fd);
    return 0;
}
