/* Variadic STDIO wrappers (printf and scanf families), which stable Rust
 * cannot define. Each calls the real va_list function and reports to the
 * Rust runtime through the functions it was handed (struct
 * darshan_rs_api); the Rust side exports these bodies under the libc
 * names (see shim.rs). Hidden: not exported. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "darshan_facts.h" /* written by build.rs from facts.rs and darshan-stdio's filter.rs */

#define HIDDEN __attribute__((visibility("hidden")))

#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* What the Rust side gives the shim (its functions; the runtime's state
 * and clock, clock.rs and guard.rs; the STDIO module's stream filter and
 * first-call flag) is struct darshan_rs_api, declared in darshan_facts.h
 * (written from ffi/src/facts.rs, checked against its Rust twin in
 * ffi/src/c_api.rs) and handed over once, by darshan_shim_init, before
 * the runtime can be running. Until then `rs_life` is null and nothing
 * records. Handed, not linked by name: no symbol of the runtime's own
 * needs to be exported. */
static struct darshan_rs_api rs;
static const unsigned char *rs_life;

/* The per-thread "inside the runtime" flag (docs/interposition.md rule 4). Kept
 * here because C can give it the initial-exec TLS model: one %fs-relative
 * access instead of a __tls_get_addr call per use from Rust in a cdylib. */
static __thread int in_runtime __attribute__((tls_model("initial-exec")));

/* A call made while this thread records another can only come from a
 * signal handler that interrupted the runtime: passed through, counted as
 * lost (the guard's values: darshan_facts.h, from facts.rs). */

static inline int recording(void)
{
    const unsigned char *life = __atomic_load_n(&rs_life, __ATOMIC_ACQUIRE);
    if (!life || __atomic_load_n(life, __ATOMIC_ACQUIRE) != DARSHAN_LIFE_RUNNING) return 0;
    if (in_runtime == DARSHAN_GUARD_OUTSIDE) return 1;
    if (in_runtime == DARSHAN_GUARD_RECORDING) rs.lost_call();
    return 0;
}

/* The STDIO module's filter of streams that may be tracked
 * (rs.stream_filter), hashed as darshan_stdio::filter_bit does: the
 * constants come from its filter.rs through darshan_facts.h. */
_Static_assert((1u << (64 - DARSHAN_FILTER_SHIFT)) == DARSHAN_FILTER_WORDS * 64,
               "the filter's hash must index exactly its bits");

/* rs.stdio_begun is set at the program's first STDIO call
 * (darshan_stdio's Stdio::begin, through rs.stdio_begin, which also sets
 * the module up): from then on the standard streams are tracked. Called
 * whenever recording() is true. */
static inline int begin_stdio(void)
{
    if (!__atomic_load_n(rs.stdio_begun, __ATOMIC_RELAXED))
        rs.stdio_begin();
    return 1;
}

static inline int maybe_tracked(FILE *f)
{
    uint64_t h = ((uint64_t)(uintptr_t)f * DARSHAN_FILTER_MUL) >> DARSHAN_FILTER_SHIFT;
    return (__atomic_load_n(&rs.stream_filter[h >> 6], __ATOMIC_RELAXED) >> (h & 63)) & 1;
}

/* Clock ticks since start-up, as clock.rs counts them. */
static inline int64_t ticks(void)
{
#if defined(__x86_64__)
    if (__atomic_load_n(rs.use_tsc, __ATOMIC_RELAXED))
        return (int64_t)(__rdtsc() - __atomic_load_n(rs.t0, __ATOMIC_RELAXED));
#endif
    return rs.now();
}

typedef int (*vfprintf_fn)(FILE *, const char *, va_list);
typedef int (*vfprintf_chk_fn)(FILE *, int, const char *, va_list);
typedef int (*vfscanf_fn)(FILE *, const char *, va_list);

static void *p_vfprintf, *p_vfprintf_chk, *p_vfscanf, *p_isoc99_vfscanf, *p_isoc23_vfscanf;

