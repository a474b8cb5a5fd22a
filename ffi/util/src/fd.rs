//! The handle C programs hold (`darshan_fd`, darshan-util's `struct
//! darshan_fd_s`) and the structs its calls share, and what the handle
//! hides: a log read (crate::reading) or written (crate::writing). Below
//! the calls that read (crate::handle, records, names) and write
//! (crate::writer), which find their side of a handle here.

use std::ffi::{c_char, c_int};

use darshan_log::modules::MAX_MODS;

use crate::reading::State;
use crate::writing::Writing;

/// darshan-util's `struct darshan_log_map`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct LogMap {
    pub off: u64,
    pub len: u64,
}

/// darshan-util's `struct darshan_fd_s`, field for field: C programs read
/// its public part (the version, maps, module versions), and PyDarshan
/// reads the version string at the handle's address.
#[repr(C)]
pub struct DarshanFd {
    pub version: [c_char; 8],
    pub swap_flag: c_int,
    pub partial_flag: u64,
    pub comp_type: c_int,
    pub job_map: LogMap,
    pub name_map: LogMap,
    pub mod_map: [LogMap; MAX_MODS],
    pub mod_ver: [u32; MAX_MODS],
    pub state: *mut Inner,
    pub first_heatmap_record_nbins: i64,
    pub first_heatmap_record_bin_width_seconds: f64,
}

impl DarshanFd {
    /// A handle of a log of `version` holding `inner`, its maps and module
    /// versions empty.
    pub fn new(version: darshan_log::LogVersion, partial_flag: u64, comp_type: c_int, inner: Inner) -> DarshanFd {
        let mut v = [0 as c_char; 8];
        for (d, s) in v.iter_mut().zip(version.as_str().bytes().take(7)) {
            *d = s as c_char;
        }
        DarshanFd {
            version: v,
            swap_flag: 0,
            partial_flag,
            comp_type,
            job_map: LogMap::default(),
            name_map: LogMap::default(),
            mod_map: [LogMap::default(); MAX_MODS],
            mod_ver: [0; MAX_MODS],
            state: Box::into_raw(Box::new(inner)),
            first_heatmap_record_nbins: 0,
            first_heatmap_record_bin_width_seconds: 0.0,
        }
    }
}

/// What a handle holds: a log being read (`darshan_log_open`) or written
/// (`darshan_log_create`).
pub enum Inner {
    Read(State),
    Write(Box<Writing>),
}

impl Inner {
    /// The reading side, or one line on stderr.
    fn reading(&mut self) -> Option<&mut State> {
        match self {
            Inner::Read(st) => Some(st),
            Inner::Write(_) => say("the Darshan log file handle was created for writing"),
        }
    }

    /// The writing side, or one line on stderr.
    fn writing(&mut self) -> Option<&mut Writing> {
        match self {
            Inner::Write(w) => Some(w),
            Inner::Read(_) => say("the Darshan log file handle was opened for reading"),
        }
    }
}

/// `what`, as darshan-util says an error: nothing to hand back.
fn say<T>(what: &str) -> Option<T> {
    eprintln!("Error: {what}.");
    None
}

/// darshan-util's `struct darshan_mnt_info`.
#[repr(C)]
pub struct MntInfo {
    pub mnt_type: [c_char; darshan_log::job::EXE_LEN],
    pub mnt_path: [c_char; darshan_log::job::EXE_LEN],
}

/// darshan-util's `struct darshan_job`.
#[repr(C)]
pub struct CJob {
    pub uid: i64,
    pub start_time_sec: i64,
    pub start_time_nsec: i64,
    pub end_time_sec: i64,
    pub end_time_nsec: i64,
    pub nprocs: i64,
    pub jobid: i64,
    pub metadata: [c_char; 1024],
}

/// What the handle holds (one line on stderr for a null handle).
///
/// # Safety
/// `fd` is null or a handle `darshan_log_open` or `darshan_log_create`
/// returned and not yet closed.
pub unsafe fn inner<'a>(fd: *mut DarshanFd) -> Option<&'a mut Inner> {
    if fd.is_null() {
        return say("invalid Darshan log file handle");
    }
    // SAFETY: the caller's: a live handle, whose state is a live Box.
    unsafe { (*fd).state.as_mut() }
}

/// The handle's reading state, if it was opened to read.
///
/// # Safety
/// As [`inner`].
pub unsafe fn state<'a>(fd: *mut DarshanFd) -> Option<&'a mut State> {
    // SAFETY: the caller's.
    unsafe { inner(fd) }.and_then(Inner::reading)
}

/// The handle's writing state, if it was created to write.
///
/// # Safety
/// As [`inner`].
pub unsafe fn writing<'a>(fd: *mut DarshanFd) -> Option<&'a mut Writing> {
    // SAFETY: the caller's.
    unsafe { inner(fd) }.and_then(Inner::writing)
}
