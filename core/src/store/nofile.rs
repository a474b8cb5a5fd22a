//! The process's descriptor limit (RLIMIT_NOFILE). A program that holds
//! every descriptor its soft limit allows (one that leaks them, or one
//! that set the limit to what it needs) left the runtime none for its
//! crash-safe file or its log: the records were lost, or left in a
//! crash-safe file for darshan-merge. The runtime needs one descriptor for
//! a moment, and the program can no longer use what it holds at exit:
//! when the soft limit is below the hard one, it is raised by one for the
//! runtime's `open` and put back at once (a descriptor above the soft
//! limit stays valid; only new ones are refused).

use std::io;

/// `open`'s result; when it fails for want of a descriptor (EMFILE) and
/// the hard limit allows one more, its retry with the soft limit one
/// higher for the moment.
#[allow(unsafe_code)]
pub fn with_descriptor<T>(mut open: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let first = open();
    match &first {
        Err(e) if e.raw_os_error() == Some(libc::EMFILE) => {}
        _ => return first,
    }
    let mut was = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `was` is a valid, writable rlimit the call fills when it
    // returns 0.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut was) } != 0 || was.rlim_cur >= was.rlim_max {
        return first;
    }
    let one_more = libc::rlimit { rlim_cur: was.rlim_cur + 1, rlim_max: was.rlim_max };
    // SAFETY: both are valid rlimits; raising the soft limit within the
    // hard one needs no privilege.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &one_more) } != 0 {
        return first;
    }
    let retried = open();
    // SAFETY: as above; the program's own limit, as it was.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &was) };
    retried
}