/* Linked statically with --wrap (libdarshan.a as `just install` makes
 * it, share/ld-opts/darshan-ld-opts), the real X is the linker's
 * __real_X, listed in this table, which install.sh adds to the archive.
 * In libdarshan.so the weak reference stays null and dlsym(RTLD_NEXT)
 * finds the next definition, as always. */
struct darshan_static_real { const char *name; void *addr; };
extern const struct darshan_static_real darshan_static_reals[] __attribute__((weak));

/* `name`'s address in table `t` (null-terminated; itself null where the
 * link left it out), null if none. */
static void *in_table(const struct darshan_static_real *t, const char *name)
{
    for (; t && t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t->addr;
    return 0;
}

/* PnetCDF's table (darshan_static_pnetcdf.o), pulled out of libdarshan.a
 * only by share/ld-opts/darshan-pnetcdf-ld-opts, for a program linked with
 * PnetCDF: the real function of each wrapped ncmpi_X (__real_X) and the
 * inquiry functions the wrappers call. Null everywhere else. */
extern const struct darshan_static_real darshan_static_pnetcdf[] __attribute__((weak));

/* `name`'s real function in the static link's tables, null if none (a
 * shared library, or a name the tables do not hold). */
HIDDEN void *darshan_static_real(const char *name)
{
    void *p = in_table(darshan_static_reals, name);
    return p ? p : in_table(darshan_static_pnetcdf, name);
}

HIDDEN void *darshan_real_symbol(const char *name)
{
    void *p = darshan_static_real(name);
    /* A weak entry the link left null (a function of a newer glibc than
     * this one) may still be in a shared library; MPI functions are not
     * in the table (the executable defines them itself: install.sh) and
     * always come from the shared MPI. */
    return p ? p : dlsym(RTLD_NEXT, name);
}

/* A static HDF5 linked in with share/ld-opts/darshan-hdf5-ld-opts, which
 * pulls this table (darshan_static_hdf5.o, made by install.sh) out of
 * libdarshan.a: every HDF5 function the HDF5 wrappers call, real (the
 * linker's __real_X) or helper. Its strong references pull the HDF5
 * functions out of libhdf5.a, which --wrap alone never does (the
 * program's references become __wrap_X). Absent (null) everywhere else:
 * libdarshan.so finds HDF5 libraries with dlsym (hdf5_find.rs). */
extern const struct darshan_static_real darshan_static_hdf5[] __attribute__((weak));

HIDDEN void *darshan_static_hdf5_symbol(const char *name)
{
    return in_table(darshan_static_hdf5, name);
}

static void *resolve(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (!p) {
        p = darshan_real_symbol(name);
        __atomic_store_n(slot, p, __ATOMIC_RELAXED);
    }
    return p;
}

/* Called once, by the constructor (shim.rs), before the runtime can be
 * running: `api` is copied, and `rs_life` published last, so that a
 * thread that sees it sees the rest. */
HIDDEN void darshan_shim_init(const struct darshan_rs_api *api)
{
    rs = *api;
    __atomic_store_n(&rs_life, api->life, __ATOMIC_RELEASE);
    resolve(&p_vfprintf, "vfprintf");
    resolve(&p_vfprintf_chk, "__vfprintf_chk");
    resolve(&p_vfscanf, "vfscanf");
    resolve(&p_isoc99_vfscanf, "__isoc99_vfscanf");
    resolve(&p_isoc23_vfscanf, "__isoc23_vfscanf");
}

static int print(FILE *f, int chk, int flag, const char *fmt, va_list ap)
{
    int ret;
    int rec = recording() && begin_stdio() && maybe_tracked(f);
    int64_t t1 = rec ? ticks() : 0;
    if (chk) {
        vfprintf_chk_fn r = (vfprintf_chk_fn)resolve(&p_vfprintf_chk, "__vfprintf_chk");
        if (!r) { errno = ENOSYS; return -1; }
        ret = r(f, flag, fmt, ap);
    } else {
        vfprintf_fn r = (vfprintf_fn)resolve(&p_vfprintf, "vfprintf");
        if (!r) { errno = ENOSYS; return -1; }
        ret = r(f, fmt, ap);
    }
    if (rec && ret > 0) {
        int64_t t2 = ticks();
        /* Recording a write makes no system call that can fail (the lock
         * only ever yields), so errno needs no saving here. */
        in_runtime = DARSHAN_GUARD_RECORDING;
        rs.stdio_write(f, ret, t1, t2);
        in_runtime = DARSHAN_GUARD_OUTSIDE;
    }
    return ret;
}

HIDDEN int darshan_shim_vfprintf(FILE *f, const char *fmt, va_list ap) { return print(f, 0, 0, fmt, ap); }
HIDDEN int darshan_shim_vprintf(const char *fmt, va_list ap) { return print(stdout, 0, 0, fmt, ap); }
HIDDEN int darshan_shim___vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap) { return print(f, 1, flag, fmt, ap); }
HIDDEN int darshan_shim___vprintf_chk(int flag, const char *fmt, va_list ap) { return print(stdout, 1, flag, fmt, ap); }

