//! Exported wrappers of the calls the POSIX_META module counts (ours; C
//! Darshan wraps none of them but rename and mmap): namespace operations
//! (unlink, rename, mkdir, rmdir), directory streams (opendir, readdir,
//! closedir), attribute operations (truncate, fallocate, chmod, chown,
//! access, link, symlink, readlink, utimes, extended attributes) and
//! file-backed mappings (msync, munmap; mmap is POSIX's wrapper, which
//! tells both modules). Each calls the real function exactly once, timing
//! it only when recording, and on success names the path as POSIX does —
//! cleaned, relative names against the working directory or the *at
//! call's directory descriptor, AT_EMPTY_PATH and descriptor calls by the
//! descriptor's path — and hands it to the module.
#![allow(clippy::missing_safety_doc)]
// SAFETY (every wrapper in this file): the only unsafe operation in a
// wrapper's body, outside the blocks marked SAFETY, is calling the real
// function with the caller's arguments unchanged, so the caller's
// obligations are exactly those of the libc function it meant to call.

use darshan_core::runtime;
use darshan_log::counters::posix_meta::typed as c;
use darshan_posix_meta::{Counter, PosixMeta, POSIX_META};
use libc::{c_char, c_int, c_void, gid_t, mode_t, off64_t, off_t, size_t, ssize_t, timespec, timeval, uid_t, DIR};

use crate::guard::{enosys, enosys_null, record, recording};
use crate::{clock, paths, real};

/// A call's result: whether it succeeded.
trait Succeeded: Copy {
    fn ok(self) -> bool;
}

impl Succeeded for c_int {
    fn ok(self) -> bool {
        self >= 0
    }
}

impl Succeeded for ssize_t {
    fn ok(self) -> bool {
        self >= 0
    }
}

/// posix_fallocate's result: 0, or the error number (errno is not set).
#[derive(Clone, Copy)]
struct ErrNo(c_int);

impl Succeeded for ErrNo {
    fn ok(self) -> bool {
        self.0 == 0
    }
}

/// `call`, timed when the module records on this thread: Ok((its result,
/// start, end)); else Err(its result), passed straight through (one load
/// when the module is off).
#[inline(always)]
fn timed<R>(call: impl FnOnce() -> R) -> Result<(R, i64, i64), R> {
    if !POSIX_META.on() || !recording() {
        return Err(call());
    }
    let t1 = clock::now();
    let ret = call();
    Ok((ret, t1, clock::now()))
}

/// Whether a descriptor POSIX does not follow is worth naming through
/// /proc (a readlink): not once the module is partial, out of records,
/// when the name would most likely make no record either.
fn ask_proc() -> bool {
    runtime::core().ledger.partial_flags() & (1 << darshan_log::modules::POSIX_META) == 0
}

/// Time `call` when recording; on success count `k` on the path `path`
/// (relative to `dirfd` for the *at forms). With `empty_is_fd`
/// (AT_EMPTY_PATH given), an empty (or null) path names `dirfd` itself.
///
/// # Safety
/// `path` is null or a NUL-terminated string.
#[inline(always)]
unsafe fn on_path<R: Succeeded>(
    k: Counter,
    dirfd: Option<c_int>,
    path: *const c_char,
    empty_is_fd: bool,
    call: impl FnOnce() -> R,
) -> R {
    let (ret, t1, t2) = match timed(call) {
        Ok(timed) => timed,
        Err(ret) => return ret,
    };
    if ret.ok() {
        // SAFETY: the caller's NUL-terminated path.
        let empty = empty_is_fd && (path.is_null() || unsafe { *path } == 0);
        record(|| match (empty, dirfd) {
            (true, Some(fd)) => paths::with_fd_name(fd, ask_proc(), |n| POSIX_META.on_path(k, n, t1, t2)),
            // SAFETY: as above.
            _ => unsafe { paths::with_clean(dirfd, path, |n| POSIX_META.on_path(k, n, t1, t2)) },
        });
    }
    ret
}

