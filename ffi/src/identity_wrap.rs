//! setuid and kin: a process that changes its effective user after its
//! first record (a root-started daemon or wrapper dropping to the job's
//! user) gives its crash-safe file to the new user first, so that the
//! shutdown can still remove it (darshan_core::store::owner). The
//! program's call, its result and its errno are its own.

use darshan_core::logmap;
use libc::{c_int, uid_t};

use crate::guard::{self, enosys, Life, OUTSIDE};
use crate::real;

/// `change`, the program's call, made after the crash-safe file is given
/// to `euid` (the effective user it asks for; -1: unchanged) when the
/// runtime may: running, not sealed by a seccomp filter (the hand-over's
/// calls could be the ones it kills), and not in a signal handler that
/// interrupted the runtime on this thread (which holds the map's lock).
fn as_user(euid: uid_t, change: impl FnOnce() -> c_int) -> c_int {
    if euid == uid_t::MAX
        || guard::life() != Life::Running
        || guard::level() != OUTSIDE
        || darshan_core::seccomp::sealed()
        || !logmap::has_file()
    {
        return change();
    }
    let mut change = Some(change);
    let mut done = None;
    guard::record(|| {
        logmap::changing_user(euid, || {
            done = change.take().map(keeping_errno);
            done.is_some_and(|(ret, _)| ret == 0)
        })
    });
    match (done, change) {
        (Some((ret, errno)), _) => {
            // SAFETY: this thread's errno slot; the record guard put back
            // the one from before.
            unsafe { *libc::__errno_location() = errno };
            ret
        }
        // The runtime failed before the call: made now, as it is.
        (None, Some(change)) => change(),
        (None, None) => -1,
    }
}

/// The call's result and the errno it left.
fn keeping_errno(change: impl FnOnce() -> c_int) -> (c_int, c_int) {
    let ret = change();
    // SAFETY: this thread's errno slot, read right after the call.
    (ret, unsafe { *libc::__errno_location() })
}

/// # Safety
/// Called by the program as setuid(2): the caller's obligations are those
/// of the real function, called with its arguments unchanged.
#[no_mangle]
pub unsafe extern "C" fn setuid(uid: uid_t) -> c_int {
    let Some(r) = real::setuid() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    as_user(uid, || unsafe { r(uid) })
}

/// # Safety
/// As [`setuid`], for seteuid(2).
#[no_mangle]
pub unsafe extern "C" fn seteuid(euid: uid_t) -> c_int {
    let Some(r) = real::seteuid() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    as_user(euid, || unsafe { r(euid) })
}

/// # Safety
/// As [`setuid`], for setreuid(2).
#[no_mangle]
pub unsafe extern "C" fn setreuid(ruid: uid_t, euid: uid_t) -> c_int {
    let Some(r) = real::setreuid() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    as_user(euid, || unsafe { r(ruid, euid) })
}

/// # Safety
/// As [`setuid`], for setresuid(2).
#[no_mangle]
pub unsafe extern "C" fn setresuid(ruid: uid_t, euid: uid_t, suid: uid_t) -> c_int {
    let Some(r) = real::setresuid() else { return enosys() };
    // SAFETY: the real function, with the caller's arguments unchanged.
    as_user(euid, || unsafe { r(ruid, euid, suid) })
}
