//! Exported POSIX wrappers: each calls the real function exactly once,
//! timing it only when the call is recorded, and hands the result to the
//! POSIX module (docs/counter-rules.md §3).
#![allow(clippy::missing_safety_doc)]
// SAFETY (every wrapper in this file): the only unsafe operation in a
// wrapper's body, outside the blocks marked SAFETY, is calling the real
// function with the caller's arguments unchanged, so the caller's
// obligations are exactly those of the libc function it meant to call.

use std::sync::atomic::Ordering;

use darshan_posix::POSIX;
use libc::{c_char, c_int, c_uint, c_ulong, c_void, iovec, mode_t, off64_t, off_t, size_t, ssize_t};

use crate::guard::{enosys, record, record_data, recording};
use crate::host::MEM_ALIGN;
use crate::{clock, paths, real};

/// Whether a buffer address is a multiple of DARSHAN_MEMALIGN (a mask
/// when it is a power of two: no division per call).
#[inline(always)]
pub fn aligned(p: *const c_void) -> bool {
    let a = MEM_ALIGN.load(Ordering::Relaxed);
    if a & (a - 1) == 0 {
        (p as usize as i64) & (a - 1) == 0
    } else {
        (p as usize as i64) % a == 0
    }
}

/// # Safety
/// `iov` is null or points to `n` iovecs.
unsafe fn iov_aligned(iov: *const iovec, n: c_int) -> bool {
    if iov.is_null() || n <= 0 {
        return true;
    }
    // SAFETY: the caller passed `n` iovecs; the real call validated them.
    let v = unsafe { std::slice::from_raw_parts(iov, n.min(1024) as usize) };
    v.iter().all(|e| aligned(e.iov_base))
}

/// Time and record an open-like call that returns an fd.
///
/// # Safety
/// `path` is null or a NUL-terminated string.
#[inline(always)]
unsafe fn opened(dirfd: Option<c_int>, path: *const c_char, mode: i64, call: impl FnOnce() -> c_int) -> c_int {
    if !recording() {
        return call();
    }
    let t1 = clock::now();
    let fd = call();
    let t2 = clock::now();
    if fd >= 0 {
        // SAFETY: `path` as this function was given it.
        record(|| unsafe { paths::with_clean(dirfd, path, |name| POSIX.on_open(fd, name, mode, t1, t2)) });
    }
    fd
}

fn creat_mode(flags: c_int, mode: mode_t) -> (mode_t, i64) {
    if flags & (libc::O_CREAT | libc::O_TMPFILE) != 0 {
        (mode, if flags & libc::O_CREAT != 0 { mode as i64 } else { 0 })
    } else {
        (0, 0)
    }
}

/// Time and record a read or write on a tracked fd.
#[inline(always)]
fn data(fd: c_int, write: bool, off: Option<i64>, al: bool, call: impl FnOnce() -> ssize_t) -> ssize_t {
    if !recording() || POSIX.tracked(fd).is_none() {
        return call();
    }
    let t1 = clock::now();
    let r = call();
    let t2 = clock::now();
    if r >= 0 {
        record_data(|| {
            if write {
                POSIX.on_write(fd, r as i64, off, al, t1, t2)
            } else {
                POSIX.on_read(fd, r as i64, off, al, t1, t2)
            }
        });
        if clock::sampled(t2) {
            let core = darshan_core::runtime::core();
            core.cost.sample((clock::now() - t2).max(0) as u64, core.ledger.tick_secs());
        }
    }
    r
}

/// preadv2/pwritev2 use the current offset when given -1.
fn pos(off: i64) -> Option<i64> {
    (off != -1).then_some(off)
}

#[no_mangle]
pub unsafe extern "C" fn open(path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    let Some(r) = real::open() else { return enosys() };
    let (m, rec) = creat_mode(flags, mode);
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, path, rec, || r(path, flags, m)) }
}

