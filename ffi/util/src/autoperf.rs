//! What AutoPerf's two modules (APMPI, APXC) share in libdarshan-util,
//! as darshan-util built with `--enable-apmpi-mod`/`--enable-apxc-mod`
//! has them: a region of raw structs, the header first, read and written
//! one record per call, handed out as the C structs lay them out, native
//! byte order. Each module's names, printing and table are its own file's
//! (apmpi.rs, apxc.rs), set in `mod_logutils` when install said so
//! (darshan_util::installed).
//!
//! Where darshan-util keeps, static to the process, whether the header
//! was read or written (so that a second log in one process is misread),
//! ours keeps it per handle.

use std::ffi::{c_int, c_void};

use darshan_log::apxc::native_autoperf_record;
use darshan_log::autoperf::layout;
use darshan_log::modules::module_name;

use crate::fd::{state, DarshanFd};
use crate::records::{hand_out, Laid};

/// Whether install said AutoPerf's module `m` is read.
pub fn on(m: usize) -> bool {
    darshan_util::installed::reads_autoperf(m)
}

/// The next record of module `m` of the handle into `*buf` (see
/// `darshan_log_get_record`): 1, 0 past the last, -1 (one line on
/// stderr).
///
/// # Safety
/// `fd` is null or a live handle; `buf` is writable, `*buf` null or a
/// buffer of 81,920 bytes.
pub unsafe fn next(fd: *mut DarshanFd, buf: *mut *mut c_void, m: usize) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    if st.log().header.mod_map[m].len == 0 {
        return 0;
    }
    let (name, ver, swapped) = (module_name(m), st.log().header.mod_ver[m], st.log().header.swapped);
    if ver == 0 || ver > layout(m).0 {
        eprintln!("Error: Invalid {name} module version number (got {ver})");
        return -1;
    }
    let read = st.autoperf_reader(m).and_then(|rd| {
        let header = rd.at_header();
        Ok(rd.next_raw()?.map(|b| native_autoperf_record(m, header, b, swapped)))
    });
    let bytes = match read {
        Ok(Some(bytes)) => bytes,
        Ok(None) => {
            st.autoperf_ended();
            return 0;
        }
        Err(_) => {
            eprintln!("Error: failed to read module {name} data from darshan log file.");
            return -1;
        }
    };
    // SAFETY: the caller's.
    match unsafe { hand_out(&Laid { bytes, pointers: Vec::new() }, buf) } {
        true => 1,
        false => -1,
    }
}

/// Writes the record at `rec` of module `m`: the handle's first record of
/// the module is the header, every later one a record, at the module's
/// version. 0, or -1.
///
/// # Safety
/// `fd` is null or a live handle; `rec` is null or the record's bytes.
pub unsafe fn put(fd: *mut DarshanFd, rec: *mut c_void, m: usize) -> c_int {
    if fd.is_null() || rec.is_null() {
        return -1;
    }
    let (version, header, perf) = layout(m);
    // SAFETY: the caller's: a live handle. Its module version is set by
    // the first record written.
    let first = unsafe { (*fd).mod_ver[m] } == 0;
    let len = if first { header } else { perf };
    // SAFETY: the caller's: the record's `len` bytes at `rec`.
    let done = unsafe { crate::writer::darshan_log_put_mod(fd, m as c_int, rec, len as c_int, version as c_int) };
    if done < 0 {
        -1
    } else {
        0
    }
}
