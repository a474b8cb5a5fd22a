//! The C entry points that read a module's records: each module's
//! through records.rs, AutoPerf's APMPI through apmpi.rs when install
//! said so (`darshan_log_get_record`, `darshan_log_get_mod`).

use std::ffi::{c_int, c_void};

use darshan_log::modules::{self, KNOWN_MODULE_COUNT};

use crate::fd::{state, DarshanFd};
use crate::reading::State;
use crate::records::{hand_out, next};

/// The next record of module `mod_idx` into `*buf` (a fresh `malloc`
/// block the caller frees, when `*buf` is null): 1, 0 past the last
/// record, -1 on an error (one line on stderr).
///
/// # Safety
/// `fd` is null or a live handle; `buf` is writable, `*buf` null or a
/// buffer of 81,920 bytes.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_record(fd: *mut DarshanFd, mod_idx: c_int, buf: *mut *mut c_void) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    let Some(id) = usize::try_from(mod_idx).ok().filter(|&i| i < KNOWN_MODULE_COUNT) else {
        eprintln!("Error: no module {mod_idx} in darshan-util");
        return -1;
    };
    if buf.is_null() {
        return -1;
    }
    if modules::is_autoperf(id) && crate::autoperf::on(id) {
        // SAFETY: the caller's.
        return crate::guarded(-1, || unsafe { crate::autoperf::next(fd, buf, id) });
    }
    if modules::READ_VERSIONS[id] == 0 {
        // APXC and APMPI (AutoPerf): their layouts are not the format
        // crate's (docs/deployment.md).
        eprintln!("Error: this libdarshan-util does not decode {} records.", modules::module_name(id));
        return -1;
    }
    crate::guarded(-1, || match next(st, id) {
        Ok(None) => 0,
        // SAFETY: the caller's.
        Ok(Some(laid)) => match unsafe { hand_out(&laid, buf) } {
            true => 1,
            false => -1,
        },
        Err(e) => {
            eprintln!("Error: {e}.");
            -1
        }
    })
}

/// darshan-util's `darshan_log_get_mod`: up to `len` bytes of module
/// `mod_id`'s region into `buf`, as the log holds them (its byte order, its
/// version's layout), from where the last call on the module (this or
/// `darshan_log_get_record`) left off. Returns the bytes read (fewer at the
/// region's end, the rest of `buf` then zeroed as darshan-util does; the call
/// after starts the region again), 0 for a module without data, -1 (one
/// line on stderr) for a bad handle or id, a version newer than this
/// library's headers say, or a region that cannot be read.
///
/// # Safety
/// `fd` is null or a live handle; `buf` holds `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_mod(fd: *mut DarshanFd, mod_id: c_int, buf: *mut c_void, len: c_int) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else {
        eprintln!("Error: invalid Darshan log file handle.");
        return -1;
    };
    let Some(id) = usize::try_from(mod_id).ok().filter(|&i| i < KNOWN_MODULE_COUNT) else {
        eprintln!("Error: invalid Darshan module id.");
        return -1;
    };
    let h = &st.log().header;
    if h.mod_map[id].len == 0 {
        return 0;
    }
    let autoperf = modules::is_autoperf(id) && crate::autoperf::on(id);
    let known = if autoperf { darshan_log::autoperf::layout(id).0 } else { modules::WRITE_VERSIONS[id] };
    let ver = h.mod_ver[id];
    if ver > known {
        let name = modules::module_name(id);
        eprintln!("Error: invalid {name} module log format version (expected {known}, got {ver})");
        return -1;
    }
    let Some(len) = usize::try_from(len).ok().filter(|&n| n > 0 && !buf.is_null()) else { return 0 };
    // SAFETY: the caller's: `len` writable bytes.
    let out = unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
    let read = |st: &mut State, out: &mut [u8]| match autoperf {
        true => st.autoperf_reader(id).and_then(|rd| rd.read_raw(out)),
        false => st.reader(id).and_then(|rd| rd.read_raw(out)),
    };
    crate::guarded(-1, || match read(st, out) {
        Ok(n) => {
            if n < len {
                if n > 0 {
                    out[n..].fill(0);
                }
                match autoperf {
                    true => st.autoperf_ended(),
                    false => st.ended(id),
                }
            }
            n as c_int
        }
        Err(_) => {
            eprintln!("Error: failed to read module {} data from darshan log file.", modules::module_name(id));
            -1
        }
    })
}