#[no_mangle]
pub unsafe extern "C" fn open64(path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    let Some(r) = real::open64() else { return enosys() };
    let (m, rec) = creat_mode(flags, mode);
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, path, rec, || r(path, flags, m)) }
}

#[no_mangle]
pub unsafe extern "C" fn __open_2(path: *const c_char, flags: c_int) -> c_int {
    let Some(r) = real::__open_2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, path, 0, || r(path, flags)) }
}

#[no_mangle]
pub unsafe extern "C" fn __open64_2(path: *const c_char, flags: c_int) -> c_int {
    let Some(r) = real::__open64_2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, path, 0, || r(path, flags)) }
}

#[no_mangle]
pub unsafe extern "C" fn openat(dirfd: c_int, path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    let Some(r) = real::openat() else { return enosys() };
    let (m, rec) = creat_mode(flags, mode);
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(Some(dirfd), path, rec, || r(dirfd, path, flags, m)) }
}

#[no_mangle]
pub unsafe extern "C" fn openat64(dirfd: c_int, path: *const c_char, flags: c_int, mode: mode_t) -> c_int {
    let Some(r) = real::openat64() else { return enosys() };
    let (m, rec) = creat_mode(flags, mode);
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(Some(dirfd), path, rec, || r(dirfd, path, flags, m)) }
}

#[no_mangle]
pub unsafe extern "C" fn __openat_2(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
    let Some(r) = real::__openat_2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(Some(dirfd), path, 0, || r(dirfd, path, flags)) }
}

#[no_mangle]
pub unsafe extern "C" fn __openat64_2(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
    let Some(r) = real::__openat64_2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(Some(dirfd), path, 0, || r(dirfd, path, flags)) }
}

#[no_mangle]
pub unsafe extern "C" fn creat(path: *const c_char, mode: mode_t) -> c_int {
    let Some(r) = real::creat() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, path, mode as i64, || r(path, mode)) }
}

#[no_mangle]
pub unsafe extern "C" fn creat64(path: *const c_char, mode: mode_t) -> c_int {
    let Some(r) = real::creat64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, path, mode as i64, || r(path, mode)) }
}

#[no_mangle]
pub unsafe extern "C" fn mkstemp(t: *mut c_char) -> c_int {
    let Some(r) = real::mkstemp() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, t, 0, || r(t)) }
}

#[no_mangle]
pub unsafe extern "C" fn mkostemp(t: *mut c_char, flags: c_int) -> c_int {
    let Some(r) = real::mkostemp() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, t, 0, || r(t, flags)) }
}

#[no_mangle]
pub unsafe extern "C" fn mkstemps(t: *mut c_char, suffix: c_int) -> c_int {
    let Some(r) = real::mkstemps() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, t, 0, || r(t, suffix)) }
}

#[no_mangle]
pub unsafe extern "C" fn mkostemps(t: *mut c_char, suffix: c_int, flags: c_int) -> c_int {
    let Some(r) = real::mkostemps() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { opened(None, t, 0, || r(t, suffix, flags)) }
}

/// Time and record a call that makes `newfd` refer to `oldfd`'s file.
fn duped(oldfd: c_int, call: impl FnOnce() -> c_int) -> c_int {
    if !recording() {
        return call();
    }
    let t1 = clock::now();
    let newfd = call();
    let t2 = clock::now();
    if newfd >= 0 {
        record(|| POSIX.on_dup(oldfd, newfd, t1, t2));
    }
    newfd
}

#[no_mangle]
pub unsafe extern "C" fn dup(oldfd: c_int) -> c_int {
    let Some(r) = real::dup() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    duped(oldfd, || unsafe { r(oldfd) })
}

#[no_mangle]
pub unsafe extern "C" fn dup2(oldfd: c_int, newfd: c_int) -> c_int {
    let Some(r) = real::dup2() else { return enosys() };
    crate::uring_wrap::fd_closing(newfd);
    // SAFETY: the real function, with the caller's arguments unchanged.
    duped(oldfd, || unsafe { r(oldfd, newfd) })
}

