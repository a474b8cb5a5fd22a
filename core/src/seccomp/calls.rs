//! The system calls the runtime may make after the program has started
//! (a first record's crash-safe file and its growth, a name looked up, a
//! mount's block size, the log written and published at exit, a line on
//! stderr), each with the arguments a filter could tell apart: flags and
//! commands as the runtime passes them, descriptors as a low and a high
//! number (a filter that allows `write` to 1 and 2 only must not pass).
//! Found with `strace -f` against the same programs without the library,
//! and from every `libc::` call in core and ffi; a superset on purpose: a
//! call listed that the runtime never makes costs at most a sandboxed
//! run's records, one missing can cost the program its life.
//!
//! Names are x86-64's and aarch64's where both have them; the older
//! x86-64-only calls glibc or std may still use are listed on x86-64.

use libc::{c_long, O_CLOEXEC, O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY};

/// A call by number, with the argument vectors to try it with.
pub struct Call {
    pub nr: c_long,
    variants: &'static [[u64; 6]],
}

impl Call {
    /// The argument vectors: the listed ones, else none at all, a low
    /// descriptor (3) and a high one (1023) as the first argument.
    pub fn args(&self) -> impl Iterator<Item = [u64; 6]> + '_ {
        let plain: &[[u64; 6]] = if self.variants.is_empty() { &ANY } else { self.variants };
        plain.iter().copied()
    }
}

const ANY: [[u64; 6]; 3] = [[0; 6], [3, 0, 0, 0, 0, 0], [1023, 0, 0, 0, 0, 0]];

/// A pointer argument (a filter may compare one with NULL).
const PTR: u64 = 0x7ffc_0000_1000;
const AT_FDCWD: u64 = libc::AT_FDCWD as i64 as u64;

const fn any(nr: c_long) -> Call {
    Call { nr, variants: &[] }
}

const fn with(nr: c_long, variants: &'static [[u64; 6]]) -> Call {
    Call { nr, variants }
}

const fn flags(f: i32) -> u64 {
    f as u32 as u64
}

/// `openat`'s ways: read a file or a directory (/proc, the mount table,
/// the time zone, a directory to sync), create a crash-safe file or a log
/// (exclusively, 0600 / 0400), open one to grow it or merge it, reach
/// the crash-safe file to give it to a new user (owner.rs).
const OPENAT: [[u64; 6]; 10] = [
    [AT_FDCWD, PTR, flags(O_RDONLY | O_CLOEXEC), 0, 0, 0],
    [AT_FDCWD, PTR, flags(O_RDONLY | O_DIRECTORY | O_CLOEXEC), 0, 0, 0],
    [AT_FDCWD, PTR, flags(O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC), 0o600, 0, 0],
    [AT_FDCWD, PTR, flags(O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC), 0o600, 0, 0],
    [AT_FDCWD, PTR, flags(O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC), 0o400, 0, 0],
    [AT_FDCWD, PTR, flags(O_WRONLY | O_CLOEXEC | O_NOFOLLOW), 0, 0, 0],
    [AT_FDCWD, PTR, flags(O_WRONLY | O_CLOEXEC | O_NOFOLLOW | libc::O_NONBLOCK), 0, 0, 0],
    [AT_FDCWD, PTR, flags(O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC), 0o600, 0, 0],
    [3, PTR, flags(O_RDONLY | O_CLOEXEC), 0, 0, 0],
    [AT_FDCWD, PTR, flags(libc::O_PATH | O_NOFOLLOW | O_CLOEXEC), 0, 0, 0],
];

const MMAP: [[u64; 6]; 4] = [
    [0, 4096, flags(libc::PROT_READ | libc::PROT_WRITE), flags(libc::MAP_SHARED), 3, 0],
    [PTR, 4096, flags(libc::PROT_READ | libc::PROT_WRITE), flags(libc::MAP_SHARED | libc::MAP_FIXED), 3, 0],
    [0, 4096, flags(libc::PROT_READ | libc::PROT_WRITE), flags(libc::MAP_PRIVATE | libc::MAP_ANONYMOUS), u64::MAX, 0],
    [
        0,
        4096,
        flags(libc::PROT_READ | libc::PROT_WRITE),
        flags(libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE),
        u64::MAX,
        0,
    ],
];

/// MADV_POPULATE_WRITE (a crash-safe file grown past `ulimit -f`).
const MADV_POPULATE_WRITE: u64 = 23;
const MADVISE: [[u64; 6]; 3] = [
    [PTR, 4096, MADV_POPULATE_WRITE, 0, 0, 0],
    [PTR, 4096, flags(libc::MADV_DONTNEED), 0, 0, 0],
    [PTR, 4096, flags(libc::MADV_WILLNEED), 0, 0, 0],
];

const FCNTL: [[u64; 6]; 6] = [
    [3, flags(libc::F_DUPFD_CLOEXEC), 100, 0, 0, 0],
    [3, flags(libc::F_DUPFD), 100, 0, 0, 0],
    [3, flags(libc::F_GETFL), 0, 0, 0, 0],
    [3, flags(libc::F_GETFD), 0, 0, 0, 0],
    [3, flags(libc::F_SETFD), flags(libc::FD_CLOEXEC), 0, 0, 0],
    [1023, flags(libc::F_GETFL), 0, 0, 0, 0],
];

