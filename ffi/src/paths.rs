//! Turning a call's path argument into the cleaned absolute name Darshan
//! records, on the stack: relative paths are resolved against the working
//! directory, or for `*at` calls against the directory fd (its record
//! name, else /proc/self/fd/N — the C runtime records nothing useful for
//! those).

use std::ffi::CStr;

use darshan_core::paths::{CleanPath, SHORT_PATH};
use darshan_core::runtime;
use darshan_posix::POSIX;
use libc::{c_char, c_int};

/// The name of the file open as `fd` into `buf`: its POSIX record's name
/// (no system call), else, with `ask_proc`, the /proc/self/fd link (one
/// readlink); None if it has no absolute name (a socket, a pipe).
fn dir_of_fd(fd: c_int, buf: &mut [u8], ask_proc: bool) -> Option<usize> {
    if let Some(id) = POSIX.id_of_fd(fd) {
        if let Some(n) = runtime::core().ledger.name_of(id, buf) {
            return Some(n);
        }
    }
    if !ask_proc {
        return None;
    }
    let mut link = [0u8; 32];
    let mut k = 0;
    for &c in b"/proc/self/fd/" {
        link[k] = c;
        k += 1;
    }
    let mut digits = [0u8; 12];
    let mut n = fd as u32;
    let mut d = 0;
    loop {
        digits[d] = b'0' + (n % 10) as u8;
        d += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    while d > 0 {
        d -= 1;
        link[k] = digits[d];
        k += 1;
    }
    // The real readlink: ours would take the runtime's own call for one
    // made from a signal handler (a lost call).
    let readlink = crate::real::readlink()?;
    // SAFETY: `link` is NUL-terminated (zero-filled), `buf` writable.
    let r = unsafe { readlink(link.as_ptr().cast(), buf.as_mut_ptr().cast(), buf.len() - 1) };
    (r > 0 && (r as usize) < buf.len() - 1 && buf[0] == b'/').then_some(r as usize)
}

/// Hand the name of the file open as `fd` to `f` ([`dir_of_fd`]); not
/// called if it has none. Never inlined: its PATH_MAX buffer would sit in
/// the frame of every wrapper that may ask (ftruncate, fchmod, mmap,
/// fclose ...), taken on each call, the runtime's own pass-through calls
/// included, and a thread with a small stack (PTHREAD_STACK_MIN, an
/// Argobots ULT's 16 KiB) overflowed at its first record.
#[inline(never)]
pub fn with_fd_name(fd: c_int, ask_proc: bool, f: impl FnOnce(&[u8])) {
    let mut buf = [0u8; libc::PATH_MAX as usize];
    if let Some(n) = dir_of_fd(fd, &mut buf, ask_proc) {
        f(&buf[..n]);
    }
}

/// Hand record `id`'s name to `f` (not called if it has none). Never
/// inlined, for the reason [`with_fd_name`] gives.
#[inline(never)]
pub fn with_record_name(id: u64, f: impl FnOnce(&[u8])) {
    let mut buf = [0u8; libc::PATH_MAX as usize];
    if let Some(n) = runtime::core().ledger.name_of(id, &mut buf) {
        f(&buf[..n]);
    }
}

/// Clean `path` into a short buffer, or a PATH_MAX one if it does not
/// fit, and hand the name to `f` (not called if the path cannot be named).
///
/// # Safety
/// `path` is null or a NUL-terminated string.
pub unsafe fn with_clean(dirfd: Option<c_int>, path: *const c_char, f: impl FnOnce(&[u8])) {
    if path.is_null() {
        return;
    }
    // SAFETY: a path argument is a NUL-terminated string.
    let p = unsafe { CStr::from_ptr(path) }.to_bytes();
    if darshan_core::paths::already_clean(p) {
        return f(p); // no copy: an absolute path with nothing to clean
    }
    let mut short: CleanPath<SHORT_PATH> = CleanPath::default();
    // SAFETY: `path` as this function was given it.
    if unsafe { clean(dirfd, path, &mut short) } {
        return f(short.as_bytes());
    }
    // SAFETY: as above.
    unsafe { with_long_clean(dirfd, path, f) }
}

/// [`with_clean`] for a name longer than SHORT_PATH: its PATH_MAX buffer
/// in a frame of its own, taken only then (see [`with_fd_name`]).
///
/// # Safety
/// As [`with_clean`].
#[cold]
#[inline(never)]
unsafe fn with_long_clean(dirfd: Option<c_int>, path: *const c_char, f: impl FnOnce(&[u8])) {
    let mut long: CleanPath = CleanPath::default();
    // SAFETY: the caller's.
    if unsafe { clean(dirfd, path, &mut long) } {
        f(long.as_bytes())
    }
}

/// Clean `path` (relative to `dirfd` for the *at calls, or to the working
/// directory); false if it cannot be named (or does not fit in `N`).
///
/// # Safety
/// `path` is null or a NUL-terminated string.
pub unsafe fn clean<const N: usize>(dirfd: Option<c_int>, path: *const c_char, out: &mut CleanPath<N>) -> bool {
    if path.is_null() {
        return false;
    }
    // SAFETY: a path argument is a NUL-terminated string.
    let p = unsafe { CStr::from_ptr(path) }.to_bytes();
    if p.is_empty() {
        return false;
    }
    if p[0] == b'/' || p[0] == b'<' {
        return out.set(p);
    }
    // The directory straight into `out` (CleanPath::set_under): getcwd's
    // answer, a /proc/self/fd link or a record's name, all clean already.
    out.set_under(
        |dir| match dirfd {
            Some(fd) if fd != libc::AT_FDCWD => dir_of_fd(fd, dir, true),
            _ => crate::cwd::get(dir),
        },
        p,
    )
}
