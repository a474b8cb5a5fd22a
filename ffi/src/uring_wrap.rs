//! io_uring, seen through every door a program uses (docs/io-uring.md):
//! libc's `syscall()` for `io_uring_setup`/`_enter`/`_register` (what fio
//! does; every other number passes straight through), the `mmap`s of a
//! ring descriptor (posix_wrap.rs calls [`ring_mapped`]), and liburing's
//! exported functions, which make their own system calls. At each call
//! on a ring: the submission entries the kernel took during the call are
//! read and counted, then the completion queue from our own cursor.
#![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
// SAFETY (every wrapper in this file): the only unsafe operation in a
// wrapper's body, outside the blocks marked SAFETY, is calling the real
// function with the caller's arguments unchanged, so the caller's
// obligations are exactly those of the function it meant to call.

use darshan_io_uring::{ops, Cqe, Region, RingView, Sqe, IO_URING, MAX_RINGS};
use libc::{c_int, c_long, c_uint, c_void};

use crate::guard::{enosys, record, recording};
use crate::uring_ring::{self as ring, BATCH};
use crate::{clock, paths, real};

const SYS_IO_URING_SETUP: c_long = 425;
const SYS_IO_URING_ENTER: c_long = 426;
const SYS_IO_URING_REGISTER: c_long = 427;
/// IORING_ENTER_REGISTERED_RING: the fd is an index we cannot map.
const ENTER_REGISTERED_RING: c_uint = 1 << 4;

/// The descriptors the requests of a batch act on, named (their POSIX
/// record's name, or /proc/self/fd's link) before they are counted.
fn name_new_fds(fd: i32, sqes: &[Sqe]) {
    let mut unknown = [0i32; BATCH];
    let n = IO_URING.unknown_fds(fd, sqes, &mut unknown);
    name_fds(&unknown[..n]);
}

/// Each of `unknown` named, or known not to be a file.
fn name_fds(unknown: &[i32]) {
    for &target in unknown {
        let mut named = false;
        paths::with_fd_name(target, true, |name| {
            named = true;
            IO_URING.bind_fd(target, Some(name));
        });
        if !named {
            IO_URING.bind_fd(target, None);
        }
    }
}

/// Files a batch (from SQ position `pos`) puts in ring `fd`'s registered
/// slots itself: an open "direct" named from its path (relative to its
/// directory descriptor) before it is counted; a files update of the
/// ring's own (IORING_OP_FILES_UPDATE at a given index) registered as
/// `io_uring_register`'s is. Each once: a wrapper inside another reads
/// the entry again. Never inlined: its PATH_MAX buffer is taken only here.
#[inline(never)]
fn direct_files(fd: i32, pos: u32, sqes: &mut [Sqe]) {
    let mut path = [0u8; libc::PATH_MAX as usize];
    for (k, s) in sqes.iter_mut().enumerate() {
        let fills = s.opens_file() || s.opcode == ops::OP_FILES_UPDATE;
        if !fills || !IO_URING.not_counted(fd, pos.wrapping_add(k as u32)) {
            continue;
        }
        if s.opens_file() && ring::read_user_str(s.addr, &mut path).is_some() {
            // SAFETY: `path` holds a NUL-terminated string.
            unsafe {
                paths::with_clean(Some(s.fd), path.as_ptr().cast(), |name| s.opened = IO_URING.slot_value_of(name))
            };
        }
        let first = u32::try_from(s.off).ok().filter(|&i| i != ops::FILE_INDEX_ALLOC);
        if let (ops::OP_FILES_UPDATE, Some(first)) = (s.opcode, first) {
            register_files(fd, first, s.addr, s.bytes as u32, false);
        }
    }
}

