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

/// Little helper to lay out C structs: native-endian words appended.
#[derive(Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }
    pub fn i64s(&mut self, v: &[i64]) -> &mut Self {
        v.iter().for_each(|&x| self.0.extend_from_slice(&x.to_ne_bytes()));
        self
    }
    pub fn f64s(&mut self, v: &[f64]) -> &mut Self {
        v.iter().for_each(|&x| self.0.extend_from_slice(&x.to_ne_bytes()));
        self
    }
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
}