#[no_mangle]
pub unsafe extern "C" fn dup3(oldfd: c_int, newfd: c_int, flags: c_int) -> c_int {
    let Some(r) = real::dup3() else { return enosys() };
    crate::uring_wrap::fd_closing(newfd);
    // SAFETY: the real function, with the caller's arguments unchanged.
    duped(oldfd, || unsafe { r(oldfd, newfd, flags) })
}

#[no_mangle]
pub unsafe extern "C" fn fcntl(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
    let Some(r) = real::fcntl() else { return enosys() };
    if cmd == libc::F_DUPFD || cmd == libc::F_DUPFD_CLOEXEC {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return duped(fd, || unsafe { r(fd, cmd, arg) });
    }
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(fd, cmd, arg) }
}

#[no_mangle]
pub unsafe extern "C" fn fcntl64(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
    let Some(r) = real::fcntl64() else { return enosys() };
    if cmd == libc::F_DUPFD || cmd == libc::F_DUPFD_CLOEXEC {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return duped(fd, || unsafe { r(fd, cmd, arg) });
    }
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(fd, cmd, arg) }
}

#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    let Some(r) = real::close() else { return enosys() };
    if !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(fd) };
    }
    crate::uring_wrap::closed_by_program(fd);
    if POSIX.tracked(fd).is_none() {
        POSIX.closed_untracked(fd);
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(fd) };
    }
    crate::lustre_wrap::file_closing(fd, || POSIX.id_of_fd(fd));
    // Forget the fd first: a concurrent open may get the number back.
    let idx = POSIX.take_fd(fd);
    let t1 = clock::now();
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(fd) };
    let t2 = clock::now();
    if let Some(i) = idx {
        record_data(|| POSIX.on_closed(i, t1, t2));
    }
    ret
}

#[no_mangle]
pub unsafe extern "C" fn read(fd: c_int, buf: *mut c_void, n: size_t) -> ssize_t {
    let Some(r) = real::read() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, false, None, aligned(buf), || unsafe { r(fd, buf, n) })
}

#[no_mangle]
pub unsafe extern "C" fn __read_chk(fd: c_int, buf: *mut c_void, n: size_t, len: size_t) -> ssize_t {
    let Some(r) = real::__read_chk() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, false, None, aligned(buf), || unsafe { r(fd, buf, n, len) })
}

#[no_mangle]
pub unsafe extern "C" fn write(fd: c_int, buf: *const c_void, n: size_t) -> ssize_t {
    let Some(r) = real::write() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, true, None, aligned(buf), || unsafe { r(fd, buf, n) })
}

#[no_mangle]
pub unsafe extern "C" fn pread(fd: c_int, buf: *mut c_void, n: size_t, off: off_t) -> ssize_t {
    let Some(r) = real::pread() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, false, Some(off), aligned(buf), || unsafe { r(fd, buf, n, off) })
}

#[no_mangle]
pub unsafe extern "C" fn pread64(fd: c_int, buf: *mut c_void, n: size_t, off: off64_t) -> ssize_t {
    let Some(r) = real::pread64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, false, Some(off), aligned(buf), || unsafe { r(fd, buf, n, off) })
}

#[no_mangle]
pub unsafe extern "C" fn __pread_chk(fd: c_int, buf: *mut c_void, n: size_t, off: off_t, len: size_t) -> ssize_t {
    let Some(r) = real::__pread_chk() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, false, Some(off), aligned(buf), || unsafe { r(fd, buf, n, off, len) })
}

#[no_mangle]
pub unsafe extern "C" fn __pread64_chk(fd: c_int, buf: *mut c_void, n: size_t, off: off64_t, len: size_t) -> ssize_t {
    let Some(r) = real::__pread64_chk() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, false, Some(off), aligned(buf), || unsafe { r(fd, buf, n, off, len) })
}