/// The entries at SQ positions `from..to` were submitted at tick `t`.
///
/// # Safety
/// `v` describes the live ring `fd`.
unsafe fn count_submitted(fd: i32, v: &RingView, from: u32, to: u32, t: i64) {
    // At most one lap: older slots hold newer entries now (the module
    // counts the gap as unobserved).
    let lap = v.sq_mask.wrapping_add(1);
    let mut pos = if to.wrapping_sub(from) > lap { to.wrapping_sub(lap) } else { from };
    let mut buf = [Sqe::default(); BATCH];
    let mut counted = 0;
    while (to.wrapping_sub(pos) as i32) > 0 {
        // SAFETY: the caller's.
        let n = unsafe { ring::sqes(v, pos, to, &mut buf) };
        if buf[..n].iter().any(|s| s.opens_file() || s.opcode == ops::OP_FILES_UPDATE) {
            direct_files(fd, pos, &mut buf[..n]);
        }
        name_new_fds(fd, &buf[..n]);
        counted += IO_URING.on_submit(fd, pos, &buf[..n], to, t);
        pos = pos.wrapping_add(n as u32);
    }
    if counted > 0 {
        IO_URING.on_submit_call(fd);
    }
}

/// Read the completions posted since our cursor. A completion slot the
/// program consumed stays readable until the kernel writes the one
/// `cq_entries` later: those older than that are lost (counted as not
/// seen at shutdown), as is any the kernel overwrote while we read.
///
/// # Safety
/// `v` describes the live ring `fd`.
unsafe fn scan_completions(fd: i32, v: &RingView, cursor: u32, t: i64) {
    // SAFETY: the caller's.
    let tail = unsafe { ring::cursor(v.cq_tail) };
    let mut pos = cursor;
    if tail.wrapping_sub(pos) > v.cq_entries {
        pos = tail.wrapping_sub(v.cq_entries);
    }
    let mut buf = [Cqe::default(); BATCH];
    while (tail.wrapping_sub(pos) as i32) > 0 {
        // SAFETY: the caller's.
        let n = unsafe { ring::cqes(v, pos, tail, &mut buf) };
        // SAFETY: as above. Entries the kernel may have rewritten while we
        // read (a full lap behind its tail now) are dropped.
        let now_tail = unsafe { ring::cursor(v.cq_tail) };
        let oldest_intact = now_tail.wrapping_sub(v.cq_entries);
        let skip = (0..n).take_while(|&k| (pos.wrapping_add(k as u32).wrapping_sub(oldest_intact) as i32) < 0).count();
        pos = pos.wrapping_add(n as u32);
        IO_URING.on_complete(fd, &buf[skip..n], pos, t);
    }
}

/// A call on ring `fd` (its view `v`, if mapped): time it, count what it
/// submitted and what has completed.
fn on_ring<R: Copy>(fd: i32, call: impl FnOnce() -> R) -> R {
    let Some((v, _)) = IO_URING.view(fd) else { return call() };
    // SAFETY: the ring is mapped (we drop a view at munmap/close) and in
    // use by this call.
    let head = unsafe { ring::cursor(v.sq_head) };
    let t1 = clock::now();
    let r = call();
    let t2 = clock::now();
    record(|| {
        // SAFETY: as above; the program is blocked in no other use of the
        // ring's entries that the kernel took during its own call.
        unsafe {
            let after = ring::cursor(v.sq_head);
            count_submitted(fd, &v, head, after, t1);
            // The cursor as it is now: a liburing call inside this one
            // (liburing calls its own exports) may have moved it.
            if let Some((v, cursor)) = IO_URING.view(fd) {
                scan_completions(fd, &v, cursor, t2);
            }
        }
    });
    r
}

