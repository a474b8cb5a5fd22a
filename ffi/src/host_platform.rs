//! The runtime's host, as core sees it: [`Host`] is core's `Platform`
//! for this library, the system calls (`platform::LIBC`, below every
//! wrapper) and the facts only the host knows (the clock, the mount
//! table, the log directory's check, the standard streams, BG/Q's node),
//! handed to `Core::start` and `Core::start_forked_child`. Above the
//! pieces it reads from, below the frames that hand it over.

use darshan_core::Platform;

use crate::platform::LIBC;

pub struct Host;

/// The host core is given.
pub static HOST: Host = Host;

/// A /proc file in one read where it fits: std's read_to_end starts with
/// a 32-byte probe and doubles (/proc reports no size), eight reads for a
/// mount table, each making the kernel render the table again.
pub(crate) fn read_proc(path: &str) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::with_capacity(32 << 10);
    std::fs::File::open(path)?.read_to_end(&mut buf)?;
    Ok(buf)
}

/// The random part of crash-safe file names: a hash of the host name and
/// the time in microseconds (rank 0's in an MPI job).
pub fn new_logmod() -> u64 {
    let (s, ns) = LIBC.realtime();
    let usec = (s as u64).wrapping_mul(1_000_000).wrapping_add(ns as u64 / 1000);
    darshan_log::hash::hash_with_level(LIBC.hostname().as_bytes(), usec)
}

/// Why `dir` cannot take a log (it does not exist, is not a directory,
/// or this user cannot create files in it), in words a user can act on;
/// None when it can.
pub(crate) fn unusable_dir(dir: &str) -> Option<String> {
    let fix = "set DARSHAN_LOGPATH (or LOGPATH in the DARSHAN_CONFIG_PATH file) to a directory you can write";
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Some(format!("the log directory {dir} does not exist ({fix}; darshan-mk-log-dirs makes a dated tree)"))
        }
        Err(e) => Some(format!("the log directory {dir} cannot be used: {e} ({fix})")),
        Ok(m) if !m.is_dir() => Some(format!("the log path {dir} is not a directory ({fix})")),
        Ok(_) => {
            let Ok(c) = std::ffi::CString::new(dir) else { return Some(format!("the log path {dir} holds a NUL")) };
            // SAFETY: a NUL-terminated path; access() only reads it.
            let ok = unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } == 0;
            (!ok).then(|| format!("the log directory {dir} is not writable by this user ({fix})"))
        }
    }
}

impl Platform for Host {
    fn statfs(&self, path: &std::ffi::CStr) -> Option<(i64, i64)> {
        LIBC.statfs(path)
    }
    fn stderr(&self, msg: &[u8]) {
        LIBC.stderr(msg)
    }
    fn realtime(&self) -> (i64, i64) {
        LIBC.realtime()
    }
    fn pid(&self) -> i64 {
        LIBC.pid()
    }
    fn euid(&self) -> i64 {
        LIBC.euid()
    }
    fn hostname(&self) -> String {
        LIBC.hostname()
    }
    fn thread_id(&self) -> u64 {
        LIBC.thread_id()
    }
    fn own_io_begin(&self) -> i32 {
        LIBC.own_io_begin()
    }
    fn own_io_end(&self, saved: i32) {
        LIBC.own_io_end(saved)
    }
    fn open_unnamed(&self, dir: &str, mode: u32) -> Option<Box<dyn darshan_core::platform::UnnamedLog>> {
        LIBC.open_unnamed(dir, mode)
    }
    fn ticks_per_sec_now(&self) -> f64 {
        crate::clock::ticks_per_sec_now()
    }
    fn dir_unusable(&self, dir: &str) -> Option<String> {
        unusable_dir(dir)
    }
    fn mount_table(&self) -> Vec<u8> {
        read_proc("/proc/self/mounts").unwrap_or_default()
    }
    fn start_clock(&self) {
        crate::clock::start()
    }
    fn clock_read_ns(&self) -> f64 {
        crate::clock::read_cost_ns()
    }
    fn secs_per_tick(&self, provisional: bool) -> f64 {
        if provisional {
            crate::clock::provisional_secs_per_tick()
        } else {
            crate::clock::secs_per_tick()
        }
    }
    fn recording_starts(&self, secs_per_tick: f64) {
        crate::cwd::start(secs_per_tick)
    }
    fn before_modules(&self) {
        crate::stdio_wrap::attach_std_streams(crate::host::std_streams())
    }
    fn after_modules(&self, rank: i64) {
        crate::bgq_wrap::capture(rank)
    }
    fn new_logmod(&self) -> u64 {
        new_logmod()
    }
}
