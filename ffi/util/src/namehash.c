/* darshan-util's table of names (darshan_log_get_namehash) is a uthash
 * table, which its callers search and free with uthash's own macros
 * (HASH_FIND, HASH_ITER, HASH_DELETE): only uthash's macros can build one
 * that theirs read. This file adds one name to such a table; the library
 * (namehash.rs) calls it for each name of the log. Built with the
 * system's uthash (<uthash.h>), the header the installed
 * uthash-1.9.2/src/uthash.h hands callers over to. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Out of memory, uthash leaves the item out instead of exiting the
 * process (a library must not end its caller). */
static int darshan_util_oom;
#define HASH_NONFATAL_OOM 1
#define uthash_nonfatal_oom(elt) (darshan_util_oom = 1)
#include <uthash.h>

struct darshan_name_record
{
    uint64_t id;
    char name[1];
};

struct darshan_name_record_ref
{
    struct darshan_name_record *name_record;
    UT_hash_handle hlink;
};

/* (id, the len bytes of name) into *hash, unless id is in it already (the
 * first name of an id stays, as darshan-util keeps it): 0, or -1 when
 * there is no memory (the table is left as it was). */
int darshan_util_namehash_add(struct darshan_name_record_ref **hash, uint64_t id,
    const char *name, size_t len)
{
    struct darshan_name_record_ref *ref = NULL;

    HASH_FIND(hlink, *hash, &id, sizeof(uint64_t), ref);
    if(ref)
        return 0;
    ref = malloc(sizeof(*ref));
    if(!ref)
        return -1;
    ref->name_record = malloc(sizeof(struct darshan_name_record) + len);
    if(!ref->name_record)
    {
        free(ref);
        return -1;
    }
    ref->name_record->id = id;
    memcpy(ref->name_record->name, name, len);
    ref->name_record->name[len] = '\0';
    darshan_util_oom = 0;
    HASH_ADD(hlink, *hash, name_record->id, sizeof(uint64_t), ref);
    if(darshan_util_oom)
    {
        free(ref->name_record);
        free(ref);
        return -1;
    }
    return 0;
}

/* Each entry of `hash` in uthash's order (HASH_ITER: the order entries
 * were added, darshan-util's writer's order), handed to `each` as the
 * file lays a name record out: the 8-byte id, the name, its NUL. Stops
 * at the first non-zero `each` returns, and returns it. */
int darshan_util_namehash_each(struct darshan_name_record_ref *hash,
    int (*each)(void *ctx, const void *rec, size_t len), void *ctx)
{
    struct darshan_name_record_ref *ref, *tmp;
    int ret;

    HASH_ITER(hlink, hash, ref, tmp)
    {
        ret = each(ctx, ref->name_record,
            sizeof(uint64_t) + strlen(ref->name_record->name) + 1);
        if(ret)
            return ret;
    }
    return 0;
}
