//! The core's view of the operating system, implemented with libc.

use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use darshan_core::platform::UnnamedLog;
use darshan_core::Platform;

pub struct Libc;

pub static LIBC: Libc = Libc;

impl Platform for Libc {
    fn statfs(&self, path: &CStr) -> Option<(i64, i64)> {
        // SAFETY: an all-zero statfs is a valid value to overwrite.
        let mut s: libc::statfs = unsafe { std::mem::zeroed() };
        // SAFETY: `path` is NUL-terminated, `s` writable.
        let r = unsafe { libc::statfs(path.as_ptr(), &mut s) };
        (r == 0).then_some((s.f_bsize, s.f_type))
    }

    fn own_io_begin(&self) -> i32 {
        crate::guard::swap_level(crate::guard::OWN_IO)
    }

    fn own_io_end(&self, saved: i32) {
        crate::guard::swap_level(saved);
    }

    fn stderr(&self, msg: &[u8]) {
        if SILENCED.load(Ordering::Acquire) || !stderr_as_at_start() {
            return;
        }
        let w = crate::real::write();
        without_sigpipe(|| {
            let mut rest = msg;
            while !rest.is_empty() {
                let n = match w {
                    // SAFETY: `rest` is a valid buffer of the given length.
                    Some(w) => unsafe { w(2, rest.as_ptr().cast(), rest.len()) },
                    None => -1,
                };
                if n <= 0 {
                    break;
                }
                rest = &rest[n as usize..];
            }
        });
    }

    fn realtime(&self) -> (i64, i64) {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: `ts` is writable.
        unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
        (ts.tv_sec, ts.tv_nsec)
    }

    fn pid(&self) -> i64 {
        // SAFETY: getpid has no preconditions.
        unsafe { libc::getpid() as i64 }
    }

    fn euid(&self) -> i64 {
        // SAFETY: geteuid has no preconditions.
        unsafe { libc::geteuid() as i64 }
    }

