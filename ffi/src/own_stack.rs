//! The runtime's once-per-process phases run on a stack of their own: the
//! start-up (the constructor's, MPI_Init's, a forked child's) and the
//! log's writing (at exit, `_exit` or MPI_Finalize). They need tens of
//! kilobytes (the configuration's regexes, the log's deflate, MPI's
//! collectives) and the thread that happens to run them may have far less:
//! a thread made with PTHREAD_STACK_MIN (16 KiB; an Argobots ULT's
//! default) that calls `exit`, or a main thread under a small `ulimit -s`,
//! died of SIGSEGV where the program alone and C Darshan run. The stack is
//! mapped for the phase and unmapped after it: no address space is held
//! while the program runs (`mlockall` would fault it all in), and its
//! pages cost only as they are touched. Where it cannot be mapped the
//! phase runs where it is called, as before; so it does where the main
//! thread's stack has room for it (the usual case: the mapping costs a
//! phase about 15 us on a VM, the guard page's mprotect and the first
//! touch of each page).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The phase's stack: ten times the deepest phase measured (24 KiB of it
/// touched: the start-up, and a log written with DXT on, serial or in
/// MPI_Finalize at 4 ranks), so that a signal handler that interrupts it
/// has room too. Untouched pages are never backed.
const STACK_BYTES: usize = 256 << 10;

/// Run `phase` on a fresh stack with a guard page below it; its panic is
/// carried back and resumed on the caller's stack (psm's frames must not
/// be unwound through).
pub fn on_own_stack<R>(phase: impl FnOnce() -> R) -> R {
    if room_where_called() {
        return where_called(phase);
    }
    let Some(stack) = Mapped::new(STACK_BYTES) else { return where_called(phase) };
    let run = || std::panic::catch_unwind(std::panic::AssertUnwindSafe(phase));
    // SAFETY: `stack.base()` is page-aligned and `STACK_BYTES` bytes above
    // it are mapped readable and writable, a page that faults below them
    // (an overflow stops there, as on a thread's own stack); the closure
    // does not unwind (catch_unwind) and the mapping outlives the call.
    let ran = unsafe { psm::on_stack(stack.base(), STACK_BYTES, run) };
    drop(stack);
    ran.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Whether the caller runs on the main thread's stack with room for the
/// phase below it: its depth (from the stack's top, just above the
/// program's name, the highest string the kernel puts there) plus
/// `STACK_BYTES` within the stack's limit (`ulimit -s`). The limit is
/// taken no higher than at the first call (the constructor's), which the
/// kernel kept clear of other mappings: a thread's or a coroutine's stack
/// is never in that range, even once the program has raised its limit.
fn room_where_called() -> bool {
    static LIMIT_AT_START: AtomicUsize = AtomicUsize::new(usize::MAX);
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given; gettid, getpid and
    // getauxval have no preconditions.
    let (tid, pid, top, ok) = unsafe {
        let ok = libc::getrlimit(libc::RLIMIT_STACK, &mut lim) == 0;
        (libc::gettid(), libc::getpid(), libc::getauxval(libc::AT_EXECFN) as usize, ok)
    };
    if !ok || top == 0 || tid != pid {
        return false;
    }
    // RLIM_INFINITY: the kernel's legacy layout, other mappings far below.
    let now = usize::try_from(lim.rlim_cur).unwrap_or(usize::MAX).min(1 << 30);
    let limit = LIMIT_AT_START.fetch_min(now, Ordering::Relaxed).min(now);
    let depth = top.checked_sub(psm::stack_pointer() as usize);
    depth.is_some_and(|d| d.saturating_add(STACK_BYTES + darshan_core::arena::page_size()) <= limit)
}

/// The phase on the caller's stack, in a frame of its own: inlined, its
/// locals would be reserved in the caller's frame, on every run.
#[inline(never)]
fn where_called<R>(phase: impl FnOnce() -> R) -> R {
    phase()
}

/// An anonymous mapping of a guard page and the stack above it, unmapped
/// when dropped.
struct Mapped {
    at: *mut libc::c_void,
    guard: usize,
    len: usize,
}

impl Mapped {
    fn new(bytes: usize) -> Option<Mapped> {
        use rustix::mm::MprotectFlags;
        let guard = darshan_core::arena::page_size();
        let len = bytes + guard;
        let at = crate::alloc::fresh_mapping(len)?;
        let mapped = Mapped { at, guard, len };
        // SAFETY: the lowest page of the mapping just made, ours alone.
        unsafe { rustix::mm::mprotect(at, guard, MprotectFlags::empty()) }.ok()?; // else dropped: unmapped
        Some(mapped)
    }

    fn base(&self) -> *mut u8 {
        // SAFETY: `guard < len`: the first byte above the guard page, in
        // the mapping.
        unsafe { self.at.cast::<u8>().add(self.guard) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer in use (the phase
        // has returned from it).
        let _ = unsafe { rustix::mm::munmap(self.at, self.len) };
    }
}
