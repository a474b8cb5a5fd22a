//! The working directory, for naming relative paths, cached.
//!
//! Darshan calls `getcwd` for every call on a relative path. That is a
//! system call of about 190 ns here, as much as the `lstat` it names:
//! `git status` in a 2,000-file repository made 2,027 of them, 0.5 ms of
//! its 4 ms. The directory changes only through a few calls, which are
//! interposed here and invalidate the cache (chdir, fchdir, chroot,
//! setns, unshare, daemon), or inside glibc, where no interposition sees
//! them: `nftw` with FTW_CHDIR and `fts` without FTS_NOCHDIR change
//! directory with glibc's internal fchdir, so the cache is not used while
//! one of those walks is running. `unshare(CLONE_FS)` gives one thread a
//! directory of its own; the cache is then off for good.
//!
//! What no interposition sees (a raw `syscall(SYS_chdir)`, a `clone`
//! without CLONE_FS, another process renaming a parent directory) is
//! bounded by age: an entry older than [`MAX_AGE_SECS`] is read again.
//!
//! The cache is a seqlock over atomics: a reader never waits (wrappers
//! may run in signal handlers), a writer that finds another writer busy
//! simply does not fill it, and nothing here allocates.

use std::sync::atomic::{fence, AtomicBool, AtomicI64, AtomicU32, AtomicU64, AtomicUsize, Ordering};

use darshan_core::paths::PATH_MAX;
use libc::{c_char, c_int, c_void};

use crate::guard::{enosys, enosys_null};
use crate::{clock, real};

/// An entry is read again from the kernel after this long.
pub const MAX_AGE_SECS: f64 = 0.01;

const WORDS: usize = PATH_MAX / 8;
/// Even: the entry may be read; odd: a writer is filling it.
static SEQ: AtomicU64 = AtomicU64::new(0);
/// Bumped by every call that may change the directory; an entry is valid
/// only if it was read while GEN had the value it has now.
static GEN: AtomicU64 = AtomicU64::new(1);
static ENTRY_GEN: AtomicU64 = AtomicU64::new(0);
static ENTRY_TICK: AtomicI64 = AtomicI64::new(0);
static LEN: AtomicUsize = AtomicUsize::new(0);
static BYTES: [AtomicU64; WORDS] = [const { AtomicU64::new(0) }; WORDS];
/// Age limit in clock ticks (0: not known yet, no caching).
static MAX_AGE: AtomicI64 = AtomicI64::new(0);
/// nftw/fts walks running that change directory inside glibc.
static WALKS: AtomicU32 = AtomicU32::new(0);
/// Threads may have different directories (unshare(CLONE_FS)).
static NEVER: AtomicBool = AtomicBool::new(false);

/// Start-up (and a forked child, whose clock restarts): ticks per age
/// limit; an entry from before is dropped.
pub fn start(secs_per_tick: f64) {
    if secs_per_tick > 0.0 {
        MAX_AGE.store((MAX_AGE_SECS / secs_per_tick) as i64, Ordering::Relaxed);
    }
    // A fork in a signal handler may have caught a writer: start even.
    let s = SEQ.load(Ordering::Relaxed);
    SEQ.store(s & !1, Ordering::Relaxed);
    changed();
}

/// The directory may have changed.
pub fn changed() {
    GEN.fetch_add(1, Ordering::AcqRel);
}

/// The working directory into `buf` (NUL-terminated), its length; None
/// if it cannot be had (deleted, longer than `buf`).
pub fn get(buf: &mut [u8]) -> Option<usize> {
    let gen = GEN.load(Ordering::Acquire);
    let usable = !NEVER.load(Ordering::Relaxed) && WALKS.load(Ordering::Relaxed) == 0;
    if usable {
        if let Some(n) = cached(gen, buf) {
            return Some(n);
        }
    }
    // SAFETY: the buffer is writable for its length.
    let p = unsafe { libc::getcwd(buf.as_mut_ptr().cast(), buf.len()) };
    if p.is_null() {
        return None;
    }
    let n = buf.iter().position(|&c| c == 0)?;
    if usable {
        fill(gen, &buf[..n]);
    }
    Some(n)
}