const PRLIMIT: [[u64; 6]; 5] = [
    [0, flags(libc::RLIMIT_FSIZE as i32), 0, PTR, 0, 0],
    [0, flags(libc::RLIMIT_STACK as i32), 0, PTR, 0, 0],
    [0, flags(libc::RLIMIT_NOFILE as i32), PTR, 0, 0, 0],
    [0, flags(libc::RLIMIT_NOFILE as i32), 0, PTR, 0, 0],
    [0, flags(libc::RLIMIT_AS as i32), 0, PTR, 0, 0],
];

const SIGMASK: [[u64; 6]; 4] = [
    [flags(libc::SIG_BLOCK), PTR, PTR, 8, 0, 0],
    [flags(libc::SIG_BLOCK), 0, PTR, 8, 0, 0],
    [flags(libc::SIG_UNBLOCK), PTR, 0, 8, 0, 0],
    [flags(libc::SIG_SETMASK), PTR, 0, 8, 0, 0],
];

const FALLOCATE: [[u64; 6]; 2] = [[3, 0, 0, 4096, 0, 0], [3, flags(libc::FALLOC_FL_KEEP_SIZE), 0, 4096, 0, 0]];

/// What platform.rs's `stderr` does for a line: check descriptor 2 is
/// still the one the program started with, hold SIGPIPE back, write.
const STDERR_FD: [[u64; 6]; 1] = [[2, PTR, 64, 0, 0, 0]];
pub const SAY: &[Call] = &[
    with(libc::SYS_fstat, &STDERR_FD),
    with(libc::SYS_write, &STDERR_FD),
    with(libc::SYS_rt_sigprocmask, &SIGMASK),
    any(libc::SYS_rt_sigpending),
    any(libc::SYS_rt_sigtimedwait),
];

/// What a helper thread of the shutdown costs in calls (the compression
/// of a large log, finish::compress): glibc's pthread_create maps its
/// stack PROT_NONE then opens it, sets the cancellation signal's handler
/// at the process's first thread, and clones; the thread registers its
/// robust list and rseq area and leaves with `exit`; std asks the CPU
/// affinity for how many. A filter that kills only these (a sandbox
/// forbidding new tasks) leaves the runtime recording, on one thread.
const STACK: [[u64; 6]; 1] =
    [[0, 4096, flags(libc::PROT_NONE), flags(libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK), u64::MAX, 0]];
pub const THREAD: &[Call] = &[
    with(libc::SYS_mmap, &STACK),
    any(libc::SYS_rt_sigaction),
    any(libc::SYS_clone),
    any(libc::SYS_clone3),
    any(libc::SYS_set_robust_list),
    any(libc::SYS_rseq),
    any(libc::SYS_exit),
    any(libc::SYS_sched_getaffinity),
];

/// Every call of the runtime's own after start-up.
pub const RUNTIME: &[Call] = &[
    with(libc::SYS_openat, &OPENAT),
    with(libc::SYS_mmap, &MMAP),
    with(libc::SYS_madvise, &MADVISE),
    with(libc::SYS_fcntl, &FCNTL),
    with(libc::SYS_prlimit64, &PRLIMIT),
    with(libc::SYS_rt_sigprocmask, &SIGMASK),
    with(libc::SYS_fallocate, &FALLOCATE),
    with(libc::SYS_write, &STDERR_FD),
    any(libc::SYS_write),
    any(libc::SYS_read),
    any(libc::SYS_pread64),
    any(libc::SYS_pwrite64),
    any(libc::SYS_close),
    any(libc::SYS_fstat),
    any(libc::SYS_newfstatat),
    any(libc::SYS_statx),
    any(libc::SYS_lseek),
    any(libc::SYS_munmap),
    any(libc::SYS_mremap),
    any(libc::SYS_mprotect),
    any(libc::SYS_mincore),
    any(libc::SYS_brk),
    any(libc::SYS_ftruncate),
    any(libc::SYS_fsync),
    any(libc::SYS_fdatasync),
    any(libc::SYS_linkat),
    any(libc::SYS_renameat),
    any(libc::SYS_renameat2),
    any(libc::SYS_unlinkat),
    any(libc::SYS_fchmod),
    any(libc::SYS_fchmodat),
    any(libc::SYS_fchownat),
    any(libc::SYS_getcwd),
    any(libc::SYS_readlinkat),
    any(libc::SYS_statfs),
    any(libc::SYS_fstatfs),
    any(libc::SYS_getpid),
    any(libc::SYS_gettid),
    any(libc::SYS_getppid),
    any(libc::SYS_getuid),
    any(libc::SYS_geteuid),
    any(libc::SYS_getgid),
    any(libc::SYS_getegid),
    any(libc::SYS_uname),
    any(libc::SYS_ppoll),
    any(libc::SYS_rt_sigpending),
    any(libc::SYS_rt_sigtimedwait),
    any(libc::SYS_process_vm_readv),
    any(libc::SYS_clock_gettime),
    any(libc::SYS_sched_yield),
    any(libc::SYS_futex),
    any(libc::SYS_getrandom),
    any(libc::SYS_faccessat),
    any(libc::SYS_faccessat2),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_open),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_poll),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_link),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_rename),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_unlink),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_chmod),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_readlink),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_access),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_getrlimit),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_setrlimit),
    #[cfg(target_arch = "x86_64")]
    any(libc::SYS_stat),
];