#[no_mangle]
pub unsafe extern "C" fn pwrite(fd: c_int, buf: *const c_void, n: size_t, off: off_t) -> ssize_t {
    let Some(r) = real::pwrite() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, true, Some(off), aligned(buf), || unsafe { r(fd, buf, n, off) })
}

#[no_mangle]
pub unsafe extern "C" fn pwrite64(fd: c_int, buf: *const c_void, n: size_t, off: off64_t) -> ssize_t {
    let Some(r) = real::pwrite64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    data(fd, true, Some(off), aligned(buf), || unsafe { r(fd, buf, n, off) })
}

#[no_mangle]
pub unsafe extern "C" fn readv(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
    let Some(r) = real::readv() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, false, None, iov_aligned(iov, cnt), || r(fd, iov, cnt)) }
}

#[no_mangle]
pub unsafe extern "C" fn writev(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
    let Some(r) = real::writev() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, true, None, iov_aligned(iov, cnt), || r(fd, iov, cnt)) }
}

#[no_mangle]
pub unsafe extern "C" fn preadv(fd: c_int, iov: *const iovec, cnt: c_int, off: off_t) -> ssize_t {
    let Some(r) = real::preadv() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, false, Some(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off)) }
}

#[no_mangle]
pub unsafe extern "C" fn preadv64(fd: c_int, iov: *const iovec, cnt: c_int, off: off64_t) -> ssize_t {
    let Some(r) = real::preadv64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, false, Some(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off)) }
}

#[no_mangle]
pub unsafe extern "C" fn preadv2(fd: c_int, iov: *const iovec, cnt: c_int, off: off_t, fl: c_int) -> ssize_t {
    let Some(r) = real::preadv2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, false, pos(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off, fl)) }
}

#[no_mangle]
pub unsafe extern "C" fn preadv64v2(fd: c_int, iov: *const iovec, cnt: c_int, off: off64_t, fl: c_int) -> ssize_t {
    let Some(r) = real::preadv64v2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, false, pos(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off, fl)) }
}

#[no_mangle]
pub unsafe extern "C" fn pwritev(fd: c_int, iov: *const iovec, cnt: c_int, off: off_t) -> ssize_t {
    let Some(r) = real::pwritev() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, true, Some(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off)) }
}

#[no_mangle]
pub unsafe extern "C" fn pwritev64(fd: c_int, iov: *const iovec, cnt: c_int, off: off64_t) -> ssize_t {
    let Some(r) = real::pwritev64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, true, Some(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off)) }
}

#[no_mangle]
pub unsafe extern "C" fn pwritev2(fd: c_int, iov: *const iovec, cnt: c_int, off: off_t, fl: c_int) -> ssize_t {
    let Some(r) = real::pwritev2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, true, pos(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off, fl)) }
}

#[no_mangle]
pub unsafe extern "C" fn pwritev64v2(fd: c_int, iov: *const iovec, cnt: c_int, off: off64_t, fl: c_int) -> ssize_t {
    let Some(r) = real::pwritev64v2() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { data(fd, true, pos(off), iov_aligned(iov, cnt), || r(fd, iov, cnt, off, fl)) }
}

/// Time and record a call on a tracked fd that returns an int status.
#[inline(always)]
fn on_fd<T: Copy + PartialOrd + Default>(fd: c_int, call: impl FnOnce() -> T, rec: impl FnOnce(T, i64, i64)) -> T {
    if !recording() || POSIX.tracked(fd).is_none() {
        return call();
    }
    let t1 = clock::now();
    let ret = call();
    let t2 = clock::now();
    if ret >= T::default() {
        record(|| rec(ret, t1, t2));
    }
    ret
}

#[no_mangle]
pub unsafe extern "C" fn lseek(fd: c_int, off: off_t, whence: c_int) -> off_t {
    let Some(r) = real::lseek() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    on_fd(fd, || unsafe { r(fd, off, whence) }, |p, t1, t2| POSIX.on_seek(fd, p, t1, t2))
}

