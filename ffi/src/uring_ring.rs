//! Reading io_uring rings from inside the process (docs/io-uring.md): the
//! cursors and entries of the shared memory the kernel mapped, the
//! program's `struct io_uring` (liburing 2.x), and, through
//! `process_vm_readv` so that a bad pointer is an error and not a fault,
//! the program's own arrays (setup parameters, iovecs, registered files).

use std::sync::atomic::{AtomicU32, Ordering};

use darshan_io_uring::ring::{SETUP_CQE32, SETUP_SQE128};
use darshan_io_uring::{ops, Cqe, Params, RingView, Sqe};

/// Entries read at a time (on the stack).
pub const BATCH: usize = 32;

/// A cursor (head or tail) of a ring.
///
/// # Safety
/// `addr` is a cursor of a ring whose mapping is alive.
pub unsafe fn cursor(addr: usize) -> u32 {
    // SAFETY: the caller's: an aligned u32 in a live ring mapping, which
    // the kernel and the program update atomically.
    unsafe { (*(addr as *const AtomicU32)).load(Ordering::Acquire) }
}

/// Bytes at `addr` in the program's memory into `out`, or false (the
/// kernel checks the address: nothing faults).
pub fn read_user(addr: u64, out: &mut [u8]) -> bool {
    if addr == 0 || out.is_empty() {
        return out.is_empty();
    }
    let local = libc::iovec { iov_base: out.as_mut_ptr().cast(), iov_len: out.len() };
    let remote = libc::iovec { iov_base: addr as *mut libc::c_void, iov_len: out.len() };
    // SAFETY: one local iovec over `out`, writable for its length; the
    // remote address is only read, by the kernel, which fails with
    // EFAULT on memory that is not there.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    n == out.len() as isize
}

/// The NUL-terminated string at `addr` in the program's memory into `out`,
/// its NUL included, read up to a page at a time (a string near the end
/// of a mapping is read to its end, never past the page it ends in); its
/// length, or None if it cannot be read or does not fit.
pub fn read_user_str(addr: u64, out: &mut [u8]) -> Option<usize> {
    let page = darshan_core::arena::page_size() as u64;
    let mut done = 0;
    while done < out.len() {
        let at = addr.checked_add(done as u64)?;
        let chunk = ((page - at % page) as usize).min(out.len() - done);
        if !read_user(at, &mut out[done..done + chunk]) {
            return None;
        }
        if let Some(z) = out[done..done + chunk].iter().position(|&b| b == 0) {
            return Some(done + z);
        }
        done += chunk;
    }
    None
}

/// The native-endian u32 at `off` of `b` (0 past its end).
pub fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4).and_then(|s| s.try_into().ok()).map_or(0, u32::from_ne_bytes)
}

/// The native-endian u64 at `off` of `b` (0 past its end).
pub fn u64_at(b: &[u8], off: usize) -> u64 {
    b.get(off..off + 8).and_then(|s| s.try_into().ok()).map_or(0, u64::from_ne_bytes)
}

/// Whether the pages of a ring's cursors and completion entries are still
/// mapped (mincore fails with ENOMEM on an address that is not).
pub fn still_mapped(v: &RingView) -> bool {
    let page = darshan_core::arena::page_size();
    [v.sq_head, v.cq_tail, v.cqes].iter().all(|&a| {
        let mut vec = [0u8; 1];
        // SAFETY: mincore only inspects the page table for the one page
        // at the aligned address and writes one byte into `vec`.
        unsafe { libc::mincore((a & !(page - 1)) as *mut libc::c_void, 1, vec.as_mut_ptr()) == 0 }
    })
}

/// `struct io_uring_params` (120 bytes) the kernel filled at `addr`.
pub fn params(addr: u64) -> Option<Params> {
    let mut b = [0u8; 120];
    if !read_user(addr, &mut b) {
        return None;
    }
    Some(Params {
        sq_entries: u32_at(&b, 0),
        cq_entries: u32_at(&b, 4),
        flags: u32_at(&b, 8),
        features: u32_at(&b, 20),
        sq_off: std::array::from_fn(|k| u32_at(&b, 40 + 4 * k)),
        cq_off: std::array::from_fn(|k| u32_at(&b, 80 + 4 * k)),
    })
}

/// The bytes an iovec array of `count` entries at `addr` asks for (0 if it
/// cannot be read).
fn iov_bytes(addr: u64, count: u32) -> u64 {
    let mut total = 0u64;
    let mut done = 0u32;
    while done < count.min(1024) {
        let n = (count - done).min(16) as usize;
        let mut b = [0u8; 16 * 16];
        if !read_user(addr + u64::from(done) * 16, &mut b[..n * 16]) {
            return total;
        }
        total += (0..n).map(|k| u64_at(&b, 16 * k + 8)).sum::<u64>();
        done += n as u32;
    }
    total
}

