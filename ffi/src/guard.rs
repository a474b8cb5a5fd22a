//! When a wrapper records: the runtime is running and this thread is not
//! already inside the runtime (interposition rules 4-6).

use std::panic::{catch_unwind, AssertUnwindSafe};

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

/// 1 while the runtime records (state RUNNING), for the C shim to read
/// without a call; kept in step with the core's state by `set_state`.
#[export_name = "darshan_rs_running"]
static RUNNING: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// Change the runtime's state (and the C shim's view of it).
pub fn set_state(s: u8) {
    runtime::set_state(s);
    RUNNING.store((s == runtime::RUNNING) as u8, std::sync::atomic::Ordering::Release);
}

/// Move from `from` to `to`, keeping the C shim's view in step.
pub fn transition(from: u8, to: u8) -> bool {
    let ok = runtime::transition(from, to);
    if ok {
        RUNNING.store((to == runtime::RUNNING) as u8, std::sync::atomic::Ordering::Release);
    }
    ok
}

/// Whether a call on this thread should be recorded.
#[inline(always)]
pub fn recording() -> bool {
    // SAFETY: reads this thread's flag; no preconditions.
    runtime::state() == runtime::RUNNING && unsafe { darshan_guard_get() } == 0
}

/// Mark this thread as inside the runtime (its own I/O passes through).
#[inline(always)]
pub fn set_inside(v: bool) {
    // SAFETY: writes this thread's flag; no preconditions.
    unsafe { darshan_guard_set(v as i32) };
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
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        set_state(runtime::DISABLED);
    }
    // SAFETY: restores errno and clears the flag.
    unsafe { darshan_rt_leave(e) };
}

/// The recording part of a read or write: like [`record`] but without
/// saving errno, as updating counters makes no system call that can fail
/// (the lock only ever yields).
#[inline(always)]
pub fn record_data(f: impl FnOnce()) {
    set_inside(true);
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        set_state(runtime::DISABLED);
    }
    set_inside(false);
}

/// The recording part of a call whose guard and errno the caller (C)
/// already handles.
#[inline(always)]
pub fn record_unguarded(f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        set_state(runtime::DISABLED);
    }
}

pub fn enosys<T: From<i8>>() -> T {
    set_errno(libc::ENOSYS);
    T::from(-1)
}
