#define _GNU_SOURCE
/* A process started as root that gives up root after its first record,
 * as a daemon or a batch wrapper does before running a user's work.
 *
 *   drop_root HOW DATADIR MMAPDIR
 *
 * Writes DATADIR/before as root, changes its user to 65534 by HOW
 * (setuid, seteuid, setreuid, setresuid), writes 40 more files as that
 * user (DATADIR must let it), and exits. HOW "killed" changes with
 * setuid, then dies of SIGKILL after its writes. HOW "refused" makes the
 * kernel refuse the change (a seccomp filter answers EPERM to the
 * set*uid calls), then prints the call's result and errno and the owner
 * of the one file in MMAPDIR, and exits as root. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOBODY 65534

static int put(const char *dir, const char *name) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) {
        perror(p);
        return 1;
    }
    int bad = write(fd, "data\n", 5) != 5;
    return close(fd) || bad;
}

/* EPERM for setuid, setreuid and setresuid; every other call allowed. */
static int refuse_user_changes(void) {
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setuid, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setreuid, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_setresuid, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static long owner_of_the_only_file(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    long owner = -1;
    int n = 0;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            owner = (long)st.st_uid;
        n++;
    }
    if (d)
        closedir(d);
    return n == 1 ? owner : -2 - n;
}

static int change(const char *how) {
    if (!strcmp(how, "setuid") || !strcmp(how, "killed") || !strcmp(how, "refused"))
        return setuid(NOBODY);
    if (!strcmp(how, "seteuid"))
        return seteuid(NOBODY);
    if (!strcmp(how, "setreuid"))
        return setreuid(NOBODY, NOBODY);
    if (!strcmp(how, "setresuid"))
        return setresuid(NOBODY, NOBODY, NOBODY);
    fprintf(stderr, "unknown way %s\n", how);
    return -2;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s HOW DATADIR MMAPDIR\n", argv[0]);
        return 2;
    }
    const char *how = argv[1], *data = argv[2];
    if (put(data, "before"))
        return 1;
    if (!strcmp(how, "refused") && refuse_user_changes()) {
        perror("seccomp");
        return 1;
    }
    int r = change(how);
    int e = errno;
    if (!strcmp(how, "refused")) {
        printf("result %d errno %d owner %ld\n", r, e, owner_of_the_only_file(argv[3]));
        return 0;
    }
    if (r != 0 || geteuid() != NOBODY) {
        fprintf(stderr, "%s: %s\n", how, strerror(e));
        return 1;
    }
    for (int i = 0; i < 40; i++) {
        char name[32];
        snprintf(name, sizeof name, "after-%02d", i);
        if (put(data, name))
            return 1;
    }
    if (!strcmp(how, "killed"))
        raise(SIGKILL);
    return 0;
}