#[no_mangle]
pub unsafe extern "C" fn lseek64(fd: c_int, off: off64_t, whence: c_int) -> off64_t {
    let Some(r) = real::lseek64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    on_fd(fd, || unsafe { r(fd, off, whence) }, |p, t1, t2| POSIX.on_seek(fd, p, t1, t2))
}

#[no_mangle]
pub unsafe extern "C" fn fsync(fd: c_int) -> c_int {
    let Some(r) = real::fsync() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    on_fd(fd, || unsafe { r(fd) }, |_, t1, t2| POSIX.on_sync(fd, false, t1, t2))
}

#[no_mangle]
pub unsafe extern "C" fn fdatasync(fd: c_int) -> c_int {
    let Some(r) = real::fdatasync() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    on_fd(fd, || unsafe { r(fd) }, |_, t1, t2| POSIX.on_sync(fd, true, t1, t2))
}

#[no_mangle]
pub unsafe extern "C" fn mmap(
    a: *mut c_void,
    len: size_t,
    prot: c_int,
    fl: c_int,
    fd: c_int,
    off: off_t,
) -> *mut c_void {
    let Some(r) = real::mmap() else { return libc::MAP_FAILED };
    // Anonymous memory passes straight through (a flag test).
    if fd < 0 || fl & libc::MAP_ANONYMOUS != 0 || !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(a, len, prot, fl, fd, off) };
    }
    let t1 = clock::now();
    // SAFETY: as above.
    let p = unsafe { r(a, len, prot, fl, fd, off) };
    let t2 = clock::now();
    if p != libc::MAP_FAILED {
        record(|| {
            POSIX.on_mmap(fd);
            crate::meta_wrap::mapped(fd, p, len, prot, fl, t1, t2);
            crate::uring_wrap::ring_mapped(fd, off, p, len);
        });
    }
    p
}

#[no_mangle]
pub unsafe extern "C" fn mmap64(
    a: *mut c_void,
    len: size_t,
    prot: c_int,
    fl: c_int,
    fd: c_int,
    off: off64_t,
) -> *mut c_void {
    let Some(r) = real::mmap64() else { return libc::MAP_FAILED };
    // Anonymous memory passes straight through (a flag test).
    if fd < 0 || fl & libc::MAP_ANONYMOUS != 0 || !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(a, len, prot, fl, fd, off) };
    }
    let t1 = clock::now();
    // SAFETY: as above.
    let p = unsafe { r(a, len, prot, fl, fd, off) };
    let t2 = clock::now();
    if p != libc::MAP_FAILED {
        record(|| {
            POSIX.on_mmap(fd);
            crate::meta_wrap::mapped(fd, p, len, prot, fl, t1, t2);
            crate::uring_wrap::ring_mapped(fd, off, p, len);
        });
    }
    p
}

/// In-kernel copies (cp uses copy_file_range, many tools sendfile): a
/// read on the source and a write on the target, which the C runtime
/// misses entirely. `off` pointers give positional offsets when set.
fn kernel_copy(
    fd_in: c_int,
    off_in: Option<i64>,
    fd_out: c_int,
    off_out: Option<i64>,
    call: impl FnOnce() -> ssize_t,
) -> ssize_t {
    if !recording() || (POSIX.tracked(fd_in).is_none() && POSIX.tracked(fd_out).is_none()) {
        return call();
    }
    let t1 = clock::now();
    let r = call();
    let t2 = clock::now();
    if r >= 0 {
        record(|| {
            POSIX.on_read(fd_in, r as i64, off_in, true, t1, t2);
            POSIX.on_write(fd_out, r as i64, off_out, true, t1, t2);
        });
    }
    r
}

/// # Safety
/// `p` is null or points to a readable `T`.
unsafe fn peek<T: Copy + Into<i64>>(p: *mut T) -> Option<i64> {
    // SAFETY: a non-null offset pointer of these calls points to an off_t.
    (!p.is_null()).then(|| unsafe { *p }.into())
}

