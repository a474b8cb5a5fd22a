//! When a wrapper records: the runtime is running and this thread is not
//! already inside the runtime (interposition rules 4-6).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use darshan_core::runtime;

thread_local! {
    // const-initialised and without Drop: no lazy init, no destructor,
    // readable from .fini_array.
    static IN_RT: Cell<bool> = const { Cell::new(false) };
}

/// Whether a call on this thread should be recorded.
#[inline(always)]
pub fn recording() -> bool {
    runtime::state() == runtime::RUNNING && !IN_RT.with(|g| g.get())
}

/// Mark this thread as inside the runtime (its own I/O passes through).
pub fn set_inside(v: bool) {
    IN_RT.with(|g| g.set(v));
}

fn errno() -> i32 {
    // SAFETY: __errno_location returns this thread's errno slot.
    unsafe { *libc::__errno_location() }
}

fn set_errno(e: i32) {
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = e };
}

/// Run the recording part of a wrapper: errno preserved, re-entry
/// blocked, and a panic disables the runtime instead of unwinding into C.
#[inline(always)]
pub fn record(f: impl FnOnce()) {
    let e = errno();
    set_inside(true);
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        runtime::set_state(runtime::DISABLED);
    }
    set_inside(false);
    set_errno(e);
}

pub fn enosys<T: From<i8>>() -> T {
    set_errno(libc::ENOSYS);
    T::from(-1)
}