/// `syscall(2)`: the three io_uring numbers are seen, every other passes
/// straight through (one comparison). Defined with a fixed arity, which
/// the x86-64 and aarch64 Linux calling conventions make the same as the
/// variadic one (docs/interposition.md rule 12), and forwarding all six
/// argument registers as glibc's own `syscall` does.
#[no_mangle]
pub unsafe extern "C" fn syscall(
    n: c_long,
    a1: c_long,
    a2: c_long,
    a3: c_long,
    a4: c_long,
    a5: c_long,
    a6: c_long,
) -> c_long {
    let Some(r) = real::syscall() else { return enosys() };
    if n == libc::SYS_seccomp || n == libc::SYS_prctl {
        // SAFETY: the real function, with the caller's arguments unchanged.
        let ret = unsafe { r(n, a1, a2, a3, a4, a5, a6) };
        // SAFETY: `ret` is the real call's result for these arguments.
        unsafe { crate::seccomp_wrap::after_syscall(n, [a1, a2, a3], ret) };
        return ret;
    }
    if !(SYS_IO_URING_SETUP..=SYS_IO_URING_REGISTER).contains(&n) || !IO_URING.on() || !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged
        // (the fast path: a direct call, nothing spilled before the test).
        return unsafe { r(n, a1, a2, a3, a4, a5, a6) };
    }
    // SAFETY: as above, inside.
    unsafe { uring_syscall(r, [n, a1, a2, a3, a4, a5, a6]) }
}

type RealSyscall = unsafe extern "C" fn(c_long, c_long, c_long, c_long, c_long, c_long, c_long) -> c_long;

/// One of the three io_uring system calls, seen.
///
/// # Safety
/// `r` is the real `syscall`; `a` the caller's arguments, unchanged.
#[cold]
#[inline(never)]
unsafe fn uring_syscall(r: RealSyscall, a: [c_long; 7]) -> c_long {
    // SAFETY: the real function, with the caller's arguments unchanged.
    let call = || unsafe { r(a[0], a[1], a[2], a[3], a[4], a[5], a[6]) };
    match a[0] {
        SYS_IO_URING_SETUP => {
            let fd = call();
            if fd >= 0 {
                set_up(fd as i32, a[2] as u64);
            }
            fd
        }
        SYS_IO_URING_ENTER if a[4] as c_uint & ENTER_REGISTERED_RING == 0 => on_ring(a[1] as i32, call),
        SYS_IO_URING_REGISTER => {
            let ret = call();
            if ret >= 0 {
                registered(a[1] as i32, a[2] as u32, a[3] as u64, a[4] as u32);
            }
            ret
        }
        _ => call(),
    }
}

/// `io_uring_setup` returned `fd`; the kernel filled the parameters at
/// `params`.
fn set_up(fd: i32, params: u64) {
    record(|| {
        if let Some(p) = ring::params(params) {
            IO_URING.on_setup(fd, p);
        }
    });
}

/// `io_uring_register(fd, opcode, arg, nr)` succeeded: registered files
/// are followed (their index -> descriptor), registered buffers counted.
fn registered(fd: i32, opcode: u32, arg: u64, nr: u32) {
    const BUFFERS: u32 = 0;
    const FILES: u32 = 2;
    const BUFFERS2: u32 = 15;
    const UNREGISTER_FILES: u32 = 3;
    const FILES_UPDATE: u32 = 6;
    const FILES2: u32 = 13;
    const FILES_UPDATE2: u32 = 14;
    record(|| {
        let mut b = [0u8; 32];
        let (first, data, count, fresh) = match opcode {
            BUFFERS => return IO_URING.on_register_buffers(fd, nr),
            // struct io_uring_rsrc_register: nr first.
            BUFFERS2 if ring::read_user(arg, &mut b[..4]) => {
                return IO_URING.on_register_buffers(fd, ring::u32_at(&b, 0))
            }
            FILES => (0, arg, nr, true),
            UNREGISTER_FILES => return IO_URING.on_unregister_files(fd),
            // struct io_uring_files_update, io_uring_rsrc_register,
            // io_uring_rsrc_update2 (linux/io_uring.h).
            FILES_UPDATE if ring::read_user(arg, &mut b[..16]) => (ring::u32_at(&b, 0), ring::u64_at(&b, 8), nr, false),
            FILES2 if ring::read_user(arg, &mut b) => (0, ring::u64_at(&b, 16), ring::u32_at(&b, 0), true),
            FILES_UPDATE2 if ring::read_user(arg, &mut b) => {
                (ring::u32_at(&b, 0), ring::u64_at(&b, 8), ring::u32_at(&b, 24), false)
            }
            _ => return,
        };
        register_files(fd, first, data, count, fresh);
    });
}

