//! exec: the new program image starts its own runtime, and this image's
//! records are lost, as with Darshan (no log is written at exec). Its
//! crash-safe file would stay behind as if the process had been killed,
//! so it is removed first (only by the process it belongs to: a vfork
//! child's exec leaves its parent's file alone).

use darshan_core::{logmap, runtime, Platform};
use libc::{c_char, c_int};

use crate::guard::enosys;
use crate::platform::LIBC;
use crate::real;

fn before_exec() {
    // Under a seccomp filter in the runtime's way the file stays (and
    // removing it could be the call that kills the program).
    if darshan_core::seccomp::sealed() {
        return;
    }
    if logmap::has_file() && runtime::core().shared().is_some() && LIBC.pid() == runtime::core().times().pid {
        logmap::remove();
    }
}

type Argv = *const *const c_char;

#[no_mangle]
pub unsafe extern "C" fn execve(path: *const c_char, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::execve() else { return enosys() };
    let _ = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(path, argv, envp) }
}

#[no_mangle]
pub unsafe extern "C" fn execv(path: *const c_char, argv: Argv) -> c_int {
    let Some(r) = real::execv() else { return enosys() };
    let _ = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(path, argv) }
}

#[no_mangle]
pub unsafe extern "C" fn execvp(file: *const c_char, argv: Argv) -> c_int {
    let Some(r) = real::execvp() else { return enosys() };
    let _ = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(file, argv) }
}

#[no_mangle]
pub unsafe extern "C" fn execvpe(file: *const c_char, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::execvpe() else { return enosys() };
    let _ = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(file, argv, envp) }
}

#[no_mangle]
pub unsafe extern "C" fn fexecve(fd: c_int, argv: Argv, envp: Argv) -> c_int {
    let Some(r) = real::fexecve() else { return enosys() };
    let _ = std::panic::catch_unwind(before_exec);
    // SAFETY: the real function, with the caller's arguments unchanged.
    unsafe { r(fd, argv, envp) }
}
