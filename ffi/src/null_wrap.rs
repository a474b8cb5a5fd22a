//! The NULL module's one wrapper, the template for a new module's wrapper
//! file: `darshan_null_foo(name, arg)` stands for an interposed function
//! (a real module exports the library's own name, e.g. `H5Fopen`, and
//! calls the next definition through `real`). It does what every wrapper
//! does: pass through unless recording, time the call, record after it
//! returned under the guard, never touch errno or the return value.

use std::ffi::CStr;

use darshan_null::NULL;
use libc::c_char;

use crate::clock;
use crate::guard::{record, recording};

/// The "real" function behind the wrapper: returns its argument.
fn foo(arg: i64) -> i64 {
    arg
}

/// `foo(name, arg)`: returns `arg`; with the NULL module enabled
/// (DARSHAN_MOD_ENABLE=NULL), counts the call in the record `name`.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn darshan_null_foo(name: *const c_char, arg: i64) -> i64 {
    if !recording() || name.is_null() {
        return foo(arg);
    }
    let t1 = clock::now();
    let ret = foo(arg);
    let t2 = clock::now();
    // SAFETY: the caller passes a NUL-terminated string (checked non-null).
    let name = unsafe { CStr::from_ptr(name) };
    record(|| NULL.on_foo(name.to_bytes(), arg, t1, t2));
    ret
}
