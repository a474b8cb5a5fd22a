//! The process's descriptor limit (RLIMIT_NOFILE). A program that holds
//! every descriptor its soft limit allows (one that leaks them, or one
//! that set the limit to what it needs) left the runtime none for its
//! crash-safe file or its log: the records were lost, or left in a
//! crash-safe file for darshan-merge. The runtime needs one descriptor for
//! a moment, and the program can no longer use what it holds at exit:
//! when the soft limit is below the hard one, it is raised by one for the
//! runtime's `open` and put back at once (a descriptor above the soft
//! limit stays valid; only new ones are refused). And the number the
//! runtime's descriptor of the moment takes: one out of the program's way.

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

/// A descriptor the runtime holds for a moment (making or growing the
/// crash-safe file) while the program's other threads run, moved at once
/// to a high number. A low number is one a thread of the program may be
/// about to `dup2` onto after closing it: our writes of zeros would then
/// land in the program's file. Up there only the few instructions between
/// `open` and the move are exposed.
///
/// Within the table, not beyond it: a number past the table's size makes
/// the kernel grow the table, and a process with a second thread then
/// waits for an RCU grace period (9-25 ms at the first file I/O of every
/// threaded program, when this moved descriptors near RLIMIT_NOFILE), and
/// the table costs memory in proportion to the number. The numbers of
/// [`HIGH`] lie in every process's table; which of them are free one
/// `poll` says. Keeps the number `open` gave where none is free or it is
/// already that high.
#[allow(unsafe_code)]
pub fn out_of_the_way(f: std::fs::File) -> std::fs::File {
    use std::os::fd::{AsRawFd, FromRawFd};
    if f.as_raw_fd() >= HIGH.start || !any_free(HIGH) {
        return f;
    }
    // SAFETY: duplicates a descriptor we own; the copy is close-on-exec.
    // The lowest free number from HIGH.start is one of HIGH (any_free),
    // unless a thread of the program took the last free one meanwhile.
    let high = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_DUPFD_CLOEXEC, HIGH.start) };
    if high < 0 {
        return f;
    }
    // SAFETY: `high` is a fresh descriptor nothing else holds; the low
    // one closes when `f` drops here.
    unsafe { std::fs::File::from_raw_fd(high) }
}

/// The top eighth of the smallest descriptor table the kernel gives a
/// process (NR_OPEN_DEFAULT, a long's bits: 64 entries on 64-bit), so a
/// number here never grows a table: well clear of the numbers a program
/// reuses. Found by one `poll` instead of reading FDSize from
/// /proc/self/status, which cost 15-30 us of every process's first I/O.
const HIGH: std::ops::Range<libc::c_int> = {
    let first = (std::mem::size_of::<libc::c_long>() * 8) as libc::c_int;
    (first - first / 8)..first
};

/// Whether a number of `r` (at most 16) is free: `poll` marks a number
/// that is not open POLLNVAL, and has no other effect on one that is.
#[allow(unsafe_code)]
fn any_free(r: std::ops::Range<libc::c_int>) -> bool {
    let mut fds = [libc::pollfd { fd: -1, events: 0, revents: 0 }; 16];
    let n = r.len().min(fds.len());
    for (p, fd) in fds.iter_mut().zip(r) {
        p.fd = fd;
    }
    // SAFETY: `fds[..n]` is a valid, writable array of n pollfd; a zero
    // timeout returns at once.
    let ready = unsafe { libc::poll(fds.as_mut_ptr(), n as libc::nfds_t, 0) };
    ready > 0 && fds[..n].iter().any(|p| p.revents & libc::POLLNVAL != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_free_high_number_is_found_and_an_open_one_is_not_taken_for_free() {
        use std::os::fd::AsRawFd;
        assert_eq!(HIGH, 56..64, "64-bit Linux: the top eighth of 64");
        let f = std::fs::File::open("/proc/self/exe").unwrap();
        let n = f.as_raw_fd();
        assert!(!any_free(n..n + 1), "an open descriptor is not free");
        assert!(any_free(1000..1001), "a number beyond the table is free");
        let moved = out_of_the_way(std::fs::File::open("/proc/self/exe").unwrap());
        assert!(HIGH.contains(&moved.as_raw_fd()) || !any_free(HIGH), "moved to {}", moved.as_raw_fd());
    }
}