/// Descriptors read from the program's array at a time.
const FDS_AT_ONCE: usize = 256;

/// `nr` registered files of ring `fd` from index `first`, their
/// descriptors in the program's array at `data` (0: none, every slot
/// sparse), read and handed over a stack buffer at a time. A `fresh`
/// registration (not an update) replaces the ring's whole table: the
/// kernel takes one only when none is registered.
fn register_files(fd: i32, first: u32, data: u64, nr: u32, fresh: bool) {
    if fresh {
        IO_URING.on_unregister_files(fd);
    }
    if data == 0 {
        return; // every slot sparse: nothing named
    }
    let (mut fds, mut b) = ([-1i32; FDS_AT_ONCE], [0u8; 4 * FDS_AT_ONCE]);
    for done in (0..nr as usize).step_by(FDS_AT_ONCE) {
        let count = (nr as usize - done).min(FDS_AT_ONCE);
        if !ring::read_user(data + 4 * done as u64, &mut b[..4 * count]) {
            return;
        }
        for (k, fd) in fds.iter_mut().enumerate().take(count) {
            *fd = ring::u32_at(&b, 4 * k) as i32;
        }
        // Named now: the ring holds the file, and the program may close
        // the descriptor before its first request.
        let mut unknown = [0i32; FDS_AT_ONCE];
        let n = IO_URING.unknown_among(&fds[..count], &mut unknown);
        name_fds(&unknown[..n]);
        let named = fds[..count].iter().filter(|&&f| f >= 0).count() as u32;
        IO_URING.on_register_files(fd, first as usize + done, &fds[..count], named);
    }
}

/// posix_wrap.rs's mmap: region `offset` of `fd` mapped at `addr` for
/// `len` bytes (a ring's, if `fd` is one).
pub fn ring_mapped(fd: c_int, offset: i64, addr: *mut c_void, len: usize) {
    if IO_URING.rings_live() {
        IO_URING.on_mmap(fd, offset as u64, Region { addr: addr as usize, len });
    }
}

/// A ring going away while still mapped: what it submitted beyond what
/// we read is counted as unobserved (from the kernel's SQ head), and its
/// last completions are read.
fn ring_ends(fd: i32, v: &RingView) {
    // A program may have unmapped the ring with its own system call before
    // closing it: then there is nothing to read.
    if !ring::still_mapped(v) {
        return;
    }
    // SAFETY: the ring is still mapped (checked just now; the callers run
    // before the munmap or close that ends it).
    let head = unsafe { ring::cursor(v.sq_head) };
    IO_URING.on_ring_end(fd, head);
    if let Some((v, cursor)) = IO_URING.view(fd) {
        // SAFETY: as above.
        unsafe { scan_completions(fd, &v, cursor, clock::now()) };
    }
}

/// The program is ending (its destructor, MPI_Finalize) with rings still
/// set up: each still mapped is read a last time, as at its close
/// (completions since our last call, entries submitted where we could
/// not read them), before the modules finalize.
pub fn rings_at_exit() {
    if !(IO_URING.on() && IO_URING.rings_live() && recording()) {
        return;
    }
    record(|| {
        let mut live = [(0, RingView::default()); MAX_RINGS];
        let n = IO_URING.mapped_rings(&mut live);
        for (fd, v) in &live[..n] {
            ring_ends(*fd, v);
        }
    });
}

