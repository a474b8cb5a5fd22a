//! exec: the new program image starts its own runtime, and this image's
//! records are lost, as with Darshan (no log is written at exec). Its
//! crash-safe file would stay behind as if the process had been killed,
//! so it is removed first (only by the process it belongs to: a vfork
//! child's exec leaves its parent's file alone). An exec that returns
//! failed: the image goes on, and its file is made again.

use darshan_core::{logmap, runtime, Platform};
use libc::{c_char, c_int};

use crate::guard::enosys;
use crate::platform::LIBC;
use crate::real;

/// Whether the file was removed (and must come back if the exec fails).
fn before_exec() -> bool {
    // Under a seccomp filter in the runtime's way the file stays (and
    // removing it could be the call that kills the program). So it does
    // from a signal handler that interrupted this thread inside the
    // runtime, which may hold the file's lock (the exec hung there): the
    // file then stays as a killed process's would.
    if darshan_core::seccomp::sealed() || crate::guard::level() != crate::guard::OUTSIDE {
        return false;
    }
    let own = logmap::has_file() && runtime::core().shared().is_some() && LIBC.pid() == runtime::core().times().pid;
    if own {
        logmap::remove();
    }
    own
}

/// The exec returned, so it failed: the file again if it went, errno
/// (the failure's) kept for the caller.
fn exec_returned(removed: std::thread::Result<bool>) {
    if removed.unwrap_or(false) {
        crate::guard::record(runtime::exec_failed);
    }
}

type Argv = *const *const c_char;

#[no_mangle]
pub unsafe extern "C" fn execve(path: *const c_char, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::execve() else { return enosys() };
    let removed = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(path, argv, envp) };
    exec_returned(removed);
    ret
}

#[no_mangle]
pub unsafe extern "C" fn execv(path: *const c_char, argv: Argv) -> c_int {
    let Some(r) = real::execv() else { return enosys() };
    let removed = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(path, argv) };
    exec_returned(removed);
    ret
}

#[no_mangle]
pub unsafe extern "C" fn execvp(file: *const c_char, argv: Argv) -> c_int {
    let Some(r) = real::execvp() else { return enosys() };
    let removed = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(file, argv) };
    exec_returned(removed);
    ret
}

#[no_mangle]
pub unsafe extern "C" fn execvpe(file: *const c_char, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::execvpe() else { return enosys() };
    let removed = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(file, argv, envp) };
    exec_returned(removed);
    ret
}

#[no_mangle]
pub unsafe extern "C" fn fexecve(fd: c_int, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::fexecve() else { return enosys() };
    let removed = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    let ret = unsafe { r(fd, argv, envp) };
    exec_returned(removed);
    ret
}
