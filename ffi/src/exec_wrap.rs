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

/// `exec`, the program's call, around the crash-safe file: removed first;
/// made again if the call returns, which means it failed (the failure's
/// errno kept for the caller).
fn around_exec(exec: impl FnOnce() -> c_int) -> c_int {
    let removed = std::panic::catch_unwind(before_exec).unwrap_or(false);
    let ret = exec();
    if removed {
        crate::guard::record(runtime::exec_failed);
    }
    ret
}

type Argv = *const *const c_char;

#[no_mangle]
pub unsafe extern "C" fn execve(path: *const c_char, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::execve() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    around_exec(|| unsafe { r(path, argv, envp) })
}

#[no_mangle]
pub unsafe extern "C" fn execv(path: *const c_char, argv: Argv) -> c_int {
    let Some(r) = real::execv() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    around_exec(|| unsafe { r(path, argv) })
}

#[no_mangle]
pub unsafe extern "C" fn execvp(file: *const c_char, argv: Argv) -> c_int {
    let Some(r) = real::execvp() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    around_exec(|| unsafe { r(file, argv) })
}

#[no_mangle]
pub unsafe extern "C" fn execvpe(file: *const c_char, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::execvpe() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    around_exec(|| unsafe { r(file, argv, envp) })
}

#[no_mangle]
pub unsafe extern "C" fn fexecve(fd: c_int, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::fexecve() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    around_exec(|| unsafe { r(fd, argv, envp) })
}