/// As [`on_path`] for a call on the file open as `fd`.
#[inline(always)]
fn on_fd<R: Succeeded>(k: Counter, fd: c_int, call: impl FnOnce() -> R) -> R {
    let (ret, t1, t2) = match timed(call) {
        Ok(timed) => timed,
        Err(ret) => return ret,
    };
    if ret.ok() {
        record(|| paths::with_fd_name(fd, ask_proc(), |n| POSIX_META.on_path(k, n, t1, t2)));
    }
    ret
}

/// Wrappers of calls whose path is their first argument.
macro_rules! by_path {
    ($($name:ident => $k:ident, ($p:ident: *const c_char $(, $a:ident: $t:ty)*) -> $ret:ty;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name($p: *const c_char $(, $a: $t)*) -> $ret {
            let Some(r) = real::$name() else { return enosys() };
            // SAFETY: the caller's path, given to the real call unchanged.
            unsafe { on_path(c::$k, None, $p, false, || r($p $(, $a)*)) }
        }
    )*};
}

by_path! {
    unlink => UNLINKS, (path: *const c_char) -> c_int;
    // remove() is counted as an unlink even when it removed an empty
    // directory: glibc's remove calls its own unlink and rmdir, which no
    // wrapper sees, and the result does not say which one worked.
    remove => UNLINKS, (path: *const c_char) -> c_int;
    mkdir => MKDIRS, (path: *const c_char, mode: mode_t) -> c_int;
    rmdir => RMDIRS, (path: *const c_char) -> c_int;
    truncate => TRUNCATES, (path: *const c_char, len: off_t) -> c_int;
    truncate64 => TRUNCATES, (path: *const c_char, len: off64_t) -> c_int;
    chmod => CHMODS, (path: *const c_char, mode: mode_t) -> c_int;
    chown => CHOWNS, (path: *const c_char, uid: uid_t, gid: gid_t) -> c_int;
    lchown => CHOWNS, (path: *const c_char, uid: uid_t, gid: gid_t) -> c_int;
    access => ACCESSES, (path: *const c_char, mode: c_int) -> c_int;
    euidaccess => ACCESSES, (path: *const c_char, mode: c_int) -> c_int;
    eaccess => ACCESSES, (path: *const c_char, mode: c_int) -> c_int;
    readlink => READLINKS, (path: *const c_char, buf: *mut c_char, size: size_t) -> ssize_t;
    utime => UTIMES, (path: *const c_char, times: *const libc::utimbuf) -> c_int;
    utimes => UTIMES, (path: *const c_char, times: *const timeval) -> c_int;
    lutimes => UTIMES, (path: *const c_char, times: *const timeval) -> c_int;
    getxattr => XATTR_GETS, (path: *const c_char, name: *const c_char, v: *mut c_void, size: size_t) -> ssize_t;
    lgetxattr => XATTR_GETS, (path: *const c_char, name: *const c_char, v: *mut c_void, size: size_t) -> ssize_t;
    setxattr => XATTR_SETS, (path: *const c_char, name: *const c_char, v: *const c_void, size: size_t, flags: c_int) -> c_int;
    lsetxattr => XATTR_SETS, (path: *const c_char, name: *const c_char, v: *const c_void, size: size_t, flags: c_int) -> c_int;
}

/// Wrappers of calls on an open descriptor, their first argument.
macro_rules! by_fd {
    ($($name:ident => $k:ident, ($fd:ident: c_int $(, $a:ident: $t:ty)*) -> $ret:ty;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name($fd: c_int $(, $a: $t)*) -> $ret {
            let Some(r) = real::$name() else { return enosys() };
            // SAFETY: the caller's arguments, passed on unchanged to the
            // function the loader resolved under this name.
            on_fd(c::$k, $fd, || unsafe { r($fd $(, $a)*) })
        }
    )*};
}