HIDDEN int darshan_shim_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    int r = print(f, 0, 0, fmt, ap);
    va_end(ap);
    return r;
}

HIDDEN int darshan_shim_printf(const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    int r = print(stdout, 0, 0, fmt, ap);
    va_end(ap);
    return r;
}

HIDDEN int darshan_shim___fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    int r = print(f, 1, flag, fmt, ap);
    va_end(ap);
    return r;
}

HIDDEN int darshan_shim___printf_chk(int flag, const char *fmt, ...)
{
    va_list ap; va_start(ap, fmt);
    int r = print(stdout, 1, flag, fmt, ap);
    va_end(ap);
    return r;
}

/* Bytes read by a scanf call are the change of ftell, as in Darshan. */
static int scan(void **slot, const char *name, FILE *f, const char *fmt, va_list ap)
{
    vfscanf_fn r = (vfscanf_fn)resolve(slot, name);
    if (!r) { errno = ENOSYS; return -1; }
    int64_t t1 = recording() && begin_stdio() && maybe_tracked(f) ? ticks() : -1;
    long start = t1 >= 0 ? ftell(f) : 0;
    int ret = r(f, fmt, ap);
    if (t1 >= 0 && ret != 0) {
        int e = errno;
        long end = ftell(f);
        errno = e;
        rs.stdio_read(f, end - start, t1);
    }
    return ret;
}

HIDDEN int darshan_shim_vfscanf(FILE *f, const char *fmt, va_list ap) { return scan(&p_vfscanf, "vfscanf", f, fmt, ap); }
HIDDEN int darshan_shim___isoc99_vfscanf(FILE *f, const char *fmt, va_list ap) { return scan(&p_isoc99_vfscanf, "__isoc99_vfscanf", f, fmt, ap); }
HIDDEN int darshan_shim___isoc23_vfscanf(FILE *f, const char *fmt, va_list ap) { return scan(&p_isoc23_vfscanf, "__isoc23_vfscanf", f, fmt, ap); }

#define SCAN_VARIADIC(fn, slot, real, stream)                       \
    HIDDEN int darshan_shim_##fn(FILE *f, const char *fmt, ...)     \
    {                                                               \
        va_list ap; va_start(ap, fmt);                              \
        int r = scan(&slot, real, f, fmt, ap);                      \
        va_end(ap);                                                 \
        return r;                                                   \
    }
SCAN_VARIADIC(fscanf, p_vfscanf, "vfscanf", f)
SCAN_VARIADIC(__isoc99_fscanf, p_isoc99_vfscanf, "__isoc99_vfscanf", f)
SCAN_VARIADIC(__isoc23_fscanf, p_isoc23_vfscanf, "__isoc23_vfscanf", f)

