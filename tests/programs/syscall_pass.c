/* syscall() with numbers that are not io_uring's: each result (and errno)
 * printed, for a run with the runtime to be compared with one without.
 * usage: syscall_pass */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    printf("getpid %d\n", syscall(SYS_getpid) == getpid());
    printf("gettid %d\n", syscall(SYS_gettid) == gettid());
    int word = 1;
    struct timespec ts = {0, 1000000};
    errno = 0;
    long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 2, &ts, 0, 0);
    printf("futex mismatch %ld %d\n", r, errno == EAGAIN);
    errno = 0;
    r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 1, &ts, 0, 0);
    printf("futex timeout %ld %d\n", r, errno == ETIMEDOUT);
    errno = 0;
    r = syscall(100000, 1, 2, 3, 4, 5, 6);
    printf("invalid %ld %d\n", r, errno == ENOSYS);
    return 0;
}
