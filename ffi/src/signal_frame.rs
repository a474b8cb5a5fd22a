//! Whether the calling thread is running a signal handler: the unwinder
//! (libgcc's, linked for Rust's panics) meets a signal frame among the
//! caller's first frames. The shutdown asks it, from `exit` and `_exit`
//! (alloc.rs says why): a handler may have interrupted `malloc` on this
//! thread, an ordinary end (Python's `os._exit`, `return` from main)
//! cannot have.
//!
//! The unwinder finds each frame's unwind table with `_dl_find_object`
//! (glibc 2.35 and GCC 12 on: no lock, no allocation), and reads only the
//! frames above the signal frame, which are the handler's own: the
//! interrupted code's frames are never read. Frames without unwind tables
//! (hand-written assembly, JIT code) end the walk: then no signal frame is
//! seen, and the log is written as from any `_exit`.

use std::ffi::{c_int, c_void};

/// The first frames looked at: `_exit` is called by the handler or a
/// function it calls, not dozens deep.
const FRAMES: usize = 32;

/// libgcc's `_Unwind_Reason_Code`: go on, or stop.
const URC_NO_REASON: c_int = 0;
const URC_END_OF_STACK: c_int = 5;

extern "C" {
    fn _Unwind_Backtrace(trace: extern "C" fn(*mut c_void, *mut c_void) -> c_int, arg: *mut c_void) -> c_int;
    fn _Unwind_GetIPInfo(context: *mut c_void, ip_before_insn: *mut c_int) -> usize;
}

struct Walk {
    frames: usize,
    signal_frame: bool,
}

extern "C" fn each_frame(context: *mut c_void, arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `Walk` that `in_a_signal_handler` passed to
    // _Unwind_Backtrace, alive and not otherwise borrowed during the walk.
    let walk = unsafe { &mut *arg.cast::<Walk>() };
    let mut before_insn: c_int = 0;
    // SAFETY: `context` is the unwinder's, valid during this callback.
    // The unwinder says "before instruction" of the frame a signal
    // interrupted (its address is the faulting or next instruction's, not
    // a call's return address): the frame under a signal frame.
    unsafe { _Unwind_GetIPInfo(context, &mut before_insn) };
    walk.frames += 1;
    if before_insn != 0 {
        walk.signal_frame = true;
        return URC_END_OF_STACK;
    }
    if walk.frames >= FRAMES {
        return URC_END_OF_STACK;
    }
    URC_NO_REASON
}

/// Whether a signal frame is among the calling thread's first [`FRAMES`]
/// frames. A handler runs with its signal blocked (unless installed with
/// SA_NODEFER): a thread that blocks no signal runs none, and the walk
/// (about 20 us at its first run, the unwinder's tables found and read)
/// is spared at every ordinary end.
pub fn in_a_signal_handler() -> bool {
    if !blocks_a_signal() {
        return false;
    }
    let mut walk = Walk { frames: 0, signal_frame: false };
    // SAFETY: the callback only reads the unwinder's context and writes
    // `walk`, which outlives the call.
    unsafe { _Unwind_Backtrace(each_frame, (&mut walk as *mut Walk).cast()) };
    walk.signal_frame
}

/// Whether the calling thread's signal mask holds any signal (or cannot
/// be read).
fn blocks_a_signal() -> bool {
    // SAFETY: an all-zero sigset_t is a valid (empty) set.
    let mut mask: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: with a null new set, pthread_sigmask only writes the
    // thread's mask into `mask`.
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask) } != 0 {
        return true;
    }
    // SAFETY: `mask` is an initialised set; numbers past the last signal
    // are answered -1, not read.
    (1..=64).any(|s| unsafe { libc::sigismember(&mask, s) } == 1)
}
