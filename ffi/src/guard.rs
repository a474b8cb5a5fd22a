//! When a wrapper records: the runtime is running and this thread is not
//! already inside the runtime (docs/interposition.md rules 4-6).

use std::panic::{catch_unwind, AssertUnwindSafe};

use std::sync::atomic::{AtomicU8, Ordering};

use darshan_core::runtime;

// The flag itself is a C `__thread int` with the initial-exec TLS model
// (shim.c): like a const-initialised Rust thread_local it needs no lazy
// init and no destructor and is readable from .fini_array, and each access
// is one instruction instead of a __tls_get_addr call.
extern "C" {
    fn darshan_guard_get() -> i32;
    fn darshan_guard_set(v: i32);
    fn darshan_rt_enter() -> i32;
    fn darshan_rt_leave(saved_errno: i32);
}

pub use crate::facts::Life;

/// The runtime's life cycle (facts.rs), the one copy: the C shim reads
/// this byte too, through the pointer it was handed (c_api.rs).
pub(crate) static LIFE: AtomicU8 = AtomicU8::new(Life::Uninit as u8);

/// Where the runtime is in its life cycle.
#[inline(always)]
pub fn life() -> Life {
    match LIFE.load(Ordering::Acquire) {
        0 => Life::Uninit,
        1 => Life::Running,
        2 => Life::ShuttingDown,
        3 => Life::Finalized,
        _ => Life::Disabled,
    }
}

/// Enter `s`.
pub fn set_life(s: Life) {
    LIFE.store(s as u8, Ordering::Release)
}

/// Move from `from` to `to` if the runtime is at `from`.
pub fn transition(from: Life, to: Life) -> bool {
    LIFE.compare_exchange(from as u8, to as u8, Ordering::AcqRel, Ordering::Acquire).is_ok()
}

/// The flag's values (facts.rs, shared with shim.c).
pub use crate::facts::{OUTSIDE, OWN_IO, RECORDING};

/// Whether this thread is inside the runtime's guard (tests).
#[cfg(test)]
pub(crate) fn inside_runtime() -> bool {
    // SAFETY: reads this thread's flag; no preconditions.
    unsafe { darshan_guard_get() != OUTSIDE }
}

/// Whether a call on this thread should be recorded. A call made while
/// this thread is already recording can only come from a signal handler
/// that interrupted the runtime: it passes through and is counted as
/// lost (docs/interposition.md rule 5: never wait for a lock the interrupted
/// frame may hold).
#[inline(always)]
pub fn recording() -> bool {
    if LIFE.load(Ordering::Acquire) != Life::Running as u8 {
        return false;
    }
    // SAFETY: reads this thread's flag; no preconditions.
    match unsafe { darshan_guard_get() } {
        OUTSIDE => true,
        RECORDING => {
            runtime::core().note_lost_call();
            false
        }
        _ => false,
    }
}

/// The C shim's way to count a lost call (see `recording`).
pub extern "C" fn lost_call_for_c() {
    runtime::core().note_lost_call();
}

/// This thread's flag (OUTSIDE, RECORDING or OWN_IO).
#[inline(always)]
pub fn level() -> i32 {
    // SAFETY: reads this thread's flag; no preconditions.
    unsafe { darshan_guard_get() }
}

/// Set this thread's flag to `v`, returning what it was.
pub fn swap_level(v: i32) -> i32 {
    // SAFETY: reads and writes this thread's flag; no preconditions.
    unsafe {
        let old = darshan_guard_get();
        darshan_guard_set(v);
        old
    }
}

/// Mark this thread as inside the runtime's own work (start-up,
/// shutdown, fork): its I/O passes through and is not a missed call.
#[inline(always)]
pub fn set_inside(v: bool) {
    // SAFETY: writes this thread's flag; no preconditions.
    unsafe { darshan_guard_set(if v { OWN_IO } else { OUTSIDE }) };
}

fn set_errno(e: i32) {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() = e };
}

/// Run the recording part of a wrapper: errno preserved, re-entry
/// blocked, and a panic disables the runtime instead of unwinding into C.
#[inline(always)]
pub fn record(f: impl FnOnce()) {
    // SAFETY: sets this thread's flag and reads errno; no preconditions.
    let e = unsafe { darshan_rt_enter() };
    if catch_unwind(AssertUnwindSafe(|| ended(f))).is_err() {
        set_life(Life::Disabled);
    }
    // SAFETY: restores errno and clears the flag.
    unsafe { darshan_rt_leave(e) };
}

/// The recording part of a read or write: like [`record`] but without
/// saving errno, as updating counters makes no system call that can fail
/// (the lock only ever yields).
#[inline(always)]
pub fn record_data(f: impl FnOnce()) {
    // SAFETY: writes this thread's flag; no preconditions.
    unsafe { darshan_guard_set(RECORDING) };
    if catch_unwind(AssertUnwindSafe(|| ended(f))).is_err() {
        set_life(Life::Disabled);
    }
    // SAFETY: as above.
    unsafe { darshan_guard_set(OUTSIDE) };
}

/// The recording part of a call whose guard and errno the caller (C)
/// already handles.
#[inline(always)]
pub fn record_unguarded(f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(|| ended(f))).is_err() {
        set_life(Life::Disabled);
    }
}

/// A recorded call's counting, then what waits for its end: the
/// crash-safe file, when a record wants it (`runtime::after_record`), made
/// here because this thread now holds none of the runtime's locks and is
/// still marked as inside it (a signal handler's calls pass through).
#[inline(always)]
fn ended(f: impl FnOnce()) {
    f();
    runtime::after_record();
}

pub fn enosys<T: From<i8>>() -> T {
    set_errno(libc::ENOSYS);
    T::from(-1)
}

/// As [`enosys`], for functions that fail with a null pointer.
pub fn enosys_null<T>() -> *mut T {
    set_errno(libc::ENOSYS);
    std::ptr::null_mut()
}
