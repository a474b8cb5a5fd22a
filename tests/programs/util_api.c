/* Calls darshan-util's C API on each log named, as C programs compiled
 * against darshan-logutils.h call it, and prints what every call gave:
 * built once against the installed headers and linked with our
 * libdarshan-util, once linked with C darshan-util 3.5.0's (PyDarshan's
 * wheel's), the two outputs must be the same (ffi/tests/util_api.rs).
 *
 * Per log: the job, command line, mounts, modules; every name and the
 * filtered name calls (no id list, two ids, none); with --name-table (our
 * library only), the uthash table of names; each module's description and every record printed by its
 * table; where records start again (after the last, after the job or
 * another module was read); the figures of the modules with an
 * accumulator (log_sizeof_record, log_record_metrics, the accumulator's
 * derived metrics and summation record). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <darshan-logutils.h>

static void job(darshan_fd fd)
{
    struct darshan_job job;
    char exe[DARSHAN_EXE_LEN + 1] = {0};
    struct darshan_mnt_info *mnts = NULL;
    struct darshan_mod_info *mods = NULL;
    int n = 0, i;
    double runtime = 0;

    printf("get_job %d\n", darshan_log_get_job(fd, &job));
    printf("job uid %" PRId64 " start %" PRId64 ".%09" PRId64 " end %" PRId64 ".%09" PRId64
           " nprocs %" PRId64 " jobid %" PRId64 "\nmetadata %s\n", job.uid, job.start_time_sec,
           job.start_time_nsec, job.end_time_sec, job.end_time_nsec, job.nprocs, job.jobid,
           job.metadata);
    darshan_log_get_job_runtime(fd, job, &runtime);
    printf("runtime %.6f\n", runtime);
    printf("get_exe %d %s\n", darshan_log_get_exe(fd, exe), exe);
    printf("get_mounts %d", darshan_log_get_mounts(fd, &mnts, &n));
    printf(" %d\n", n);
    for(i = 0; i < n; i++)
        printf("mount %s %s\n", mnts[i].mnt_type, mnts[i].mnt_path);
    if(n > 0)
        free(mnts);
    darshan_log_get_modules(fd, &mods, &n);
    for(i = 0; i < n; i++)
        printf("module %s len %d ver %d idx %d partial %d\n", mods[i].name ? mods[i].name : "(none)",
               mods[i].len, mods[i].ver, mods[i].idx, mods[i].partial_flag);
    free(mods);
    printf("version %s swap %d partial %" PRIu64 " comp %d\n", fd->version, fd->swap_flag,
           fd->partial_flag, (int)fd->comp_type);
}

/* The ids of a name call, in order, the records freed. */
static int name_ids(struct darshan_name_record_info *recs, int n, darshan_record_id *ids, int room)
{
    int i;
    for(i = 0; i < n; i++)
    {
        if(i < room)
            ids[i] = recs[i].id;
        free(recs[i].name);
    }
    free(recs);
    return n;
}

/* Every name found in the name table (uthash) as the name records give
 * it: run against our library only (a program's uthash macros read the
 * tables of the uthash it was built with). */
static void name_table(darshan_fd fd)
{
    struct darshan_name_record_info *recs = NULL;
    struct darshan_name_record_ref *hash = NULL, *ref, *tmp;
    int n = 0, i, found = 0;

    darshan_log_get_name_records(fd, &recs, &n);
    printf("get_namehash %d", darshan_log_get_namehash(fd, &hash));
    printf(" %u of %d\n", (unsigned)HASH_CNT(hlink, hash), n);
    for(i = 0; i < n; i++)
    {
        HASH_FIND(hlink, hash, &recs[i].id, sizeof(darshan_record_id), ref);
        found += ref && strcmp(ref->name_record->name, recs[i].name) == 0;
    }
    printf("names found in the table %d\n", found);
    name_ids(recs, n, NULL, 0);
    HASH_ITER(hlink, hash, ref, tmp)
    {
        HASH_DELETE(hlink, hash, ref);
        free(ref->name_record);
        free(ref);
    }
}

static void names(darshan_fd fd)
{
    struct darshan_name_record_info *recs = NULL;
    darshan_record_id ids[2] = {0, 0};
    int n = 0, i;

    darshan_log_get_name_records(fd, &recs, &n);
    for(i = 0; i < n; i++)
        printf("name %" PRIu64 " %s\n", recs[i].id, recs[i].name);
    name_ids(recs, n, ids, 2);
    printf("names %d\n", n);
    darshan_log_get_filtered_name_records(fd, &recs, &n, NULL, 0);
    printf("filtered without a list %d\n", name_ids(recs, n, NULL, 0));
    darshan_log_get_filtered_name_records(fd, &recs, &n, ids, 2);
    printf("filtered by two %d\n", name_ids(recs, n, NULL, 0));
    darshan_log_get_filtered_name_records(fd, &recs, &n, ids, 0);
    printf("filtered by none %d\n", name_ids(recs, n, NULL, 0));
}

/* The id of the next record of module i (its last 6 digits), -1 past the
 * last, -2 on an error. */
