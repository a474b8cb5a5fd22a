/* A program that sandboxes itself with seccomp, as a careful one does:
 * makes its N files (6 bytes each), installs a filter, works on them under
 * it (another 6 bytes each), makes N more files where its filter allows
 * openat, prints "done" and returns 0.
 *
 * usage: seccomp_sandbox <dir> <N> <how>
 *   allow-only     libseccomp, kill what the program itself does not use
 *   allow-and-say  the same, with the signal-mask calls a line needs
 *   deny-few       libseccomp, allow all but ptrace/mount/reboot/kexec
 *   deny-publish   libseccomp, allow all but linkat and rename(at)(2)
 *                  (which MPI libraries do not call, and the runtime
 *                  publishes its log with)
 *   deny-threads   libseccomp, allow all but clone, clone3, fork and
 *                  vfork (a sandbox that forbids new tasks)
 *   write-std      libseccomp, kill write(2) to any descriptor above 2
 *                  (the program's own files are written with pwrite)
 *   errno          libseccomp, fail what the program does not use (EPERM)
 *   prctl-only     hand-written BPF through prctl(PR_SET_SECCOMP), kill
 *                  what the program does not use
 *   inherit-threads  deny-threads's filter installed first, then the
 *                  program executes itself with how "inherited": it runs
 *                  under a filter it did not install (as one a launcher,
 *                  a container runtime or a service manager put there),
 *                  and installs none of its own
 * Built with -DUSE_MPI: every rank does so between MPI_Init and
 * MPI_Finalize, in a directory of its own under <dir> (rank 0 prints);
 * <how>@R: only rank R installs its filter. */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef USE_MPI
#include <mpi.h>
#include <sys/stat.h>
#endif

/* What the program itself calls once its filter is in force. */
static const int own[] = {
    SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(pread64), SCMP_SYS(pwrite64),
    SCMP_SYS(lseek), SCMP_SYS(close), SCMP_SYS(exit_group), SCMP_SYS(exit),
    SCMP_SYS(brk), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(fstat),
    SCMP_SYS(newfstatat), SCMP_SYS(getrandom), SCMP_SYS(futex),
    SCMP_SYS(rt_sigreturn), SCMP_SYS(ioctl),
};

static int with_libseccomp(const char *how)
{
    int sandbox = !strcmp(how, "allow-only") || !strcmp(how, "allow-and-say");
    uint32_t otherwise = !strcmp(how, "errno") ? SCMP_ACT_ERRNO(EPERM)
                         : sandbox ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ALLOW;
    scmp_filter_ctx ctx = seccomp_init(otherwise);
    if (!ctx) return -1;
    int rc = 0;
    if (otherwise != SCMP_ACT_ALLOW) {
        for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, own[i], 0);
    }
    if (!strcmp(how, "allow-and-say")) {
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigprocmask), 0);
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigpending), 0);
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(rt_sigtimedwait), 0);
    }
    if (!strcmp(how, "deny-few")) {
        int denied[] = {SCMP_SYS(ptrace), SCMP_SYS(mount), SCMP_SYS(reboot), SCMP_SYS(kexec_load)};
        for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, denied[i], 0);
    }
    if (!strcmp(how, "deny-publish")) {
        int denied[] = {SCMP_SYS(linkat), SCMP_SYS(link), SCMP_SYS(rename), SCMP_SYS(renameat), SCMP_SYS(renameat2)};
        for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, denied[i], 0);
    }
    if (!strcmp(how, "deny-threads")) {
        int denied[] = {SCMP_SYS(clone), SCMP_SYS(clone3), SCMP_SYS(fork), SCMP_SYS(vfork)};
        for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++)
            rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, denied[i], 0);
    }
    if (!strcmp(how, "write-std"))
        rc |= seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_GT, 2));
    if (!strcmp(how, "errno"))
        rc |= seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 0);
    if (rc == 0) rc = seccomp_load(ctx);
    seccomp_release(ctx);
    return rc;
}

#define ALLOW(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int with_prctl(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        ALLOW(SYS_read), ALLOW(SYS_write), ALLOW(SYS_pread64), ALLOW(SYS_pwrite64),
        ALLOW(SYS_lseek), ALLOW(SYS_close), ALLOW(SYS_exit_group), ALLOW(SYS_exit),
        ALLOW(SYS_brk), ALLOW(SYS_mmap), ALLOW(SYS_munmap), ALLOW(SYS_fstat),
        ALLOW(SYS_newfstatat), ALLOW(SYS_getrandom), ALLOW(SYS_futex), ALLOW(SYS_rt_sigreturn), ALLOW(SYS_ioctl),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int make(const char *dir, const char *prefix, long i)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%ld", dir, prefix, i);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0600);
    if (fd >= 0 && pwrite(fd, "abcdef", 6, 0) != 6) return -1;
    return fd;
}

int main(int argc, char **argv)
{
    if (argc != 4) { fprintf(stderr, "usage: %s dir N how\n", argv[0]); return 2; }
    long n = atol(argv[2]);
    char how[64];
    snprintf(how, sizeof how, "%s", argv[3]);
    char *at = strchr(how, '@');
    int only = at ? atoi(at + 1) : -1;
    if (at) *at = 0;
    if (!strcmp(how, "inherit-threads")) {
        int rc = with_libseccomp("deny-threads");
        if (rc) { fprintf(stderr, "installing the filter: %d\n", rc); return 4; }
        char *again[] = {argv[0], argv[1], argv[2], "inherited", NULL};
        execv(argv[0], again);
        perror("execv");
        return 4;
    }
    int rank = 0;
#ifdef USE_MPI
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char mine[4096];
    snprintf(mine, sizeof mine, "%s/rank%d", argv[1], rank);
    if (mkdir(mine, 0700)) return 2;
    argv[1] = mine;
#endif
    /* All N stay open until the filter is in: room for them. */
    struct rlimit nofile;
    if (!getrlimit(RLIMIT_NOFILE, &nofile) && nofile.rlim_cur < (rlim_t)n + 64) {
        nofile.rlim_cur = nofile.rlim_max;
        setrlimit(RLIMIT_NOFILE, &nofile);
    }
    int *fds = calloc(n, sizeof *fds);
    if (!fds) return 2;
    for (long i = 0; i < n; i++)
        if ((fds[i] = make(argv[1], "before", i)) < 0) { perror("open"); return 3; }
    int rc = (only >= 0 && only != rank) || !strcmp(how, "inherited") ? 0
             : !strcmp(how, "prctl-only")                               ? with_prctl()
                                                                        : with_libseccomp(how);
    if (rc) { fprintf(stderr, "installing the filter: %d\n", rc); return 4; }
    char buf[12];
    for (long i = 0; i < n; i++) {
        if (pwrite(fds[i], "ghijkl", 6, 6) != 6) return 5;
        if (pread(fds[i], buf, 12, 0) != 12 || memcmp(buf, "abcdefghijkl", 12)) return 6;
        close(fds[i]);
    }
    int may_open = !strcmp(how, "errno") || !strncmp(how, "deny-", 5) || !strcmp(how, "write-std") || !strcmp(how, "inherited");
    for (long i = 0; may_open && i < n; i++) {
        int fd = make(argv[1], "after", i);
        if (fd < 0) return 7;
        close(fd);
    }
#ifdef USE_MPI
    MPI_Finalize();
#endif
    if (rank == 0) printf("done\n");
    return 0;
}
