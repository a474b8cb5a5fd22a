//! What the library hands out is the C heap's (`malloc`): callers free it
//! with `darshan_free` (PyDarshan does) or `free`, as darshan-util's.

use std::ffi::c_void;

/// `bytes` copied into a fresh `malloc` block (null when there is no
/// memory; one byte at least, so that an empty block is not null).
pub fn copy_out(bytes: &[u8]) -> *mut c_void {
    // SAFETY: malloc has no precondition; a null result is returned as is.
    let p = unsafe { libc::malloc(bytes.len().max(1)) };
    if !p.is_null() {
        // SAFETY: p is a fresh block of at least bytes.len() bytes, apart
        // from `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast::<u8>(), bytes.len()) };
    }
    p
}

/// `s` as a fresh NUL-terminated C string (`strdup`).
pub fn c_string(s: &[u8]) -> *mut std::ffi::c_char {
    let mut b = Vec::with_capacity(s.len() + 1);
    b.extend_from_slice(s);
    b.push(0);
    copy_out(&b).cast()
}