    fn hostname(&self) -> String {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is writable for its length.
        let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if r != 0 {
            return String::new();
        }
        let n = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    fn open_unnamed(&self, dir: &str, mode: u32) -> Option<Box<dyn UnnamedLog>> {
        let cdir = CString::new(dir).ok()?;
        let open = crate::real::open64()?;
        // SAFETY: NUL-terminated directory path; O_TMPFILE makes an
        // unnamed file in it, mode 0400, close-on-exec.
        let fd = unsafe { open(cdir.as_ptr(), libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC, 0o400) };
        // Below 0: not supported by this file system (or kernel), and the
        // caller falls back to a named temporary file. Real errors (the
        // directory is gone, no permission) come back the same way from
        // the fallback, which says them.
        if fd < 0 {
            return None;
        }
        // The log's mode (0400, or 0440 with group-readable logs)
        // whatever the program's umask, as Darshan's logs are (under
        // umask 0777 the log was 0000: its owner could not read it).
        // SAFETY: `fd` is the descriptor just opened.
        unsafe { libc::fchmod(fd, mode as libc::mode_t) };
        Some(Box::new(Unnamed { fd }))
    }

    fn thread_id(&self) -> u64 {
        // SAFETY: pthread_self has no preconditions and cannot fail.
        unsafe { libc::pthread_self() as u64 }
    }
}

/// The log's unnamed file, open for writing; closed when dropped.
struct Unnamed {
    fd: libc::c_int,
}

impl Drop for Unnamed {
    fn drop(&mut self) {
        // SAFETY: closes the descriptor this value owns, once.
        unsafe { libc::close(self.fd) };
    }
}

impl UnnamedLog for Unnamed {
    fn publish(self: Box<Self>, bytes: &[u8], durable: bool, to: &str) -> std::io::Result<bool> {
        let Ok(cto) = CString::new(to) else { return Ok(false) };
        let Some(write) = crate::real::write() else { return Ok(false) };
        write_all(write, self.fd, bytes)?;
        // SAFETY: fsync of our own descriptor.
        if durable && unsafe { libc::fsync(self.fd) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        link_unnamed(self.fd, &cto, to)
    }
}

/// All of `bytes` to `fd` with `write` (the real function, not our
/// wrapper; EINTR retried); Err on a failed write.
fn write_all(
    write: unsafe extern "C" fn(libc::c_int, *const libc::c_void, libc::size_t) -> libc::ssize_t,
    fd: libc::c_int,
    bytes: &[u8],
) -> std::io::Result<()> {
    let mut rest = bytes;
    while !rest.is_empty() {
        // SAFETY: `rest` is a valid buffer of the given length.
        let n = unsafe { write(fd, rest.as_ptr().cast(), rest.len()) };
        if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        if n <= 0 {
            return Err(std::io::Error::last_os_error());
        }
        rest = &rest[n as usize..];
    }
    Ok(())
}

/// The unnamed file `fd` given the name `to` (`cto`): Ok(false) if it
/// cannot be (the caller falls back to a named temporary file), an error
/// if `to` exists (never replaced). Linux 6.10 and later let a process
/// link a file it opened itself by its descriptor (`linkat` with
/// AT_EMPTY_PATH; before, only with CAP_DAC_READ_SEARCH): tried first, as
/// it skips resolving a /proc path (about 12 us of a short process's exit
/// on ext4) and needs no /proc; the path through /proc otherwise.
fn link_unnamed(fd: libc::c_int, cto: &CStr, to: &str) -> std::io::Result<bool> {
    // SAFETY: an empty NUL-terminated path and the NUL-terminated target;
    // links the file open at `fd` at `to`.
    let r = unsafe { libc::linkat(fd, c"".as_ptr(), libc::AT_FDCWD, cto.as_ptr(), libc::AT_EMPTY_PATH) };
    match linked(r, to) {
        Ok(false) => {}
        done => return done,
    }
    let Ok(proc_path) = CString::new(format!("/proc/self/fd/{fd}")) else { return Ok(false) };
    // SAFETY: both paths NUL-terminated; links the open file at `to`.
    let r = unsafe {
        libc::linkat(libc::AT_FDCWD, proc_path.as_ptr(), libc::AT_FDCWD, cto.as_ptr(), libc::AT_SYMLINK_FOLLOW)
    };
    linked(r, to)
}

/// What `linkat`'s result `r` means for the log at `to`: linked, an error
/// if `to` exists, else Ok(false) (not linked: try another way).
fn linked(r: libc::c_int, to: &str) -> std::io::Result<bool> {
    if r == 0 {
        return Ok(true);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EEXIST) => Err(std::io::Error::new(std::io::ErrorKind::AlreadyExists, format!("{to} exists"))),
        _ => Ok(false),
    }
}

/// Run `f` (a write to stderr) with SIGPIPE held back on this thread: when
/// stderr is a pipe whose reader has gone (`prog 2>&1 | head -1`), the
/// runtime's line at exit got the program killed by SIGPIPE (exit 141)
/// after it had done all its own writing. The write now just fails. A
/// SIGPIPE that was already pending is left for the program; one that the
/// write raised is taken back. Only system calls: no allocation, no lock.
fn without_sigpipe(f: impl FnOnce()) {
    // SAFETY: sigset_t is plain data; sigemptyset/sigaddset initialise it.
    let mut pipe: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above, on our own values.
    let (mut old, mut pending) =
        unsafe { (std::mem::zeroed::<libc::sigset_t>(), std::mem::zeroed::<libc::sigset_t>()) };
    // SAFETY: valid sigset_t pointers; pthread_sigmask changes only this
    // thread's mask, which is restored below.
    let held = unsafe {
        libc::sigemptyset(&mut pipe);
        libc::sigaddset(&mut pipe, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old) == 0
    };
    if !held {
        return f();
    }
    // SAFETY: a valid, writable sigset_t.
    let was_pending = unsafe { libc::sigpending(&mut pending) == 0 && libc::sigismember(&pending, libc::SIGPIPE) == 1 };
    f();
    // SAFETY: valid sigset_t and timespec pointers; a zero timeout never
    // waits; the old mask is this thread's own from above.
    unsafe {
        if !was_pending && libc::sigpending(&mut pending) == 0 && libc::sigismember(&pending, libc::SIGPIPE) == 1 {
            let now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            libc::sigtimedwait(&pipe, std::ptr::null_mut(), &now);
        }
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
}

/// Set when a seccomp filter would kill the calls a line needs
/// (seccomp_wrap.rs): nothing is said from then on.
pub(crate) static SILENCED: AtomicBool = AtomicBool::new(false);

/// Descriptor 2's file at start-up (device, inode; both 0: it was closed).
/// A program that closes its stderr and then opens a file gets the file as
/// descriptor 2, and the runtime's line went into the program's data. A
/// line is written only while descriptor 2 is still the file it was when
/// the program started.
static STDERR_AT_START: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

/// Start-up: note what descriptor 2 is.
pub(crate) fn note_stderr() {
    if let Some((dev, ino)) = identity(2) {
        STDERR_AT_START[0].store(dev, Ordering::Relaxed);
        STDERR_AT_START[1].store(ino, Ordering::Relaxed);
    }
}

fn stderr_as_at_start() -> bool {
    let at_start = (STDERR_AT_START[0].load(Ordering::Relaxed), STDERR_AT_START[1].load(Ordering::Relaxed));
    at_start != (0, 0) && identity(2) == Some(at_start)
}

/// `fd`'s file as (device, inode), by the system call itself: the
/// constructor asks it of every process, and finding libc's `fstat` there
/// would be a symbol look-up most short processes never need.
fn identity(fd: libc::c_int) -> Option<(u64, u64)> {
    // SAFETY: an all-zero stat is a valid value to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat(2) writes a kernel `struct stat`, which is libc's
    // `stat` on Linux x86-64 and aarch64; an invalid `fd` only fails.
    (unsafe { libc::syscall(libc::SYS_fstat, fd, &mut st as *mut libc::stat) } == 0).then_some((st.st_dev, st.st_ino))
}