/// The submission entries at positions `from..to` (at most [`BATCH`])
/// into `out`; how many.
///
/// # Safety
/// `v` describes a ring whose mappings are alive.
pub unsafe fn sqes(v: &RingView, from: u32, to: u32, out: &mut [Sqe; BATCH]) -> usize {
    let n = (to.wrapping_sub(from) as usize).min(BATCH);
    for (k, slot) in out.iter_mut().enumerate().take(n) {
        let pos = from.wrapping_add(k as u32) & v.sq_mask;
        let index = if v.sq_array == 0 {
            pos
        } else {
            // SAFETY: the index array has sq_mask + 1 entries in the live
            // SQ ring mapping (the caller's).
            let i = unsafe { ((v.sq_array + 4 * pos as usize) as *const u32).read_unaligned() };
            i & v.sq_mask
        };
        let e = (v.sqes + v.sqe_size * index as usize) as *const u8;
        // SAFETY: entry `index` lies in the live SQE mapping; the fields
        // are read at their uapi offsets (opcode 0, flags 1, fd 4, off 8,
        // addr 16, len 24, op flags 28, user_data 32, file_index 44),
        // unaligned-safe.
        let (opcode, flags, fd, off, addr, len, op_flags, user_data, file_index) = unsafe {
            (
                *e,
                *e.add(1),
                (e.add(4) as *const i32).read_unaligned(),
                (e.add(8) as *const u64).read_unaligned(),
                (e.add(16) as *const u64).read_unaligned(),
                (e.add(24) as *const u32).read_unaligned(),
                (e.add(28) as *const u32).read_unaligned(),
                (e.add(32) as *const u64).read_unaligned(),
                (e.add(44) as *const u32).read_unaligned(),
            )
        };
        let bytes = if ops::vectored(opcode) { iov_bytes(addr, len) } else { u64::from(len) };
        *slot = Sqe { opcode, flags, fd, off, bytes, op_flags, user_data, file_index, addr, opened: 0 };
    }
    n
}

/// The completion entries at positions `from..to` (at most [`BATCH`])
/// into `out`; how many.
///
/// # Safety
/// As for [`sqes`].
pub unsafe fn cqes(v: &RingView, from: u32, to: u32, out: &mut [Cqe; BATCH]) -> usize {
    let n = (to.wrapping_sub(from) as usize).min(BATCH);
    for (k, slot) in out.iter_mut().enumerate().take(n) {
        let pos = from.wrapping_add(k as u32) & v.cq_mask;
        let e = (v.cqes + v.cqe_size * pos as usize) as *const u8;
        // SAFETY: entry `pos` lies in the live CQ mapping; user_data at 0,
        // res at 8, flags at 12.
        *slot = unsafe {
            Cqe {
                user_data: (e as *const u64).read_unaligned(),
                res: (e.add(8) as *const i32).read_unaligned(),
                flags: (e.add(12) as *const u32).read_unaligned(),
            }
        };
    }
    n
}

/// liburing 2.x's `struct io_uring` (liburing.h; the same offsets from 2.0
/// to 2.5: the fields added later took the place of padding; checked by
/// ffi/tests/io_uring.rs against the installed header).
pub mod liburing {
    pub const SQ_KHEAD: usize = 0;
    pub const SQ_KTAIL: usize = 8;
    pub const SQ_KRING_MASK: usize = 16;
    pub const SQ_ARRAY: usize = 48;
    pub const SQ_SQES: usize = 56;
    pub const CQ: usize = 104;
    pub const CQ_KHEAD: usize = CQ;
    pub const CQ_KTAIL: usize = CQ + 8;
    pub const CQ_KRING_MASK: usize = CQ + 16;
    pub const CQ_KRING_ENTRIES: usize = CQ + 24;
    pub const CQ_CQES: usize = CQ + 48;
    pub const FLAGS: usize = 192;
    pub const RING_FD: usize = 196;
}

/// The ring behind a liburing `struct io_uring` at `ring`: its descriptor,
/// setup flags and view; None if it does not look like a set-up ring.
///
/// # Safety
/// `ring` is null or the program's `struct io_uring`, set up by
/// liburing, whose pointers lead into the ring's live mappings (the
/// program passes it to liburing, which dereferences them the same way).
pub unsafe fn of_liburing(ring: *const u8) -> Option<(i32, u32, RingView)> {
    use liburing as L;
    if ring.is_null() {
        return None;
    }
    // SAFETY: the caller's: the struct is readable for its size.
    let word = |off: usize| unsafe { (ring.add(off) as *const u64).read_unaligned() } as usize;
    // SAFETY: as above.
    let half = |off: usize| unsafe { (ring.add(off) as *const u32).read_unaligned() };
    let (flags, fd) = (half(L::FLAGS), half(L::RING_FD) as i32);
    let ptrs = [L::SQ_KHEAD, L::SQ_KTAIL, L::SQ_KRING_MASK, L::SQ_SQES, L::CQ_KHEAD, L::CQ_KTAIL, L::CQ_KRING_MASK];
    if fd < 0 || ptrs.iter().any(|&o| word(o) == 0 || word(o) % 4 != 0) || word(L::CQ_CQES) == 0 {
        return None;
    }
    // SAFETY: the masks and entry count are u32s in the live rings.
    let (sq_mask, cq_mask, cq_entries) =
        unsafe { (cursor(word(L::SQ_KRING_MASK)), cursor(word(L::CQ_KRING_MASK)), cursor(word(L::CQ_KRING_ENTRIES))) };
    if !sq_mask.wrapping_add(1).is_power_of_two() || cq_mask.wrapping_add(1) != cq_entries || cq_entries == 0 {
        return None;
    }
    Some((
        fd,
        flags,
        RingView {
            sq_head: word(L::SQ_KHEAD),
            sq_tail: word(L::SQ_KTAIL),
            sq_mask,
            sq_array: word(L::SQ_ARRAY),
            sqes: word(L::SQ_SQES),
            sqe_size: if flags & SETUP_SQE128 != 0 { 128 } else { 64 },
            cq_head: word(L::CQ_KHEAD),
            cq_tail: word(L::CQ_KTAIL),
            cq_mask,
            cq_entries,
            cqes: word(L::CQ_CQES),
            cqe_size: if flags & SETUP_CQE32 != 0 { 32 } else { 16 },
        },
    ))
}
