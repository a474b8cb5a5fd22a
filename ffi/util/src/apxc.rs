//! AutoPerf's APXC module in libdarshan-util, as darshan-util built with
//! `--enable-apxc-mod` has it (the darshan-util PyDarshan's wheel
//! bundles): `apxc_logutils` in `mod_logutils[APXC]` and the counter
//! names PyDarshan reads, when install said so (darshan_util::installed);
//! NULL and a "does not decode" error otherwise, as a default build.
//! Reading and writing are autoperf.rs's; printing and diffing tell the
//! header by its magic (darshan-util by a flag static to the process).

use std::ffi::{c_char, c_int, c_void};

use darshan_log::apxc::{header_from, perf_from, Apxc};
use darshan_log::counters::apxc as c;
use darshan_log::modules::APXC;

use crate::fd::DarshanFd;
use crate::funcs::Funcs;
use crate::names::{pointers, Names};

#[no_mangle]
#[allow(non_upper_case_globals)]
pub static apxc_counter_names: Names<{ c::NUM_INDICES + 1 }> = pointers(c::C_NAMES);

/// darshan-util's `apxc_logutils`.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static apxc_logutils: Funcs = Funcs {
    log_get_record: Some(get),
    log_put_record: Some(put),
    log_print_record: Some(print),
    log_print_description: Some(description),
    log_print_diff: Some(diff),
    log_agg_records: None,
    log_sizeof_record: None,
    log_record_metrics: None,
};

unsafe extern "C" fn get(fd: *mut DarshanFd, buf: *mut *mut c_void) -> c_int {
    // SAFETY: the caller's, as darshan_log_get_record's.
    crate::guarded(-1, || unsafe { crate::autoperf::next(fd, buf, APXC) })
}

unsafe extern "C" fn put(fd: *mut DarshanFd, rec: *mut c_void) -> c_int {
    // SAFETY: the caller's, as darshan_log_put_record's.
    unsafe { crate::autoperf::put(fd, rec, APXC) }
}

/// The record at `rec`: the header when it holds the header's magic.
///
/// # Safety
/// `rec` is an APXC header or a router's record as the C structs lay
/// them out.
unsafe fn record_at(rec: *const u8) -> Apxc {
    // SAFETY: the caller's: at least the header's bytes.
    let head: [u8; c::HEADER_SIZE] = unsafe { rec.cast::<[u8; c::HEADER_SIZE]>().read_unaligned() };
    if i64::from_le_bytes(head[16..24].try_into().unwrap_or([0; 8])) == c::MAGIC {
        return Apxc::Header(header_from(&head, false));
    }
    // SAFETY: the caller's: not the header, so a router's whole record.
    Apxc::Perf(perf_from(unsafe { std::slice::from_raw_parts(rec, c::PERF_SIZE) }, false))
}

unsafe extern "C" fn print(rec: *mut c_void, _name: *mut c_char, _mnt: *mut c_char, _fs: *mut c_char) {
    if rec.is_null() {
        return;
    }
    crate::guarded((), || {
        let mut out = Vec::new();
        // SAFETY: the caller's: an APXC record.
        darshan_util::apxc::print(&mut out, &unsafe { record_at(rec.cast()) });
        crate::printing::c_print(&out);
    })
}

unsafe extern "C" fn diff(r1: *mut c_void, _n1: *mut c_char, r2: *mut c_void, _n2: *mut c_char) {
    crate::guarded((), || {
        let side = |rec: *mut c_void| {
            // SAFETY: the caller's: each null or an APXC record.
            (!rec.is_null()).then(|| unsafe { record_at(rec.cast()) })
        };
        let mut out = Vec::new();
        darshan_util::apxc::diff_records(&mut out, side(r1).as_ref(), side(r2).as_ref());
        crate::printing::c_print(&out);
    })
}

unsafe extern "C" fn description(_ver: c_int) {
    crate::printing::c_print(darshan_util::apxc::DESCRIPTION.as_bytes());
}