#[no_mangle]
pub unsafe extern "C" fn copy_file_range(
    fd_in: c_int,
    off_in: *mut off64_t,
    fd_out: c_int,
    off_out: *mut off64_t,
    len: size_t,
    flags: c_uint,
) -> ssize_t {
    let Some(r) = real::copy_file_range() else { return enosys() };
    // SAFETY: Pointers: the caller's, as the C function documents them, or null.
    let (a, b) = unsafe { (peek(off_in), peek(off_out)) };
    // SAFETY: the real function, with the caller's arguments unchanged.
    kernel_copy(fd_in, a, fd_out, b, || unsafe { r(fd_in, off_in, fd_out, off_out, len, flags) })
}

#[no_mangle]
pub unsafe extern "C" fn sendfile(out_fd: c_int, in_fd: c_int, off: *mut off_t, count: size_t) -> ssize_t {
    let Some(r) = real::sendfile() else { return enosys() };
    // SAFETY: Pointers: the caller's, as the C function documents them, or null.
    let a = unsafe { peek(off) };
    // SAFETY: the real function, with the caller's arguments unchanged.
    kernel_copy(in_fd, a, out_fd, None, || unsafe { r(out_fd, in_fd, off, count) })
}

#[no_mangle]
pub unsafe extern "C" fn sendfile64(out_fd: c_int, in_fd: c_int, off: *mut off64_t, count: size_t) -> ssize_t {
    let Some(r) = real::sendfile64() else { return enosys() };
    // SAFETY: Pointers: the caller's, as the C function documents them, or null.
    let a = unsafe { peek(off) };
    // SAFETY: the real function, with the caller's arguments unchanged.
    kernel_copy(in_fd, a, out_fd, None, || unsafe { r(out_fd, in_fd, off, count) })
}

#[no_mangle]
pub unsafe extern "C" fn rename(old: *const c_char, new: *const c_char) -> c_int {
    let Some(r) = real::rename() else { return enosys() };
    if !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(old, new) };
    }
    let t1 = clock::now();
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(old, new) };
    let t2 = clock::now();
    if ret == 0 {
        // SAFETY: the caller's two NUL-terminated paths.
        record(|| unsafe {
            paths::with_clean(None, old, |o| {
                paths::with_clean(None, new, |n| {
                    POSIX.on_rename(o, n, t1, t2);
                    if darshan_posix_meta::POSIX_META.on() {
                        darshan_posix_meta::POSIX_META.on_rename(o, n, t1, t2);
                    }
                })
            })
        });
    }
    ret
}

/// # Safety
/// `cb` is null or the caller's aiocb.
unsafe fn aio_submit(cb: *mut libc::aiocb, write: bool, call: impl FnOnce() -> c_int) -> c_int {
    let ret = call();
    if ret == 0 && !cb.is_null() && recording() {
        let t = clock::now();
        // SAFETY: a queued aiocb is valid until aio_return.
        let fd = unsafe { (*cb).aio_fildes };
        record(|| POSIX.on_aio_submit(fd, cb as usize, write, t));
    }
    ret
}

#[no_mangle]
pub unsafe extern "C" fn aio_read(cb: *mut libc::aiocb) -> c_int {
    let Some(r) = real::aio_read() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { aio_submit(cb, false, || r(cb)) }
}

#[no_mangle]
pub unsafe extern "C" fn aio_write(cb: *mut libc::aiocb) -> c_int {
    let Some(r) = real::aio_write() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { aio_submit(cb, true, || r(cb)) }
}

#[no_mangle]
pub unsafe extern "C" fn aio_read64(cb: *mut libc::aiocb) -> c_int {
    let Some(r) = real::aio_read64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { aio_submit(cb, false, || r(cb)) }
}

#[no_mangle]
pub unsafe extern "C" fn aio_write64(cb: *mut libc::aiocb) -> c_int {
    let Some(r) = real::aio_write64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { aio_submit(cb, true, || r(cb)) }
}