fn cached(gen: u64, buf: &mut [u8]) -> Option<usize> {
    let s1 = SEQ.load(Ordering::Acquire);
    if s1 & 1 == 1 || ENTRY_GEN.load(Ordering::Relaxed) != gen {
        return None;
    }
    let age = clock::now().wrapping_sub(ENTRY_TICK.load(Ordering::Relaxed));
    if !(0..=MAX_AGE.load(Ordering::Relaxed)).contains(&age) {
        return None;
    }
    let n = LEN.load(Ordering::Relaxed);
    if n == 0 || n >= buf.len() || n > PATH_MAX {
        return None;
    }
    // Whole words (n < buf.len(), and the buffers are whole words long):
    // a fixed-size store each, not a memcpy call per word (five per
    // relative path in a 40-byte directory). Bytes past `n` are the
    // caller's scratch; a buffer of odd length falls back to getcwd.
    let words = n.div_ceil(8);
    let dst = buf.get_mut(..words * 8)?;
    for (k, chunk) in dst.chunks_exact_mut(8).enumerate() {
        chunk.copy_from_slice(&BYTES[k].load(Ordering::Relaxed).to_le_bytes());
    }
    fence(Ordering::Acquire);
    if SEQ.load(Ordering::Relaxed) != s1 {
        return None;
    }
    buf[n] = 0;
    Some(n)
}

fn fill(gen: u64, dir: &[u8]) {
    let s = SEQ.load(Ordering::Relaxed);
    if s & 1 == 1 || dir.len() > PATH_MAX {
        return;
    }
    if SEQ.compare_exchange(s, s + 1, Ordering::Relaxed, Ordering::Relaxed).is_err() {
        return;
    }
    fence(Ordering::Release);
    for (k, chunk) in dir.chunks(8).enumerate() {
        let mut w = [0u8; 8];
        w[..chunk.len()].copy_from_slice(chunk);
        BYTES[k].store(u64::from_le_bytes(w), Ordering::Relaxed);
    }
    LEN.store(dir.len(), Ordering::Relaxed);
    ENTRY_GEN.store(gen, Ordering::Relaxed);
    ENTRY_TICK.store(clock::now(), Ordering::Relaxed);
    SEQ.store(s + 2, Ordering::Release);
}

/// fts streams that change directory, by address: fts_close ends the walk.
const FTS_SLOTS: usize = 16;
static FTS_OPEN: [AtomicUsize; FTS_SLOTS] = [const { AtomicUsize::new(0) }; FTS_SLOTS];

fn fts_opened(fts: usize) {
    WALKS.fetch_add(1, Ordering::AcqRel);
    if !FTS_OPEN.iter().any(|s| s.compare_exchange(0, fts, Ordering::AcqRel, Ordering::Relaxed).is_ok()) {
        // More walks at once than slots: never know when they end.
        NEVER.store(true, Ordering::Relaxed);
    }
}

fn fts_closing(fts: usize) {
    if FTS_OPEN.iter().any(|s| s.compare_exchange(fts, 0, Ordering::AcqRel, Ordering::Relaxed).is_ok()) {
        WALKS.fetch_sub(1, Ordering::AcqRel);
    }
}

// The wrappers below record nothing: each calls the real function with
// the caller's arguments unchanged (so the caller's obligations are those
// of the libc function it meant to call) and touches only atomics, which
// leave errno as the real call set it.

/// A call that may have changed the directory returned `ret`.
fn changed_after<T>(ret: T) -> T {
    changed();
    ret
}

/// `call` changes directory inside glibc: the cache is unused while it
/// runs and dropped after.
fn walking<T>(call: impl FnOnce() -> T) -> T {
    WALKS.fetch_add(1, Ordering::AcqRel);
    let ret = call();
    WALKS.fetch_sub(1, Ordering::AcqRel);
    changed_after(ret)
}

#[no_mangle]
pub unsafe extern "C" fn chdir(path: *const c_char) -> c_int {
    let Some(r) = real::chdir() else { return enosys() };
    // SAFETY: the real function, with the caller's argument unchanged.
    changed_after(unsafe { r(path) })
}

#[no_mangle]
pub unsafe extern "C" fn fchdir(fd: c_int) -> c_int {
    let Some(r) = real::fchdir() else { return enosys() };
    // SAFETY: as above.
    changed_after(unsafe { r(fd) })
}

/// getcwd's answer is relative to the root.
#[no_mangle]
pub unsafe extern "C" fn chroot(path: *const c_char) -> c_int {
    let Some(r) = real::chroot() else { return enosys() };
    // SAFETY: as above.
    changed_after(unsafe { r(path) })
}

/// Joining a mount namespace moves the root and the directory.
#[no_mangle]
pub unsafe extern "C" fn setns(fd: c_int, nstype: c_int) -> c_int {
    let Some(r) = real::setns() else { return enosys() };
    // SAFETY: as above.
    changed_after(unsafe { r(fd, nstype) })
}

