//! AutoPerf's APMPI module in libdarshan-util, as darshan-util built with
//! `--enable-apmpi-mod` has it (the darshan-util PyDarshan's wheel
//! bundles): `apmpi_logutils` in `mod_logutils[APMPI]` and the four
//! counter-name arrays PyDarshan reads, when install said so
//! (darshan_util::installed); NULL and a "does not decode" error
//! otherwise, as a default build. Reading and writing are autoperf.rs's.
//!
//! Where darshan-util keeps, static to the process, whether the header
//! was printed (so that a second log in one process is misread), ours
//! tells the header by its magic. Its diff
//! (`log_print_diff`) is darshan-diff's (darshan_util::diff_apmpi), with
//! the two logs' sync flags kept from the headers diffed last.

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};

use darshan_log::autoperf::{header_from, perf_from, Apmpi};
use darshan_log::counters::apmpi as c;
use darshan_log::modules::APMPI;
use darshan_util::apmpi::Printer;

use crate::fd::DarshanFd;
use crate::funcs::Funcs;
use crate::names::{pointers, Names};

#[no_mangle]
#[allow(non_upper_case_globals)]
pub static apmpi_counter_names: Names<{ c::NUM_INDICES + 1 }> = pointers(c::C_NAMES);
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static apmpi_f_mpiop_totaltime_counter_names: Names<{ c::F_TIME_NUM_INDICES + 1 }> = pointers(c::F_TIME_C_NAMES);
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static apmpi_f_mpiop_synctime_counter_names: Names<{ c::F_SYNC_NUM_INDICES + 1 }> = pointers(c::F_SYNC_C_NAMES);
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static apmpi_f_mpi_global_counter_names: Names<{ c::F_GLOBAL_NUM_INDICES + 1 }> = pointers(c::F_GLOBAL_C_NAMES);

/// darshan-util's `apmpi_logutils`.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static apmpi_logutils: Funcs = Funcs {
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
    crate::guarded(-1, || unsafe { crate::autoperf::next(fd, buf, APMPI) })
}

/// The record at `rec`: the header when it holds the header's magic.
///
/// # Safety
/// `rec` is an APMPI header or a rank's record as the C structs lay them
/// out.
unsafe fn record_at(rec: *const u8) -> Apmpi {
    // SAFETY: the caller's: at least the header's bytes.
    let head: [u8; c::HEADER_SIZE] = unsafe { rec.cast::<[u8; c::HEADER_SIZE]>().read_unaligned() };
    if i64::from_le_bytes(head[16..24].try_into().unwrap_or([0; 8])) == c::MAGIC {
        return Apmpi::Header(header_from(&head, false));
    }
    // SAFETY: the caller's: not the header, so a rank's whole record.
    let whole = unsafe { std::slice::from_raw_parts(rec, c::PERF_SIZE) };
    Apmpi::Perf(Box::new(perf_from(whole, false)))
}

/// Whether the header printed last said sync times were measured (the
/// ranks' records printed after it show them).
static SYNC: AtomicBool = AtomicBool::new(false);

unsafe extern "C" fn print(rec: *mut c_void, _name: *mut c_char, _mnt: *mut c_char, _fs: *mut c_char) {
    if rec.is_null() {
        return;
    }
    crate::guarded((), || {
        // SAFETY: the caller's: an APMPI record.
        let r = unsafe { record_at(rec.cast()) };
        let mut printer = Printer::with_sync(SYNC.load(Ordering::Relaxed));
        let mut out = Vec::new();
        printer.print(&mut out, &r);
        SYNC.store(printer.sync(), Ordering::Relaxed);
        crate::printing::c_print(&out);
    })
}

/// Whether the headers diffed last (the first log's, the second's) said
/// sync times were measured: darshan-diff.c diffs the header's id before
/// the ranks' (it is the first record of a log).
static DIFF_SYNC: [AtomicBool; 2] = [AtomicBool::new(false), AtomicBool::new(false)];

unsafe extern "C" fn diff(r1: *mut c_void, _n1: *mut c_char, r2: *mut c_void, _n2: *mut c_char) {
    crate::guarded((), || {
        let side = |rec: *mut c_void| {
            // SAFETY: the caller's: each null or an APMPI record.
            (!rec.is_null()).then(|| unsafe { record_at(rec.cast()) })
        };
        let (one, two) = (side(r1), side(r2));
        for (flag, rec) in DIFF_SYNC.iter().zip([&one, &two]) {
            if let Some(Apmpi::Header(h)) = rec {
                flag.store(h.sync_flag != 0, Ordering::Relaxed);
            }
        }
        let [s1, s2] = [0, 1].map(|k| DIFF_SYNC[k].load(Ordering::Relaxed));
        let mut out = Vec::new();
        darshan_util::diff_apmpi::diff_records(&mut out, one.as_ref(), two.as_ref(), s1, s2);
        crate::printing::c_print(&out);
    })
}

unsafe extern "C" fn description(_ver: c_int) {
    crate::printing::c_print(darshan_util::apmpi::DESCRIPTION.as_bytes());
}

unsafe extern "C" fn put(fd: *mut DarshanFd, rec: *mut c_void) -> c_int {
    // SAFETY: the caller's, as darshan_log_put_record's.
    unsafe { crate::autoperf::put(fd, rec, APMPI) }
}