static long long next_id(darshan_fd fd, int i, void *buf)
{
    int ret = mod_logutils[i]->log_get_record(fd, &buf);
    if(ret == 1)
        return (long long)(((struct darshan_base_record *)buf)->id % 1000000);
    return ret == 0 ? -1 : -2;
}

/* The rest of module i's records read; their count. */
static int drain(darshan_fd fd, int i, void *buf)
{
    int n = 0;
    while(next_id(fd, i, buf) >= 0)
        n++;
    return n;
}

/* Where records start: after the last, after the job, after another
 * module, each read to its end (darshan-util's zlib stream cannot change
 * regions in the middle of one). */
static void restarts(darshan_fd fd, int i, int other, void *buf)
{
    struct darshan_job job;
    long long first = next_id(fd, i, buf);
    int n = drain(fd, i, buf);
    printf("restart %d first %lld then %d after the end %lld", i, first, n, next_id(fd, i, buf));
    drain(fd, i, buf);
    darshan_log_get_job(fd, &job);
    printf(" after the job %lld", next_id(fd, i, buf));
    drain(fd, i, buf);
    if(other >= 0)
    {
        drain(fd, other, buf);
        printf(" after module %d %lld", other, next_id(fd, i, buf));
        drain(fd, i, buf);
    }
    printf("\n");
}

static void figures(darshan_fd fd, int i, int64_t nprocs, void *buf)
{
    darshan_accumulator acc = NULL;
    struct darshan_derived_metrics m;
    struct darshan_mod_logutil_funcs *f = mod_logutils[i];
    void *sum = calloc(1, DEF_MOD_BUF_SIZE);
    uint64_t id;
    int64_t r, w, off, rank, np;
    double io, md, rw;
    int k;

    if(darshan_accumulator_create(i, nprocs, &acc) != 0)
    {
        free(sum);
        return;
    }
    while(f->log_get_record(fd, &buf) == 1)
    {
        f->log_record_metrics(buf, &id, &r, &w, &off, &io, &md, &rw, &rank, &np);
        printf("metrics %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 " %.6f %.6f %.6f %" PRId64
               " %" PRId64 " size %d\n", id, r, w, off, io, md, rw, rank, np, f->log_sizeof_record(buf));
        darshan_accumulator_inject(acc, buf, 1);
    }
    darshan_accumulator_emit(acc, &m, sum);
    printf("derived %" PRId64 " %.6f %.6f %.6f %d %.6f %.6f %.6f\n", m.total_bytes,
           m.unique_io_total_time_by_slowest, m.unique_rw_only_time_by_slowest,
           m.unique_md_only_time_by_slowest, m.unique_io_slowest_rank,
           m.shared_io_total_time_by_slowest, m.agg_perf_by_slowest, m.agg_time_by_slowest);
    for(k = 0; k < DARSHAN_FILE_CATEGORY_MAX; k++)
        printf("category %d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
               " %" PRId64 " %" PRId64 "\n", k, m.category_counters[k].count,
               m.category_counters[k].total_read_volume_bytes,
               m.category_counters[k].total_write_volume_bytes,
               m.category_counters[k].max_read_volume_bytes,
               m.category_counters[k].max_write_volume_bytes,
               m.category_counters[k].total_max_offset_bytes,
               m.category_counters[k].max_offset_bytes, m.category_counters[k].nprocs);
    f->log_print_record(sum, "summation", "mnt", "fs");
    darshan_accumulator_destroy(acc);
    free(sum);
}

static void modules(darshan_fd fd, int64_t nprocs)
{
    void *buf = malloc(DEF_MOD_BUF_SIZE);
    int i, other = -1, ret;

    for(i = 0; i < DARSHAN_KNOWN_MODULE_COUNT; i++)
    {
        struct darshan_mod_logutil_funcs *f = mod_logutils[i];
        /* AutoPerf's modules: darshan-util 3.5.0 has tables for them only
         * when built with AutoPerf (PyDarshan's wheel is); ours has none
         * (docs/deployment.md). */
        if(fd->mod_map[i].len == 0 || !f || i == DARSHAN_APXC_MOD || i == DARSHAN_APMPI_MOD)
            continue;
        printf("# module %s\n", darshan_module_names[i]);
        if(f->log_print_description)
            f->log_print_description(fd->mod_ver[i]);
        while((ret = f->log_get_record(fd, &buf)) == 1)
            f->log_print_record(buf, NULL, "mnt", "fs");
        printf("end %d\n", ret);
        restarts(fd, i, other, buf);
        if(f->log_record_metrics)
            figures(fd, i, nprocs, buf);
        other = i;
        fflush(stdout);
    }
    free(buf);
}

/* usage: util_api [--name-table] LOG... */
int main(int argc, char **argv)
{
    int k, table = argc > 1 && strcmp(argv[1], "--name-table") == 0;
    for(k = 1 + table; k < argc; k++)
    {
        struct darshan_job j;
        darshan_fd fd = darshan_log_open(argv[k]);
        printf("## %s\n", argv[k]);
        if(!fd)
        {
            printf("open failed\n");
            continue;
        }
        job(fd);
        names(fd);
        if(table)
            name_table(fd);
        darshan_log_get_job(fd, &j);
        modules(fd, j.nprocs);
        darshan_log_close(fd);
        fflush(stdout);
    }
    return 0;
}