#[no_mangle]
pub unsafe extern "C" fn unshare(flags: c_int) -> c_int {
    let Some(r) = real::unshare() else { return enosys() };
    if flags & libc::CLONE_FS != 0 {
        // From now on this thread's directory is its own.
        NEVER.store(true, Ordering::Relaxed);
    }
    // SAFETY: as above.
    changed_after(unsafe { r(flags) })
}

/// daemon(nochdir = 0) changes to "/" with glibc's internal chdir.
#[no_mangle]
pub unsafe extern "C" fn daemon(nochdir: c_int, noclose: c_int) -> c_int {
    let Some(r) = real::daemon() else { return enosys() };
    // SAFETY: as above.
    changed_after(unsafe { r(nochdir, noclose) })
}

/// FTW_CHDIR (ftw.h): nftw changes directory for each entry.
const FTW_CHDIR: c_int = 4;

#[no_mangle]
pub unsafe extern "C" fn nftw(dir: *const c_char, f: *mut c_void, nopenfd: c_int, flags: c_int) -> c_int {
    let Some(r) = real::nftw() else { return enosys() };
    // SAFETY: as above.
    let call = || unsafe { r(dir, f, nopenfd, flags) };
    if flags & FTW_CHDIR != 0 {
        walking(call)
    } else {
        call()
    }
}

#[no_mangle]
pub unsafe extern "C" fn nftw64(dir: *const c_char, f: *mut c_void, nopenfd: c_int, flags: c_int) -> c_int {
    let Some(r) = real::nftw64() else { return enosys() };
    // SAFETY: as above.
    let call = || unsafe { r(dir, f, nopenfd, flags) };
    if flags & FTW_CHDIR != 0 {
        walking(call)
    } else {
        call()
    }
}

/// FTS_NOCHDIR (fts.h): without it fts changes directory from fts_open
/// (which may itself) to fts_close.
const FTS_NOCHDIR: c_int = 0x0004;

type FtsOpen = unsafe extern "C" fn(*const *mut c_char, c_int, *mut c_void) -> *mut c_void;

fn fts_open_with(call: impl FnOnce() -> *mut c_void, options: c_int) -> *mut c_void {
    if options & FTS_NOCHDIR != 0 {
        return call();
    }
    walking(|| {
        let fts = call();
        if !fts.is_null() {
            fts_opened(fts as usize);
        }
        fts
    })
}

#[no_mangle]
pub unsafe extern "C" fn fts_open(argv: *const *mut c_char, options: c_int, compar: *mut c_void) -> *mut c_void {
    let Some(r): Option<FtsOpen> = real::fts_open() else { return enosys_null() };
    // SAFETY: as above.
    fts_open_with(|| unsafe { r(argv, options, compar) }, options)
}

#[no_mangle]
pub unsafe extern "C" fn fts64_open(argv: *const *mut c_char, options: c_int, compar: *mut c_void) -> *mut c_void {
    let Some(r): Option<FtsOpen> = real::fts64_open() else { return enosys_null() };
    // SAFETY: as above.
    fts_open_with(|| unsafe { r(argv, options, compar) }, options)
}

/// fts_close goes back to the directory fts_open started in.
fn fts_close_with(fts: *mut c_void, call: impl FnOnce() -> c_int) -> c_int {
    let ret = call();
    fts_closing(fts as usize);
    changed_after(ret)
}

#[no_mangle]
pub unsafe extern "C" fn fts_close(fts: *mut c_void) -> c_int {
    let Some(r) = real::fts_close() else { return enosys() };
    // SAFETY: as above.
    fts_close_with(fts, || unsafe { r(fts) })
}

#[no_mangle]
pub unsafe extern "C" fn fts64_close(fts: *mut c_void) -> c_int {
    let Some(r) = real::fts64_close() else { return enosys() };
    // SAFETY: as above.
    fts_close_with(fts, || unsafe { r(fts) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_used_only_in_its_generation_and_when_it_fits() {
        MAX_AGE.store(i64::MAX, Ordering::Relaxed);
        let gen = GEN.load(Ordering::Acquire);
        fill(gen, b"/some/dir");
        let mut buf = [0xffu8; 64];
        assert_eq!(cached(gen, &mut buf), Some(9));
        assert_eq!(&buf[..10], b"/some/dir\0");
        assert_eq!(cached(gen, &mut [0u8; 9]), None, "no room for the NUL");
        changed();
        assert_eq!(cached(GEN.load(Ordering::Acquire), &mut buf), None);
    }
}
