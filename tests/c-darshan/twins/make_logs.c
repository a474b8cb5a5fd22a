/* Writes, through darshan-util's writer API, the logs util_twins.sh
 * checks C's programs on where the corpus has none:
 *
 *   lustre-dxt.darshan  DXT traces of files on Lustre (plain, progressive
 *                       and data-on-MDT layouts, a file without a LUSTRE
 *                       record, an MPI-IO trace), whose segments cross
 *                       stripes and components in known ways;
 *   mdhim-1.darshan,    MDHIM records of differing server histograms (3
 *   mdhim-2.darshan     against 3 entries, 2 against 4), of like ones,
 *                       and records only one of the two logs has. (None
 *                       with no servers: darshan-util then allocates a
 *                       record 8 bytes short of what it copies into it,
 *                       and darshan-diff dies of the heap it corrupted.)
 *
 * Every record id is its own (not a hash of the name): the tools match
 * records by id and look names up by it.
 *
 * usage: make_logs DIR    (built against libdarshan-util and its headers) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshan-logutils.h"

static struct darshan_name_record_ref *names;

static void name(darshan_record_id id, const char *s)
{
    struct darshan_name_record_ref *ref = calloc(1, sizeof *ref);
    ref->name_record = calloc(1, sizeof(struct darshan_name_record) + strlen(s));
    ref->name_record->id = id;
    strcpy(ref->name_record->name, s);
    HASH_ADD(hlink, names, name_record->id, sizeof(darshan_record_id), ref);
}

static void fail(const char *what)
{
    fprintf(stderr, "make_logs: %s failed\n", what);
    exit(1);
}

/* A log at DIR/FILE with its job, command line, mounts and names. */
static darshan_fd start(const char *dir, const char *file, int nprocs)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    darshan_fd fd = darshan_log_create(path, DARSHAN_ZLIB_COMP, 0);
    if (!fd) fail("darshan_log_create");
    struct darshan_job job;
    memset(&job, 0, sizeof job);
    job.uid = 1000;
    job.start_time_sec = 1700000000;
    job.end_time_sec = 1700000060;
    job.nprocs = nprocs;
    job.jobid = 42;
    strcpy(job.metadata, "lib_ver=3.5.0\nh=romio_no_indep_rw=true\n");
    if (darshan_log_put_job(fd, &job) < 0) fail("put_job");
    char exe[] = "/home/user/bin/app --input /lus/scratch/in.dat";
    if (darshan_log_put_exe(fd, exe) < 0) fail("put_exe");
    struct darshan_mnt_info mnts[2];
    memset(mnts, 0, sizeof mnts);
    strcpy(mnts[0].mnt_type, "lustre");
    strcpy(mnts[0].mnt_path, "/lus/scratch");
    strcpy(mnts[1].mnt_type, "ext4");
    strcpy(mnts[1].mnt_path, "/");
    if (darshan_log_put_mounts(fd, mnts, 2) < 0) fail("put_mounts");
    if (darshan_log_put_namehash(fd, names) < 0) fail("put_namehash");
    return fd;
}

struct comp { int64_t size, count, flags, start, end; };

/* darshan-util's writer takes the OST list to follow the components in
 * memory (as its reader lays them out): one block for both. */
static void lustre(darshan_fd fd, darshan_record_id id, int64_t rank, int n, const struct comp *c,
                   int nosts, const int64_t *osts)
{
    struct darshan_lustre_component *comps = calloc(1, n * sizeof *comps + nosts * sizeof(OST_ID));
    OST_ID *ids = (OST_ID *)(comps + n);
    for (int i = 0; i < n; i++) {
        comps[i].counters[LUSTRE_COMP_STRIPE_SIZE] = c[i].size;
        comps[i].counters[LUSTRE_COMP_STRIPE_COUNT] = c[i].count;
        comps[i].counters[LUSTRE_COMP_FLAGS] = c[i].flags;
        comps[i].counters[LUSTRE_COMP_EXT_START] = c[i].start;
        comps[i].counters[LUSTRE_COMP_EXT_END] = c[i].end;
    }
    memcpy(ids, osts, nosts * sizeof(OST_ID));
    struct darshan_lustre_record r = { { id, rank }, n, nosts, comps, ids };
    if (lustre_logutils.log_put_record(fd, &r) < 0) fail("LUSTRE put_record");
    free(comps);
}

/* A DXT record of `nw` writes then `nr` reads, each {offset, length}. */
static void dxt(struct darshan_mod_logutil_funcs *m, darshan_fd fd, darshan_record_id id,
                int nw, int nr, const int64_t (*segs)[2])
{
    size_t size = sizeof(struct dxt_file_record) + (nw + nr) * sizeof(segment_info);
    struct dxt_file_record *r = calloc(1, size);
    r->base_rec.id = id;
    strcpy(r->hostname, "nid00017");
    r->write_count = nw;
    r->read_count = nr;
    segment_info *s = (segment_info *)(r + 1);
    for (int i = 0; i < nw + nr; i++) {
        s[i].offset = segs[i][0];
        s[i].length = segs[i][1];
        s[i].start_time = 0.25 * i + 0.0001;
        s[i].end_time = 0.25 * i + 0.1234;
    }
    if (m->log_put_record(fd, r) < 0) fail("DXT put_record");
    free(r);
}

#define MB (1 << 20)