/// munmap of `addr`, before the real call: a ring mapped there ends and is
/// no longer read. (Only the program's calls: one from inside the runtime
/// must not record.)
pub fn ring_unmapped(addr: *mut c_void) {
    if IO_URING.rings_live() && recording() {
        record(|| {
            if let Some((fd, v)) = IO_URING.ring_at(addr as usize) {
                ring_ends(fd, &v);
            }
            IO_URING.on_munmap(addr as usize)
        });
    }
}

/// dup2/dup3 onto `fd`: as a close of it.
pub fn fd_closing(fd: c_int) {
    if IO_URING.rings_live() && recording() {
        closing(fd);
    }
}

/// close(fd) by the program (the caller has checked `recording`): a ring,
/// or a descriptor the module named, is forgotten.
pub fn closed_by_program(fd: c_int) {
    if IO_URING.rings_live() {
        closing(fd);
    }
}

fn closing(fd: c_int) {
    record(|| {
        if let Some((v, _)) = IO_URING.view(fd) {
            ring_ends(fd, &v);
        }
        IO_URING.on_close(fd)
    });
}

/// A liburing call on `ring`: the ring is learnt (or its view refreshed)
/// from the struct, then the call is timed and read as any other.
///
/// # Safety
/// `ring` is the caller's `struct io_uring` (see [`ring::of_liburing`]).
unsafe fn liburing<R: Copy>(ring: *mut c_void, call: impl FnOnce() -> R) -> R {
    if !IO_URING.on() || !recording() {
        return call();
    }
    // SAFETY: the caller's.
    let Some(fd) = (unsafe { learn_liburing(ring) }) else { return call() };
    on_ring(fd, call)
}

/// The descriptor of the liburing ring `ring`, followed (or its view
/// refreshed) from now on.
///
/// # Safety
/// `ring` is the caller's `struct io_uring`, set up.
unsafe fn learn_liburing(ring: *mut c_void) -> Option<i32> {
    // SAFETY: the caller's.
    let (fd, flags, view) = unsafe { ring::of_liburing(ring as *const u8) }?;
    // SAFETY: the ring is set up and mapped (the caller's).
    let heads = unsafe { (ring::cursor(view.sq_head), ring::cursor(view.cq_head)) };
    record(|| IO_URING.on_liburing(fd, flags, view, heads));
    Some(fd)
}

/// After a successful liburing registration call on `ring`: `f` with the
/// ring's descriptor.
///
/// # Safety
/// As for [`learn_liburing`].
unsafe fn after_liburing(ok: bool, ring: *mut c_void, f: impl FnOnce(i32)) {
    if ok && IO_URING.on() && recording() {
        // SAFETY: the caller's.
        if let Some(fd) = unsafe { learn_liburing(ring) } {
            record(|| f(fd));
        }
    }
}

const _: () = assert!(MAX_RINGS <= 255, "ring slots fit the in-flight table's byte");

macro_rules! liburing_wrap {
    ($name:ident($ring:ident: *mut c_void $(, $arg:ident: $ty:ty)*) -> $ret:ty) => {
        liburing_wrap!($name($ring: *mut c_void $(, $arg: $ty)*) -> $ret, enosys());
    };
    ($name:ident($ring:ident: *mut c_void $(, $arg:ident: $ty:ty)*) -> $ret:ty, $missing:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name($ring: *mut c_void $(, $arg: $ty)*) -> $ret {
            let Some(r) = real::uring::$name() else { return $missing };
            // SAFETY: liburing's own ring, passed on unchanged.
            unsafe { liburing($ring, || r($ring $(, $arg)*)) }
        }
    };
}

