//! The stat family in every spelling: glibc >= 2.33 `stat`/`lstat`/
//! `fstat`/`fstatat` (+64) and `statx`, and the older `__xstat` family.
//! POSIX_STATS counts successful stats of regular files; a stat by path
//! creates the record (Darshan 3.5.0 misses the new spellings entirely).
#![allow(clippy::missing_safety_doc)]

use darshan_posix::POSIX;
use libc::{c_char, c_int, c_uint};

use crate::guard::{enosys, record, recording};
use crate::{clock, paths, real};

type Stat = libc::stat;
type Stat64 = libc::stat64;

fn regular(mode: u32) -> bool {
    mode & libc::S_IFMT == libc::S_IFREG
}

/// Stat by path (relative to `dirfd` for the *at forms).
fn by_path(dirfd: Option<c_int>, path: *const c_char, mode: impl FnOnce() -> u32, call: impl FnOnce() -> c_int) -> c_int {
    if !recording() {
        return call();
    }
    let t1 = clock::now();
    let ret = call();
    let t2 = clock::now();
    if ret == 0 && regular(mode()) {
        record(|| {
            paths::with_clean(dirfd, path, |name| POSIX.on_stat_path(name, t1, t2));
        });
    }
    ret
}

fn by_fd(fd: c_int, mode: impl FnOnce() -> u32, call: impl FnOnce() -> c_int) -> c_int {
    if !recording() || POSIX.tracked(fd).is_none() {
        return call();
    }
    let t1 = clock::now();
    let ret = call();
    let t2 = clock::now();
    if ret == 0 && regular(mode()) {
        record(|| POSIX.on_stat_fd(fd, t1, t2));
    }
    ret
}

fn empty(path: *const c_char) -> bool {
    // SAFETY: a non-null path is a C string.
    path.is_null() || unsafe { *path } == 0
}

/// fstatat-like: an empty path with AT_EMPTY_PATH means the fd itself.
fn at(dirfd: c_int, path: *const c_char, flags: c_int, mode: impl FnOnce() -> u32, call: impl FnOnce() -> c_int) -> c_int {
    if flags & libc::AT_EMPTY_PATH != 0 && empty(path) {
        by_fd(dirfd, mode, call)
    } else {
        by_path(Some(dirfd), path, mode, call)
    }
}

// SAFETY (all `(*b).st_mode` reads below): read only after the real call
// returned 0, when the kernel has filled the caller's buffer.

#[no_mangle]
pub unsafe extern "C" fn stat(p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::stat() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(p, b))
}

#[no_mangle]
pub unsafe extern "C" fn stat64(p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::stat64() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(p, b))
}

#[no_mangle]
pub unsafe extern "C" fn lstat(p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::lstat() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(p, b))
}

#[no_mangle]
pub unsafe extern "C" fn lstat64(p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::lstat64() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(p, b))
}

#[no_mangle]
pub unsafe extern "C" fn fstat(fd: c_int, b: *mut Stat) -> c_int {
    let Some(r) = real::fstat() else { return enosys() };
    by_fd(fd, || unsafe { (*b).st_mode }, || r(fd, b))
}

#[no_mangle]
pub unsafe extern "C" fn fstat64(fd: c_int, b: *mut Stat64) -> c_int {
    let Some(r) = real::fstat64() else { return enosys() };
    by_fd(fd, || unsafe { (*b).st_mode }, || r(fd, b))
}

#[no_mangle]
pub unsafe extern "C" fn fstatat(d: c_int, p: *const c_char, b: *mut Stat, fl: c_int) -> c_int {
    let Some(r) = real::fstatat() else { return enosys() };
    at(d, p, fl, || unsafe { (*b).st_mode }, || r(d, p, b, fl))
}

#[no_mangle]
pub unsafe extern "C" fn fstatat64(d: c_int, p: *const c_char, b: *mut Stat64, fl: c_int) -> c_int {
    let Some(r) = real::fstatat64() else { return enosys() };
    at(d, p, fl, || unsafe { (*b).st_mode }, || r(d, p, b, fl))
}

#[no_mangle]
pub unsafe extern "C" fn __xstat(v: c_int, p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::__xstat() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(v, p, b))
}

#[no_mangle]
pub unsafe extern "C" fn __xstat64(v: c_int, p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::__xstat64() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(v, p, b))
}

#[no_mangle]
pub unsafe extern "C" fn __lxstat(v: c_int, p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::__lxstat() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(v, p, b))
}

#[no_mangle]
pub unsafe extern "C" fn __lxstat64(v: c_int, p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::__lxstat64() else { return enosys() };
    by_path(None, p, || unsafe { (*b).st_mode }, || r(v, p, b))
}

#[no_mangle]
pub unsafe extern "C" fn __fxstat(v: c_int, fd: c_int, b: *mut Stat) -> c_int {
    let Some(r) = real::__fxstat() else { return enosys() };
    by_fd(fd, || unsafe { (*b).st_mode }, || r(v, fd, b))
}

#[no_mangle]
pub unsafe extern "C" fn __fxstat64(v: c_int, fd: c_int, b: *mut Stat64) -> c_int {
    let Some(r) = real::__fxstat64() else { return enosys() };
    by_fd(fd, || unsafe { (*b).st_mode }, || r(v, fd, b))
}

#[no_mangle]
pub unsafe extern "C" fn __fxstatat(v: c_int, d: c_int, p: *const c_char, b: *mut Stat, fl: c_int) -> c_int {
    let Some(r) = real::__fxstatat() else { return enosys() };
    at(d, p, fl, || unsafe { (*b).st_mode }, || r(v, d, p, b, fl))
}

#[no_mangle]
pub unsafe extern "C" fn __fxstatat64(v: c_int, d: c_int, p: *const c_char, b: *mut Stat64, fl: c_int) -> c_int {
    let Some(r) = real::__fxstatat64() else { return enosys() };
    at(d, p, fl, || unsafe { (*b).st_mode }, || r(v, d, p, b, fl))
}

#[no_mangle]
pub unsafe extern "C" fn statx(d: c_int, p: *const c_char, fl: c_int, mask: c_uint, b: *mut libc::statx) -> c_int {
    let Some(r) = real::statx() else { return enosys() };
    // The type is only known when the kernel filled STATX_TYPE.
    let mode = || unsafe { if (*b).stx_mask & libc::STATX_TYPE != 0 { (*b).stx_mode as u32 } else { 0 } };
    at(d, p, fl, mode, || r(d, p, fl, mask, b))
}