by_fd! {
    ftruncate => TRUNCATES, (fd: c_int, len: off_t) -> c_int;
    ftruncate64 => TRUNCATES, (fd: c_int, len: off64_t) -> c_int;
    fallocate => FALLOCATES, (fd: c_int, mode: c_int, off: off_t, len: off_t) -> c_int;
    fallocate64 => FALLOCATES, (fd: c_int, mode: c_int, off: off64_t, len: off64_t) -> c_int;
    fchmod => CHMODS, (fd: c_int, mode: mode_t) -> c_int;
    fchown => CHOWNS, (fd: c_int, uid: uid_t, gid: gid_t) -> c_int;
    futimes => UTIMES, (fd: c_int, times: *const timeval) -> c_int;
    futimens => UTIMES, (fd: c_int, times: *const timespec) -> c_int;
    fgetxattr => XATTR_GETS, (fd: c_int, name: *const c_char, v: *mut c_void, size: size_t) -> ssize_t;
    fsetxattr => XATTR_SETS, (fd: c_int, name: *const c_char, v: *const c_void, size: size_t, flags: c_int) -> c_int;
}

/// posix_fallocate returns the error number instead of setting errno.
#[no_mangle]
pub unsafe extern "C" fn posix_fallocate(fd: c_int, off: off_t, len: off_t) -> c_int {
    let Some(r) = real::posix_fallocate() else { return libc::ENOSYS };
    // SAFETY: the caller's arguments, passed on to the real function.
    on_fd(c::FALLOCATES, fd, || ErrNo(unsafe { r(fd, off, len) })).0
}

#[no_mangle]
pub unsafe extern "C" fn posix_fallocate64(fd: c_int, off: off64_t, len: off64_t) -> c_int {
    let Some(r) = real::posix_fallocate64() else { return libc::ENOSYS };
    // SAFETY: the caller's arguments, passed on to the real function.
    on_fd(c::FALLOCATES, fd, || ErrNo(unsafe { r(fd, off, len) })).0
}

/// Wrappers of the *at calls: a directory descriptor and a path, with
/// `flags` (AT_EMPTY_PATH: the descriptor itself when the path is empty).
macro_rules! by_at {
    ($($name:ident => $k:expr, ($d:ident: c_int, $p:ident: *const c_char $(, $a:ident: $t:ty)*) -> $ret:ty, flags = $fl:expr;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name($d: c_int, $p: *const c_char $(, $a: $t)*) -> $ret {
            let Some(r) = real::$name() else { return enosys() };
            let empty_is_fd = ($fl) & libc::AT_EMPTY_PATH != 0;
            // SAFETY: the caller's path, given to the real call unchanged.
            unsafe { on_path($k, Some($d), $p, empty_is_fd, || r($d, $p $(, $a)*)) }
        }
    )*};
}

by_at! {
    unlinkat => if flags & libc::AT_REMOVEDIR != 0 { c::RMDIRS } else { c::UNLINKS },
        (dirfd: c_int, path: *const c_char, flags: c_int) -> c_int, flags = 0;
    mkdirat => c::MKDIRS, (dirfd: c_int, path: *const c_char, mode: mode_t) -> c_int, flags = 0;
    fchmodat => c::CHMODS, (dirfd: c_int, path: *const c_char, mode: mode_t, flags: c_int) -> c_int, flags = flags;
    fchownat => c::CHOWNS,
        (dirfd: c_int, path: *const c_char, uid: uid_t, gid: gid_t, flags: c_int) -> c_int, flags = flags;
    faccessat => c::ACCESSES, (dirfd: c_int, path: *const c_char, mode: c_int, flags: c_int) -> c_int, flags = flags;
    readlinkat => c::READLINKS,
        (dirfd: c_int, path: *const c_char, buf: *mut c_char, size: size_t) -> ssize_t, flags = 0;
    // A null path (Linux) names the descriptor itself, as AT_EMPTY_PATH does.
    utimensat => c::UTIMES,
        (dirfd: c_int, path: *const c_char, times: *const timespec, flags: c_int) -> c_int,
        flags = if path.is_null() { libc::AT_EMPTY_PATH } else { 0 };
}

