//! What darshan-util prints for C programs: a record as darshan-parser
//! prints it (`log_print_record`), what a module's counters mean
//! (`log_print_description`), two records' differences as darshan-diff
//! prints them (`log_print_diff`), and DXT traces as darshan-dxt-parser
//! 3.5.0 prints them (`dxt_log_print_posix_file`,
//! `dxt_log_print_mpiio_file`, with a Lustre file's OSTs). The text is our
//! tools' (darshan_util's printrec, describe, diff and dxt_print), written
//! to the C program's own `stdout` (`stderr` for its warnings) so that its
//! lines and ours come out in order.

use std::ffi::{c_char, c_int, c_void, CStr};

use darshan_log::modules::{module_name, DXT_MPIIO, DXT_POSIX, LUSTRE};
use darshan_util::dxt_print::{print_trace, Layout, Trace};
use darshan_util::printrec::{print_record, LineCtx};

use crate::records::record_at;

extern "C" {
    /// The C library's standard streams, which the calling program's
    /// `printf`s and `fprintf(stderr, ...)`s go through too.
    static stdout: *mut libc::FILE;
    static stderr: *mut libc::FILE;
}

/// `bytes` onto the C program's standard output.
pub(crate) fn c_print(bytes: &[u8]) {
    // SAFETY: `stdout` is the C library's stream, valid for the process's
    // life; fwrite reads bytes.len() bytes of `bytes`.
    unsafe { libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), stdout) };
}

/// `line` and a newline onto the C program's standard error.
fn c_warn(line: &str) {
    let b = format!("{line}\n");
    // SAFETY: as c_print's, for `stderr`.
    unsafe { libc::fwrite(b.as_ptr().cast(), 1, b.len(), stderr) };
}

/// A C string argument as bytes; NULL as glibc's printf shows it.
///
/// # Safety
/// `s` is null or a NUL-terminated string.
unsafe fn text<'a>(s: *const c_char) -> &'a [u8] {
    if s.is_null() {
        return b"(null)";
    }
    // SAFETY: the caller's.
    unsafe { CStr::from_ptr(s) }.to_bytes()
}

/// Module `id`'s record at `rec`, printed as darshan-parser prints it.
///
/// # Safety
/// `rec` is a record of module `id` in darshan-util's layout; the three
/// strings are null or NUL-terminated.
pub(crate) unsafe fn print_one(
    id: usize,
    rec: *const c_void,
    name: *const c_char,
    mnt: *const c_char,
    fs: *const c_char,
) {
    // SAFETY: the caller's.
    let Ok(r) = (unsafe { record_at(id, rec.cast()) }) else { return };
    // SAFETY: the caller's.
    let (name, mnt, fs) = unsafe { (text(name), text(mnt), text(fs)) };
    let mut buf = Vec::new();
    print_record(&mut buf, &r, &LineCtx { module_label: module_name(id), name, mnt, fs });
    c_print(&buf);
}

/// What module `id`'s counters mean, at record version `ver`.
pub(crate) fn describe(id: usize, ver: c_int) {
    if let Some(d) = darshan_util::describe::description(id, u32::try_from(ver).unwrap_or(0)) {
        c_print(d.as_bytes());
    }
}

/// darshan-util's warning for logs of a runtime whose counters are known
/// to be corrupt (3.2.0), printed on the C program's standard output.
///
/// # Safety
/// `version` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_print_version_warnings(version: *const c_char) {
    // SAFETY: the caller's.
    if !version.is_null() && unsafe { CStr::from_ptr(version) }.to_bytes() == b"3.20" {
        c_print(darshan_util::parser::version_warnings(darshan_log::LogVersion::V320).as_bytes());
    }
}

/// Module `id`'s `log_print_diff` of two records, either of which may be
/// NULL (a record only one log has). LUSTRE's says on stderr that it has
/// none, as darshan-util's does. Two NULLs print nothing (darshan-util
/// would dereference one).
///
/// # Safety
/// Each record is null or a record of module `id` in darshan-util's
/// layout; each name is null or NUL-terminated.
pub(crate) unsafe fn diff_pair(id: usize, one: (*mut c_void, *mut c_char), two: (*mut c_void, *mut c_char)) {
    if id == LUSTRE {
        return c_warn(darshan_util::diff::LUSTRE_NO_DIFF);
    }
    // SAFETY: the caller's.
    let side = |(rec, name): (*mut c_void, *mut c_char)| unsafe {
        if rec.is_null() {
            return None;
        }
        record_at(id, rec.cast()).ok().map(|r| (r, text(name)))
    };
    let (a, b) = (side(one), side(two));
    let mut buf = Vec::new();
    let (one, two) = (a.as_ref().map(|(r, n)| (r, *n)), b.as_ref().map(|(r, n)| (r, *n)));
    darshan_util::diff::print_diff(&mut buf, id, one, two);
    c_print(&buf);
}

/// darshan-util's `struct lustre_record_ref`: the record, then uthash's
/// handle, which is not read.
#[repr(C)]
pub struct LustreRecordRef {
    pub rec: *mut c_void,
}

/// One DXT record printed as darshan-dxt-parser 3.5.0 prints it.
///
/// # Safety
/// `rec` is a DXT record of module `id` in darshan-util's layout (its
/// segments after it); `lustre` is null or a `lustre_record_ref` whose
/// record is null or a LUSTRE record in darshan-util's layout; the
/// strings are null or NUL-terminated.
unsafe fn print_dxt(id: usize, rec: *mut c_void, strings: [*mut c_char; 3], lustre: *const LustreRecordRef) {
    // SAFETY: the caller's.
    let Ok(r) = (unsafe { record_at(id, rec.cast()) }) else { return };
    // SAFETY: the caller's: a reference is null or holds a record pointer.
    let lustre_rec = unsafe { lustre.as_ref() }.map(|l| l.rec).filter(|p| !p.is_null());
    // SAFETY: the caller's: a LUSTRE record.
    let lustre = lustre_rec.and_then(|p| unsafe { record_at(LUSTRE, p.cast()) }.ok());
    // SAFETY: the caller's.
    let [name, mnt, fs] = strings.map(|s| unsafe { text(s) });
    let mut buf = Vec::new();
    print_trace(&mut buf, &Trace { rec: &r, name, mnt, fs, lustre: lustre.as_ref() }, Layout::Release);
    c_print(&buf);
}

/// darshan-util's `dxt_log_print_posix_file`: a DXT_POSIX record's trace,
/// with the OSTs of each segment when `lustre` holds the file's LUSTRE
/// record.
///
/// # Safety
/// As [`print_dxt`]'s.
#[no_mangle]
pub unsafe extern "C" fn dxt_log_print_posix_file(
    rec: *mut c_void,
    name: *mut c_char,
    mnt: *mut c_char,
    fs: *mut c_char,
    lustre: *const LustreRecordRef,
) {
    // SAFETY: the caller's.
    crate::guarded((), || unsafe { print_dxt(DXT_POSIX, rec, [name, mnt, fs], lustre) })
}

/// darshan-util's `dxt_log_print_mpiio_file`: a DXT_MPIIO record's trace.
///
/// # Safety
/// As [`print_dxt`]'s.
#[no_mangle]
pub unsafe extern "C" fn dxt_log_print_mpiio_file(
    rec: *mut c_void,
    name: *mut c_char,
    mnt: *mut c_char,
    fs: *mut c_char,
) {
    // SAFETY: the caller's.
    crate::guarded((), || unsafe { print_dxt(DXT_MPIIO, rec, [name, mnt, fs], std::ptr::null()) })
}