#define SCANF_STDIN(fn, slot, real)                                 \
    HIDDEN int darshan_shim_##fn(const char *fmt, ...)              \
    {                                                               \
        va_list ap; va_start(ap, fmt);                              \
        int r = scan(&slot, real, stdin, fmt, ap);                  \
        va_end(ap);                                                 \
        return r;                                                   \
    }
SCANF_STDIN(scanf, p_vfscanf, "vfscanf")
SCANF_STDIN(__isoc99_scanf, p_isoc99_vfscanf, "__isoc99_vfscanf")
SCANF_STDIN(__isoc23_scanf, p_isoc23_vfscanf, "__isoc23_vfscanf")

/* Aligned to a page: the first of the per-call path in the library's
 * text (scripts/text_order.py), which so lies the same way in every build. */
HIDDEN __attribute__((aligned(4096))) int darshan_guard_get(void) { return in_runtime; }
HIDDEN void darshan_guard_set(int v) { in_runtime = v; }

/* Enter the recording part of a wrapper: set the flag, return errno so
 * that leaving can restore it (one call each way). */
HIDDEN int darshan_rt_enter(void) { in_runtime = DARSHAN_GUARD_RECORDING; return errno; }
HIDDEN void darshan_rt_leave(int saved_errno) { errno = saved_errno; in_runtime = DARSHAN_GUARD_OUTSIDE; }

/* execl, execlp, execle: variadic argument lists turned into the argv of
 * execv/execvp/execve, which this library also exports (exec_wrap.rs), so
 * the crash-safe file is handled in one place. glibc's own execl calls an
 * internal execve that no wrapper sees, hence these. */
#define EXEC_ARGV(first, ap, argv, n)                                   \
    size_t n = 1;                                                       \
    if (first) {                                                        \
        va_list c_;                                                     \
        va_copy(c_, ap);                                                \
        while (va_arg(c_, const char *)) n++;                           \
        va_end(c_);                                                     \
    } else {                                                            \
        n = 0;                                                          \
    }                                                                   \
    const char *argv[n + 1];                                            \
    argv[0] = first;                                                    \
    for (size_t i_ = 1; i_ <= n; i_++) argv[i_] = va_arg(ap, const char *); \
    if (!first) argv[0] = 0;

extern int execv(const char *, char *const[]);
extern int execvp(const char *, char *const[]);
extern int execve(const char *, char *const[], char *const[]);

HIDDEN int darshan_shim_execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    EXEC_ARGV(arg, ap, argv, n);
    va_end(ap);
    return execv(path, (char *const *)argv);
}

HIDDEN int darshan_shim_execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    EXEC_ARGV(arg, ap, argv, n);
    va_end(ap);
    return execvp(file, (char *const *)argv);
}

HIDDEN int darshan_shim_execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    EXEC_ARGV(arg, ap, argv, n);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, (char *const *)argv, envp);
}

/* The return address of the H5* call this thread is in, noted by the
 * exported entry stubs (hdf5_wrap.rs) with one %fs-relative store before
 * they jump to the wrapper, which reads it here to pick the HDF5 library
 * the caller was linked with (hdf5_find.rs). Initial-exec, as above. */
__thread uintptr_t darshan_h5_caller_tls __attribute__((tls_model("initial-exec")));

uintptr_t darshan_h5_caller(void)
{
    return darshan_h5_caller_tls;
}

/* The hyperslab selection this thread last set, waiting for the access
 * that uses it (hdf5_select.rs owns its layout; only the storage is here,
 * for the initial-exec model). */
static __thread uint64_t h5_selection_tls[DARSHAN_H5_SELECTION_WORDS]
    __attribute__((tls_model("initial-exec"), aligned(8)));

uint64_t *darshan_h5_selection(void)
{
    return h5_selection_tls;
}