/// link and symlink count on the new name (the link made).
#[no_mangle]
pub unsafe extern "C" fn link(old: *const c_char, new: *const c_char) -> c_int {
    let Some(r) = real::link() else { return enosys() };
    // SAFETY: the caller's paths, given to the real call unchanged.
    unsafe { on_path(c::LINKS, None, new, false, || r(old, new)) }
}

#[no_mangle]
pub unsafe extern "C" fn linkat(
    olddir: c_int,
    old: *const c_char,
    newdir: c_int,
    new: *const c_char,
    flags: c_int,
) -> c_int {
    let Some(r) = real::linkat() else { return enosys() };
    // SAFETY: as above.
    unsafe { on_path(c::LINKS, Some(newdir), new, false, || r(olddir, old, newdir, new, flags)) }
}

#[no_mangle]
pub unsafe extern "C" fn symlink(target: *const c_char, path: *const c_char) -> c_int {
    let Some(r) = real::symlink() else { return enosys() };
    // SAFETY: as above.
    unsafe { on_path(c::SYMLINKS, None, path, false, || r(target, path)) }
}

#[no_mangle]
pub unsafe extern "C" fn symlinkat(target: *const c_char, dirfd: c_int, path: *const c_char) -> c_int {
    let Some(r) = real::symlinkat() else { return enosys() };
    // SAFETY: as above.
    unsafe { on_path(c::SYMLINKS, Some(dirfd), path, false, || r(target, dirfd, path)) }
}

/// rename's *at forms (rename itself is POSIX's wrapper, which tells both
/// modules): counted on both paths.
#[no_mangle]
pub unsafe extern "C" fn renameat(olddir: c_int, old: *const c_char, newdir: c_int, new: *const c_char) -> c_int {
    let Some(r) = real::renameat() else { return enosys() };
    // SAFETY: as above.
    unsafe { renamed(Some(olddir), old, Some(newdir), new, || r(olddir, old, newdir, new)) }
}

#[no_mangle]
pub unsafe extern "C" fn renameat2(
    olddir: c_int,
    old: *const c_char,
    newdir: c_int,
    new: *const c_char,
    flags: libc::c_uint,
) -> c_int {
    let Some(r) = real::renameat2() else { return enosys() };
    // SAFETY: as above.
    unsafe { renamed(Some(olddir), old, Some(newdir), new, || r(olddir, old, newdir, new, flags)) }
}

/// # Safety
/// `old` and `new` are null or NUL-terminated strings.
unsafe fn renamed(
    olddir: Option<c_int>,
    old: *const c_char,
    newdir: Option<c_int>,
    new: *const c_char,
    call: impl FnOnce() -> c_int,
) -> c_int {
    let (ret, t1, t2) = match timed(call) {
        Ok(timed) => timed,
        Err(ret) => return ret,
    };
    if ret == 0 {
        // SAFETY: the caller's two NUL-terminated paths.
        record(|| unsafe {
            paths::with_clean(olddir, old, |o| paths::with_clean(newdir, new, |n| POSIX_META.on_rename(o, n, t1, t2)))
        });
    }
    ret
}