/// # Safety
/// `cb` is null or the caller's aiocb.
unsafe fn aio_done(cb: *mut libc::aiocb, call: impl FnOnce() -> ssize_t) -> ssize_t {
    let ret = call();
    if !cb.is_null() && recording() {
        let t2 = clock::now();
        // SAFETY: the aiocb is still owned by the caller.
        let (fd, off, buf) = unsafe { ((*cb).aio_fildes, (*cb).aio_offset, (*cb).aio_buf) };
        record(|| POSIX.on_aio_return(fd, cb as usize, ret as i64, off, aligned(buf), t2));
    }
    ret
}

#[no_mangle]
pub unsafe extern "C" fn aio_return(cb: *mut libc::aiocb) -> ssize_t {
    let Some(r) = real::aio_return() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { aio_done(cb, || r(cb)) }
}

#[no_mangle]
pub unsafe extern "C" fn aio_return64(cb: *mut libc::aiocb) -> ssize_t {
    let Some(r) = real::aio_return64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { aio_done(cb, || r(cb)) }
}

/// # Safety
/// `list` is null or holds `n` entries, each null or an aiocb.
unsafe fn lio(list: *const *mut libc::aiocb, n: c_int, call: impl FnOnce() -> c_int) -> c_int {
    let ret = call();
    if ret == 0 && !list.is_null() && n > 0 && recording() {
        let t = clock::now();
        // SAFETY: the caller passed `n` entries (null entries are allowed).
        let cbs = unsafe { std::slice::from_raw_parts(list, n as usize) };
        record(|| {
            for &cb in cbs.iter().filter(|c| !c.is_null()) {
                // SAFETY: non-null entries point to queued aiocbs.
                let (fd, op) = unsafe { ((*cb).aio_fildes, (*cb).aio_lio_opcode) };
                if op == libc::LIO_READ || op == libc::LIO_WRITE {
                    POSIX.on_aio_submit(fd, cb as usize, op == libc::LIO_WRITE, t);
                }
            }
        });
    }
    ret
}

#[no_mangle]
pub unsafe extern "C" fn lio_listio(m: c_int, l: *const *mut libc::aiocb, n: c_int, s: *mut libc::sigevent) -> c_int {
    let Some(r) = real::lio_listio() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { lio(l, n, || r(m, l, n, s)) }
}

#[no_mangle]
pub unsafe extern "C" fn lio_listio64(m: c_int, l: *const *mut libc::aiocb, n: c_int, s: *mut libc::sigevent) -> c_int {
    let Some(r) = real::lio_listio64() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    // Pointers: the caller's, as the C function documents them, or null.
    unsafe { lio(l, n, || r(m, l, n, s)) }
}

#[no_mangle]
pub unsafe extern "C" fn fork() -> libc::pid_t {
    crate::init::fork()
}

#[no_mangle]
pub unsafe extern "C" fn _exit(status: c_int) -> ! {
    let _ = std::panic::catch_unwind(crate::init::shutdown);
    if let Some(r) = real::_exit() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        unsafe { r(status) };
    }
    // SAFETY: no real _exit was found: end the process as it would.
    unsafe { libc::syscall(libc::SYS_exit_group, status) };
    // exit_group does not return; the function's type needs an end that
    // does not either.
    loop {
        std::hint::spin_loop()
    }
}

#[no_mangle]
pub unsafe extern "C" fn _Exit(status: c_int) -> ! {
    let _ = std::panic::catch_unwind(crate::init::shutdown);
    if let Some(r) = real::_Exit() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        unsafe { r(status) };
    }
    // SAFETY: no real _exit was found: end the process as it would.
    unsafe { libc::syscall(libc::SYS_exit_group, status) };
    // exit_group does not return; the function's type needs an end that
    // does not either.
    loop {
        std::hint::spin_loop()
    }
}