static void lustre_dxt(const char *dir)
{
    name(101, "/lus/scratch/rr.dat");
    name(102, "/lus/scratch/pfl.dat");
    name(103, "/lus/scratch/dom.dat");
    name(104, "/home/user/plain.dat");
    name(105, "/lus/scratch/no-layout.dat");
    name(106, "/lus/scratch/mpi.dat");
    darshan_fd fd = start(dir, "lustre-dxt.darshan", 1);
    const struct comp rr[] = { { 65536, 4, 0, 0, -1 } };
    const int64_t rr_osts[] = { 3, 0, 1, 2 };
    lustre(fd, 101, -1, 1, rr, 4, rr_osts);
    const struct comp pfl[] = { { MB, 1, 0x10, 0, 4 * MB }, { MB, 4, 0x10, 4 * MB, 64 * MB },
                                { 4 * MB, 2, 0, 64 * MB, -1 } };
    const int64_t pfl_osts[] = { 5, 6, 7, 0, 1, 8, 9 };
    lustre(fd, 102, -1, 3, pfl, 7, pfl_osts);
    const struct comp dom[] = { { MB, 0, 0x10, 0, MB }, { MB, 2, 0x10, MB, -1 } };
    const int64_t dom_osts[] = { 4, 5 };
    lustre(fd, 103, 0, 2, dom, 2, dom_osts);
    const struct comp one[] = { { MB, 1, 0, 0, -1 } };
    const int64_t mpi_osts[] = { 1 };
    lustre(fd, 106, -1, 1, one, 1, mpi_osts);
    /* rr.dat: one stripe; two; all four (the walk stops after as many
     * stripes as the component has); one far stripe; 1 TiB out; reads of
     * two stripes, one byte, nothing. */
    const int64_t rr_segs[][2] = { { 0, 65536 }, { 32768, 65536 }, { 0, 524288 }, { 200000, 10 },
                                   { 1LL << 40, 4096 }, { 65536, 131072 }, { 262144, 1 }, { 0, 0 } };
    dxt(&dxt_posix_logutils, fd, 101, 5, 3, rr_segs);
    /* pfl.dat: across the first component's end; within the second; from
     * 0 over 5 MiB (the walk jumps to the first component's end); across
     * the second's end into the third; a read in the third. */
    const int64_t pfl_segs[][2] = { { 3670016, MB }, { 6 * MB, 2 * MB }, { 0, 5 * MB },
                                    { 64 * MB - 100, 200 }, { 100 * MB, 10 } };
    dxt(&dxt_posix_logutils, fd, 102, 4, 1, pfl_segs);
    /* dom.dat: from 0 (on the metadata server: no OST, and the walk finds
     * none after it either); past it. */
    const int64_t dom_segs[][2] = { { 0, 2 * MB }, { MB + 10, 5 } };
    dxt(&dxt_posix_logutils, fd, 103, 1, 1, dom_segs);
    const int64_t plain_segs[][2] = { { 0, 100 } };
    dxt(&dxt_posix_logutils, fd, 104, 1, 0, plain_segs);
    dxt(&dxt_posix_logutils, fd, 105, 1, 0, plain_segs);
    const int64_t mpi_segs[][2] = { { 0, MB }, { 0, 10 } };
    dxt(&dxt_mpiio_logutils, fd, 106, 1, 1, mpi_segs);
    darshan_log_close(fd);
}

/* An MDHIM record with `n` servers, whole: darshan-util's own
 * log_put_record writes the struct alone, the first server's entry of the
 * histogram and no more (the runtime writes them all). */
static void mdhim(darshan_fd fd, darshan_record_id id, int64_t rank, int64_t puts, int n, const int64_t *hist)
{
    size_t size = MDHIM_RECORD_SIZE(n > 1 ? n : 1);
    struct darshan_mdhim_record *r = calloc(1, size);
    r->base_rec.id = id;
    r->base_rec.rank = rank;
    r->counters[MDHIM_PUTS] = puts;
    r->counters[MDHIM_GETS] = 2 * puts;
    r->counters[MDHIM_PUT_MAX_SIZE] = 4096;
    r->counters[MDHIM_SERVERS] = n;
    r->fcounters[MDHIM_F_PUT_TIMESTAMP] = 0.5;
    r->fcounters[MDHIM_F_PUT_MAX_DURATION] = 0.001 * puts;
    for (int i = 0; i < n; i++)
        r->server_histogram[i] = hist[i];
    if (darshan_log_put_mod(fd, DARSHAN_MDHIM_MOD, r, size, DARSHAN_MDHIM_VER) < 0) fail("MDHIM put_mod");
    free(r);
}

static void mdhims(const char *dir)
{
    names = NULL;
    name(201, "mdhim-db-a");
    name(202, "mdhim-db-b");
    name(203, "mdhim-db-c");
    name(204, "mdhim-only-in-1");
    name(205, "mdhim-only-in-2");
    darshan_fd one = start(dir, "mdhim-1.darshan", 2);
    mdhim(one, 201, 0, 10, 3, (const int64_t[]){ 5, 6, 7 });
    mdhim(one, 202, 0, 4, 2, (const int64_t[]){ 1, 2 });
    mdhim(one, 203, -1, 1, 1, (const int64_t[]){ 4 });
    mdhim(one, 204, 0, 3, 1, (const int64_t[]){ 9 });
    darshan_log_close(one);
    darshan_fd two = start(dir, "mdhim-2.darshan", 2);
    mdhim(two, 201, 0, 11, 3, (const int64_t[]){ 5, 9, 7 });
    mdhim(two, 202, 0, 4, 4, (const int64_t[]){ 1, 2, 3, 4 });
    mdhim(two, 203, -1, 1, 1, (const int64_t[]){ 4 });
    mdhim(two, 205, 1, 6, 2, (const int64_t[]){ 3, 3 });
    darshan_log_close(two);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_logs DIR\n");
        return 2;
    }
    lustre_dxt(argv[1]);
    mdhims(argv[1]);
    return 0;
}
