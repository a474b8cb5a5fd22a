//! What every piece of the library uses from its host process, below the
//! life cycle (init.rs) and the wrappers: the one-line messages on
//! stderr, the C library's standard stream pointers, and
//! DARSHAN_MEMALIGN. No std I/O here (docs/interposition.md rule 8): messages go
//! through `Platform::stderr`.

use std::sync::atomic::AtomicI64;

use darshan_core::Platform;

use crate::platform::LIBC;

/// DARSHAN_MEMALIGN, read by the wrappers for MEM_NOT_ALIGNED.
pub static MEM_ALIGN: AtomicI64 = AtomicI64::new(8);

extern "C" {
    static mut stdin: *mut libc::FILE;
    static mut stdout: *mut libc::FILE;
    static mut stderr: *mut libc::FILE;
}

/// The current `stdout` (printf and puts write there).
pub fn stdout_ptr() -> usize {
    // SAFETY: reading glibc's stdout pointer; it is always initialised.
    unsafe { stdout as usize }
}

pub fn stdin_ptr() -> usize {
    // SAFETY: as above.
    unsafe { stdin as usize }
}

pub(crate) fn std_streams() -> [usize; 3] {
    // SAFETY: as above.
    unsafe { [stdin as usize, stdout as usize, stderr as usize] }
}

pub(crate) fn say(msg: &str) {
    LIBC.say(msg);
}
