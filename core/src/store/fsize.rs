//! The process's file size limit (`ulimit -f`, RLIMIT_FSIZE). A write or
//! `ftruncate` that reaches past it does not just fail: the kernel sends
//! SIGXFSZ, whose default action kills the program with a core dump. The
//! program chose its limit for its own files; the runtime's files (the
//! crash-safe file, the log) must never be the reason it dies, so every
//! size the runtime is about to give a file is asked here first. C Darshan
//! 3.5.0 does not ask: under `ulimit -f 100` it kills a program that
//! writes six bytes, at its crash-safe file's `ftruncate`.

/// The soft limit in bytes, or None when there is none (RLIM_INFINITY,
/// or the limit cannot be read). Asked every time, not cached: the
/// program may lower it with `setrlimit` while it runs, and the runtime
/// asks only when it makes or grows a file (one system call).
#[allow(unsafe_code)]
pub fn limit() -> Option<u64> {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `r` is a valid, writable rlimit the call fills when it
    // returns 0.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(r.rlim_cur)
}

/// Ok when a file may hold `end` bytes (a write may reach offset `end`)
/// without the kernel's SIGXFSZ; else an error (EFBIG's kind) that says
/// the limit, for the runtime's one line.
pub fn fits(end: u64) -> Result<(), std::io::Error> {
    within(end, limit())
}

fn within(end: u64, limit: Option<u64>) -> Result<(), std::io::Error> {
    match limit {
        Some(max) if end > max => Err(std::io::Error::new(
            std::io::Error::from_raw_os_error(libc::EFBIG).kind(),
            format!("{end} bytes would pass the process's file size limit of {max} bytes (ulimit -f)"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::within;

    /// Writing exactly up to the limit is allowed (the kernel signals only
    /// a write at or past it); one byte more is not.
    #[test]
    fn a_size_up_to_the_limit_fits_and_one_byte_more_does_not() {
        assert!(within(1024, Some(1024)).is_ok());
        let e = within(1025, Some(1024)).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("ulimit -f"), "{e}");
        assert!(within(u64::MAX, None).is_ok());
    }
}