liburing_wrap!(io_uring_submit(ring: *mut c_void) -> c_int);
liburing_wrap!(io_uring_submit_and_wait(ring: *mut c_void, wait_nr: c_uint) -> c_int);
liburing_wrap!(io_uring_submit_and_wait_timeout(ring: *mut c_void, cqe: *mut c_void, wait_nr: c_uint, ts: *mut c_void, sigmask: *mut c_void) -> c_int);
liburing_wrap!(io_uring_submit_and_get_events(ring: *mut c_void) -> c_int);
liburing_wrap!(__io_uring_get_cqe(ring: *mut c_void, cqe: *mut c_void, submit: c_uint, wait_nr: c_uint, sigmask: *mut c_void) -> c_int);
liburing_wrap!(io_uring_wait_cqes(ring: *mut c_void, cqe: *mut c_void, wait_nr: c_uint, ts: *mut c_void, sigmask: *mut c_void) -> c_int);
liburing_wrap!(io_uring_wait_cqe_timeout(ring: *mut c_void, cqe: *mut c_void, ts: *mut c_void) -> c_int);
liburing_wrap!(io_uring_peek_batch_cqe(ring: *mut c_void, cqes: *mut c_void, count: c_uint) -> c_uint, 0);
liburing_wrap!(io_uring_get_events(ring: *mut c_void) -> c_int);

/// Files registered through liburing (which makes the system call itself).
#[no_mangle]
pub unsafe extern "C" fn io_uring_register_files(ring: *mut c_void, files: *const c_int, nr: c_uint) -> c_int {
    let Some(r) = real::uring::io_uring_register_files() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(ring, files, nr) };
    // SAFETY: liburing's own ring.
    unsafe { after_liburing(ret >= 0, ring, |fd| register_files(fd, 0, files as u64, nr, true)) };
    ret
}

#[no_mangle]
pub unsafe extern "C" fn io_uring_register_files_update(
    ring: *mut c_void,
    off: c_uint,
    files: *const c_int,
    nr: c_uint,
) -> c_int {
    let Some(r) = real::uring::io_uring_register_files_update() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(ring, off, files, nr) };
    // SAFETY: liburing's own ring.
    unsafe { after_liburing(ret >= 0, ring, |fd| register_files(fd, off, files as u64, nr, false)) };
    ret
}

/// Buffers registered through liburing, for READ_FIXED/WRITE_FIXED.
#[no_mangle]
pub unsafe extern "C" fn io_uring_register_buffers(ring: *mut c_void, iovecs: *const c_void, nr: c_uint) -> c_int {
    let Some(r) = real::uring::io_uring_register_buffers() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(ring, iovecs, nr) };
    // SAFETY: liburing's own ring.
    unsafe { after_liburing(ret >= 0, ring, |fd| IO_URING.on_register_buffers(fd, nr)) };
    ret
}

#[no_mangle]
pub unsafe extern "C" fn io_uring_unregister_files(ring: *mut c_void) -> c_int {
    let Some(r) = real::uring::io_uring_unregister_files() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(ring) };
    // SAFETY: liburing's own ring.
    unsafe { after_liburing(ret >= 0, ring, |fd| IO_URING.on_unregister_files(fd)) };
    ret
}

/// The ring's last completions are read before liburing unmaps and
/// closes it (with its own system calls, which we do not see), and the
/// ring is forgotten before its descriptor is closed: forgotten after,
/// another thread's new ring could already have the same number and be
/// the one forgotten (its writes then went uncounted, a run in twenty of
/// `rings_of_several_threads_are_counted_apart`).
#[no_mangle]
pub unsafe extern "C" fn io_uring_queue_exit(ring: *mut c_void) {
    let Some(r) = real::uring::io_uring_queue_exit() else { return };
    if !IO_URING.on() || !recording() {
        // SAFETY: the real function, with the caller's arguments unchanged.
        return unsafe { r(ring) };
    }
    // SAFETY: liburing's own ring, still set up.
    if let Some((fd, _, _)) = unsafe { ring::of_liburing(ring as *const u8) } {
        if let Some((v, _)) = IO_URING.view(fd) {
            // Mapped until the real call below.
            record(|| ring_ends(fd, &v));
        }
        record(|| IO_URING.on_close(fd));
    }
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(ring) };
}