/// Directory streams: opened by path or descriptor, followed by the DIR*.
#[no_mangle]
pub unsafe extern "C" fn opendir(path: *const c_char) -> *mut DIR {
    let Some(r) = real::opendir() else { return enosys_null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let (d, t1, t2) = match timed(|| unsafe { r(path) }) {
        Ok(timed) => timed,
        Err(d) => return d,
    };
    if !d.is_null() {
        // SAFETY: the caller's NUL-terminated path.
        record(|| unsafe { paths::with_clean(None, path, |n| POSIX_META.on_opendir(d as usize, n, t1, t2)) });
    }
    d
}

#[no_mangle]
pub unsafe extern "C" fn fdopendir(fd: c_int) -> *mut DIR {
    let Some(r) = real::fdopendir() else { return enosys_null() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let (d, t1, t2) = match timed(|| unsafe { r(fd) }) {
        Ok(timed) => timed,
        Err(d) => return d,
    };
    if !d.is_null() {
        record(|| paths::with_fd_name(fd, ask_proc(), |n| POSIX_META.on_opendir(d as usize, n, t1, t2)));
    }
    d
}

macro_rules! readdirs {
    ($($name:ident -> $ent:ty;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(dir: *mut DIR) -> *mut $ent {
            let Some(r) = real::$name() else { return enosys_null() };
            if !POSIX_META.dirs_followed() {
                // SAFETY: the real function, with the caller's arguments unchanged.
                return unsafe { r(dir) };
            }
            // SAFETY: the real function, with the caller's arguments unchanged.
            let (e, t1, t2) = match timed(|| unsafe { r(dir) }) {
                Ok(timed) => timed,
                Err(e) => return e,
            };
            record(|| {
                if !POSIX_META.on_readdir(dir as usize, !e.is_null(), t1, t2) {
                    // A stream opened before this process was forked: its
                    // name from its descriptor, once.
                    // SAFETY: `dir` is the caller's open stream (readdir
                    // was just called on it); dirfd only reads it.
                    let fd = unsafe { libc::dirfd(dir) };
                    paths::with_fd_name(fd, ask_proc(), |n| {
                        POSIX_META.on_inherited_readdir(dir as usize, n, !e.is_null(), t1, t2)
                    });
                }
            });
            e
        }
    )*};
}

readdirs! {
    readdir -> libc::dirent;
    readdir64 -> libc::dirent64;
}

#[no_mangle]
pub unsafe extern "C" fn closedir(dir: *mut DIR) -> c_int {
    let Some(r) = real::closedir() else { return enosys() };
    if POSIX_META.dirs_followed() && recording() {
        // Forgotten before the real close, so that a stream opened at once
        // on another thread with the same address is not lost.
        record(|| POSIX_META.on_closedir(dir as usize));
    }
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(dir) }
}

/// mmap (POSIX's wrapper) tells this module of a file-backed mapping.
pub fn mapped(fd: c_int, addr: *mut c_void, len: size_t, prot: c_int, flags: c_int, t1: i64, t2: i64) {
    if !POSIX_META.on() {
        return;
    }
    let shared_write = flags & libc::MAP_SHARED != 0 && prot & libc::PROT_WRITE != 0;
    let m = darshan_posix_meta::Mapping { addr: addr as usize, len: len as u64, shared_write };
    paths::with_fd_name(fd, ask_proc(), |n| POSIX_META.on_mmap(n, m, t1, t2));
}

/// msync and munmap, counted on the mapping that starts at `addr`; while
/// no file-backed mapping is followed (anonymous memory: most munmaps),
/// one load and straight through.
#[inline(always)]
fn on_mapping(addr: *mut c_void, call: impl FnOnce() -> c_int, count: fn(&PosixMeta, usize, i64, i64)) -> c_int {
    if !POSIX_META.maps_live() {
        return call();
    }
    let (ret, t1, t2) = match timed(call) {
        Ok(timed) => timed,
        Err(ret) => return ret,
    };
    if ret == 0 {
        record(|| count(&POSIX_META, addr as usize, t1, t2));
    }
    ret
}

#[no_mangle]
pub unsafe extern "C" fn msync(addr: *mut c_void, len: size_t, flags: c_int) -> c_int {
    let Some(r) = real::msync() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    on_mapping(addr, || unsafe { r(addr, len, flags) }, PosixMeta::on_msync)
}

#[no_mangle]
pub unsafe extern "C" fn munmap(addr: *mut c_void, len: size_t) -> c_int {
    let Some(r) = real::munmap() else { return enosys() };
    crate::uring_wrap::ring_unmapped(addr);
    // SAFETY: the real function, with the caller's arguments unchanged.
    on_mapping(addr, || unsafe { r(addr, len) }, PosixMeta::on_munmap)
}
