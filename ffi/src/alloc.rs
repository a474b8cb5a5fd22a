//! The library's allocator: the C library's `malloc`, except while the
//! log is written from `_exit` in a signal handler. `_exit` is the way
//! out a handler may take (async-signal-safe); a handler that interrupted
//! `malloc` or `free` in a threaded program leaves the heap's lock held
//! by the very thread that then writes the log, and the log's first
//! allocation waited on it for ever: the program hung instead of ending
//! (27 runs in 40 of a program that allocates as it computes; C Darshan
//! 3.5.0 hangs the same way). From then on, allocations come from a
//! mapping of their own (made with a system call, which a handler may
//! make), bumped: only the last block is given back (a vector grows in
//! place; the shutdown's memory check takes and returns one), and `free`
//! of the heap's blocks is skipped: the process is ending. A mapping used
//! up falls back to `malloc`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

#[global_allocator]
static ALLOCATOR: RuntimeAlloc = RuntimeAlloc;

/// Whether allocations come from the exit's mapping (set once, never
/// cleared: the process is ending).
static ENDING: AtomicBool = AtomicBool::new(false);
/// The mapping's first byte, the next free one and its end.
static START: AtomicUsize = AtomicUsize::new(0);
static NEXT: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);

/// From here on, allocations come from a fresh mapping of at least
/// `bytes` (address space only; pages are backed as they are touched).
/// Returns false, leaving `malloc` in use, when none can be had.
pub fn from_a_mapping_from_now_on(bytes: usize) -> bool {
    if ENDING.load(Ordering::Acquire) {
        return true;
    }
    let Some(at) = fresh_mapping(bytes) else { return false };
    START.store(at as usize, Ordering::Relaxed);
    NEXT.store(at as usize, Ordering::Relaxed);
    END.store(at as usize + bytes, Ordering::Relaxed);
    ENDING.store(true, Ordering::Release);
    true
}

/// `len` bytes of fresh zeroed memory, readable and writable, whose pages
/// are backed only as they are touched (MAP_NORESERVE). Made with the
/// system call itself (rustix), not through `mmap`: that is this
/// library's own wrapper, whose first call looks the C library's up with
/// `dlsym` (a deep stack, and the loader's lock).
pub fn fresh_mapping(len: usize) -> Option<*mut std::ffi::c_void> {
    use rustix::mm::{MapFlags, ProtFlags};
    let (prot, flags) = (ProtFlags::READ | ProtFlags::WRITE, MapFlags::PRIVATE | MapFlags::NORESERVE);
    // SAFETY: a fresh anonymous mapping; the kernel picks the address.
    unsafe { rustix::mm::mmap_anonymous(std::ptr::null_mut(), len, prot, flags) }.ok()
}

/// `layout` from the mapping; None when it is used up.
fn bumped(layout: Layout) -> Option<*mut u8> {
    let mut next = NEXT.load(Ordering::Relaxed);
    loop {
        let at = next.checked_next_multiple_of(layout.align())?;
        let after = at.checked_add(layout.size())?;
        if after > END.load(Ordering::Relaxed) {
            return None;
        }
        match NEXT.compare_exchange_weak(next, after, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return Some(at as *mut u8),
            Err(now) => next = now,
        }
    }
}

/// The mapping's block `p` of `size` bytes made `new_size` long where it
/// lies, if it is the last one (0: given back).
fn resized_in_place(p: *mut u8, size: usize, new_size: usize) -> bool {
    let p = p as usize;
    if p < START.load(Ordering::Relaxed) || p >= END.load(Ordering::Relaxed) {
        return false;
    }
    match (p.checked_add(size), p.checked_add(new_size)) {
        (Some(end), Some(new_end)) if new_end <= END.load(Ordering::Relaxed) => {
            NEXT.compare_exchange(end, new_end, Ordering::Relaxed, Ordering::Relaxed).is_ok()
        }
        _ => false,
    }
}

struct RuntimeAlloc;

// SAFETY: every block is the system allocator's or a piece of the exit's
// mapping, aligned as asked and not handed out twice while in use (only
// the last block is given back); a mapping's block is never given to the
// system allocator.
unsafe impl GlobalAlloc for RuntimeAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ENDING.load(Ordering::Acquire) {
            if let Some(p) = bumped(layout) {
                return p;
            }
        }
        // SAFETY: the caller's layout, as GlobalAlloc::alloc requires.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if ENDING.load(Ordering::Acquire) {
            if let Some(p) = bumped(layout) {
                // SAFETY: `p` holds `layout.size()` bytes, ours alone
                // (given back, a block's bytes may have been written).
                unsafe { std::ptr::write_bytes(p, 0, layout.size()) };
                return p;
            }
        }
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        if ENDING.load(Ordering::Acquire) {
            resized_in_place(p, layout.size(), 0);
            return;
        }
        // SAFETY: `p` came from System.alloc with `layout`.
        unsafe { System.dealloc(p, layout) }
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !ENDING.load(Ordering::Acquire) {
            // SAFETY: `p` came from System.alloc with `layout` (a mapping's
            // block exists only once ENDING is set).
            return unsafe { System.realloc(p, layout, new_size) };
        }
        if resized_in_place(p, layout.size(), new_size) {
            return p;
        }
        // SAFETY: the same alignment, a size the caller checked.
        let grown = unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
        if !grown.is_null() {
            // SAFETY: both blocks hold at least the smaller size and are
            // distinct (the new one is fresh).
            unsafe { std::ptr::copy_nonoverlapping(p, grown, layout.size().min(new_size)) };
        }
        grown
    }
}
