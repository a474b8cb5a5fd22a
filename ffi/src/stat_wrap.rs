//! The stat family in every spelling: glibc >= 2.33 `stat`/`lstat`/
//! `fstat`/`fstatat` (+64) and `statx`, and the older `__xstat` family.
//! POSIX_STATS counts successful stats of regular files; a stat by path
//! creates the record (Darshan 3.5.0 misses the new spellings entirely).
#![allow(clippy::missing_safety_doc)]
// SAFETY (every wrapper in this file): the only unsafe operation in a
// wrapper's body is calling the real function with the caller's arguments
// unchanged, so the caller's obligations are exactly those of the libc
// function it meant to call.

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
///
/// # Safety
/// `path` is null or a NUL-terminated string.
unsafe fn by_path(
    dirfd: Option<c_int>,
    path: *const c_char,
    mode: impl FnOnce() -> u32,
    call: impl FnOnce() -> c_int,
) -> c_int {
    if !recording() {
        return call();
    }
    let t1 = clock::now();
    let ret = call();
    let t2 = clock::now();
    if ret == 0 && regular(mode()) {
        // SAFETY: `path` as this function was given it.
        record(|| unsafe { paths::with_clean(dirfd, path, |name| POSIX.on_stat_path(name, t1, t2)) });
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

/// # Safety
/// `path` is null or a NUL-terminated string.
unsafe fn empty(path: *const c_char) -> bool {
    // SAFETY: a non-null path is a C string.
    path.is_null() || unsafe { *path } == 0
}

/// fstatat-like: an empty path with AT_EMPTY_PATH means the fd itself.
///
/// # Safety
/// `path` is null or a NUL-terminated string.
unsafe fn at(
    dirfd: c_int,
    path: *const c_char,
    flags: c_int,
    mode: impl FnOnce() -> u32,
    call: impl FnOnce() -> c_int,
) -> c_int {
    // SAFETY: `path` as this function was given it.
    if flags & libc::AT_EMPTY_PATH != 0 && unsafe { empty(path) } {
        by_fd(dirfd, mode, call)
    } else {
        // SAFETY: as above.
        unsafe { by_path(Some(dirfd), path, mode, call) }
    }
}

/// The mode of a stat buffer; only called after the real call returned 0.
///
/// # Safety
/// `b` is a stat buffer the kernel filled.
unsafe fn mode(b: *const Stat) -> u32 {
    // SAFETY: the real call succeeded, so the kernel filled the caller's
    // buffer, which the caller keeps alive for the call.
    unsafe { (*b).st_mode }
}

/// # Safety
/// As for [`mode`].
unsafe fn mode64(b: *const Stat64) -> u32 {
    // SAFETY: as in `mode`.
    unsafe { (*b).st_mode }
}

/// # Safety
/// As for [`mode`].
unsafe fn statx_mode(b: *const libc::statx) -> u32 {
    // SAFETY: as in `mode`; the type bits are valid only with STATX_TYPE.
    let (mask, mode) = unsafe { ((*b).stx_mask, (*b).stx_mode) };
    if mask & libc::STATX_TYPE != 0 {
        mode as u32
    } else {
        0
    }
}

#[no_mangle]
pub unsafe extern "C" fn stat(p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::stat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode(b), || r(p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn stat64(p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::stat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode64(b), || r(p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn lstat(p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::lstat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode(b), || r(p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn lstat64(p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::lstat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode64(b), || r(p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn fstat(fd: c_int, b: *mut Stat) -> c_int {
    let Some(r) = real::fstat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_fd(fd, || mode(b), || r(fd, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn fstat64(fd: c_int, b: *mut Stat64) -> c_int {
    let Some(r) = real::fstat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_fd(fd, || mode64(b), || r(fd, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn fstatat(d: c_int, p: *const c_char, b: *mut Stat, fl: c_int) -> c_int {
    let Some(r) = real::fstatat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { at(d, p, fl, || mode(b), || r(d, p, b, fl)) }
}

#[no_mangle]
pub unsafe extern "C" fn fstatat64(d: c_int, p: *const c_char, b: *mut Stat64, fl: c_int) -> c_int {
    let Some(r) = real::fstatat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { at(d, p, fl, || mode64(b), || r(d, p, b, fl)) }
}

#[no_mangle]
pub unsafe extern "C" fn __xstat(v: c_int, p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::__xstat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode(b), || r(v, p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn __xstat64(v: c_int, p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::__xstat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode64(b), || r(v, p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn __lxstat(v: c_int, p: *const c_char, b: *mut Stat) -> c_int {
    let Some(r) = real::__lxstat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode(b), || r(v, p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn __lxstat64(v: c_int, p: *const c_char, b: *mut Stat64) -> c_int {
    let Some(r) = real::__lxstat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_path(None, p, || mode64(b), || r(v, p, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn __fxstat(v: c_int, fd: c_int, b: *mut Stat) -> c_int {
    let Some(r) = real::__fxstat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_fd(fd, || mode(b), || r(v, fd, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn __fxstat64(v: c_int, fd: c_int, b: *mut Stat64) -> c_int {
    let Some(r) = real::__fxstat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { by_fd(fd, || mode64(b), || r(v, fd, b)) }
}

#[no_mangle]
pub unsafe extern "C" fn __fxstatat(v: c_int, d: c_int, p: *const c_char, b: *mut Stat, fl: c_int) -> c_int {
    let Some(r) = real::__fxstatat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { at(d, p, fl, || mode(b), || r(v, d, p, b, fl)) }
}

#[no_mangle]
pub unsafe extern "C" fn __fxstatat64(v: c_int, d: c_int, p: *const c_char, b: *mut Stat64, fl: c_int) -> c_int {
    let Some(r) = real::__fxstatat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { at(d, p, fl, || mode64(b), || r(v, d, p, b, fl)) }
}

#[no_mangle]
pub unsafe extern "C" fn statx(d: c_int, p: *const c_char, fl: c_int, mask: c_uint, b: *mut libc::statx) -> c_int {
    let Some(r) = real::statx() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's path, and its buffer (read after success).
    unsafe { at(d, p, fl, || statx_mode(b), || r(d, p, fl, mask, b)) }
}
