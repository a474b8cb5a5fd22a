//! darshan-util's per-module function tables (`mod_logutils[id]`,
//! `posix_logutils`, ...), which C programs compiled against
//! darshan-logutils.h call: each module's record reader, its printing as
//! darshan-parser prints (`log_print_record`, `log_print_description`),
//! and, for the modules with an accumulator, a record's size and figures.
//! The printing is our darshan-parser's (`darshan_util::printrec`,
//! `describe`), written to the C program's own `stdout` so that its lines
//! and ours come out in order. Which entries are NULL is darshan-util
//! 3.5.0's: callers test some of them (darshan-parser skips a module
//! without a description). The writer's entry writes the record
//! (writer.rs).

use std::ffi::{c_char, c_int, c_void, CStr};

use darshan_log::modules::*;
use darshan_util::printrec::{print_record, LineCtx};

use crate::fd::DarshanFd;
use crate::records::{darshan_log_get_record, record_at};

type GetRecord = unsafe extern "C" fn(*mut DarshanFd, *mut *mut c_void) -> c_int;
type PutRecord = unsafe extern "C" fn(*mut DarshanFd, *mut c_void) -> c_int;
type PrintRecord = unsafe extern "C" fn(*mut c_void, *mut c_char, *mut c_char, *mut c_char);
type PrintDescription = unsafe extern "C" fn(c_int);
type PrintDiff = unsafe extern "C" fn(*mut c_void, *mut c_char, *mut c_void, *mut c_char);
type AggRecords = unsafe extern "C" fn(*mut c_void, *mut c_void, c_int);
type SizeofRecord = unsafe extern "C" fn(*mut c_void) -> c_int;
type RecordMetrics = unsafe extern "C" fn(
    *mut c_void,
    *mut u64,
    *mut i64,
    *mut i64,
    *mut i64,
    *mut f64,
    *mut f64,
    *mut f64,
    *mut i64,
    *mut i64,
) -> c_int;

/// darshan-util's `struct darshan_mod_logutil_funcs`.
#[repr(C)]
pub struct Funcs {
    pub log_get_record: Option<GetRecord>,
    pub log_put_record: Option<PutRecord>,
    pub log_print_record: Option<PrintRecord>,
    pub log_print_description: Option<PrintDescription>,
    pub log_print_diff: Option<PrintDiff>,
    pub log_agg_records: Option<AggRecords>,
    pub log_sizeof_record: Option<SizeofRecord>,
    pub log_record_metrics: Option<RecordMetrics>,
}

extern "C" {
    /// The C library's standard output, which the calling program's
    /// `printf`s go through too.
    static stdout: *mut libc::FILE;
}

/// `bytes` onto the C program's standard output.
fn c_print(bytes: &[u8]) {
    // SAFETY: `stdout` is the C library's stream, valid for the process's
    // life; fwrite reads bytes.len() bytes of `bytes`.
    unsafe { libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), stdout) };
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
unsafe fn print_one(id: usize, rec: *const c_void, name: *const c_char, mnt: *const c_char, fs: *const c_char) {
    // SAFETY: the caller's.
    let Ok(r) = (unsafe { record_at(id, rec.cast()) }) else { return };
    // SAFETY: the caller's.
    let (name, mnt, fs) = unsafe { (text(name), text(mnt), text(fs)) };
    let mut buf = Vec::new();
    print_record(&mut buf, &r, &LineCtx { module_label: module_name(id), name, mnt, fs });
    c_print(&buf);
}

/// What module `id`'s counters mean, at record version `ver`.
fn describe(id: usize, ver: c_int) {
    if let Some(d) = darshan_util::describe::description(id, u32::try_from(ver).unwrap_or(0)) {
        c_print(d.as_bytes());
    }
}

/// A table's functions for module `$id`, named `$m` in the functions'
/// names, and the table `$table` exported under darshan-util's name.
macro_rules! table {
    ($table:ident, $id:expr, describe: $d:literal, sized: $s:literal) => {
        #[no_mangle]
        #[allow(non_upper_case_globals)]
        pub static $table: Funcs = {
            const ID: usize = $id;
            unsafe extern "C" fn get(fd: *mut DarshanFd, buf: *mut *mut c_void) -> c_int {
                // SAFETY: the caller's, as darshan_log_get_record's.
                unsafe { darshan_log_get_record(fd, ID as c_int, buf) }
            }
            unsafe extern "C" fn put(fd: *mut DarshanFd, rec: *mut c_void) -> c_int {
                // SAFETY: the caller's: a record of this module.
                crate::guarded(-1, || unsafe { crate::writer::put_record(ID, fd, rec) })
            }
            unsafe extern "C" fn agg(rec: *mut c_void, agg: *mut c_void, init: c_int) {
                // SAFETY: the caller's: records of this module.
                crate::guarded((), || unsafe { crate::agg::agg_into(ID, rec, agg, init != 0) })
            }
            unsafe extern "C" fn print(rec: *mut c_void, name: *mut c_char, mnt: *mut c_char, fs: *mut c_char) {
                // SAFETY: the caller's: a record of this module and C strings.
                crate::guarded((), || unsafe { print_one(ID, rec, name, mnt, fs) })
            }
            unsafe extern "C" fn description(ver: c_int) {
                crate::guarded((), || describe(ID, ver))
            }
            // The modules with one have records of a fixed size: the
            // struct's.
            unsafe extern "C" fn size(_rec: *mut c_void) -> c_int {
                crate::records::record_size(ID) as c_int
            }
            Funcs {
                log_get_record: Some(get),
                log_put_record: Some(put),
                log_print_record: Some(print),
                log_print_description: if $d { Some(description) } else { None },
                log_print_diff: None,
                log_agg_records: if crate::agg::combines(ID) { Some(agg) } else { None },
                log_sizeof_record: if $s { Some(size) } else { None },
                log_record_metrics: if $s { Some(crate::metrics::record_metrics::<ID>) } else { None },
            }
        };
    };
}

table!(null_logutils, NULL, describe: true, sized: false);
table!(posix_logutils, POSIX, describe: true, sized: true);
table!(mpiio_logutils, MPIIO, describe: true, sized: true);
table!(hdf5_file_logutils, H5F, describe: true, sized: false);
table!(hdf5_dataset_logutils, H5D, describe: true, sized: false);
table!(pnetcdf_file_logutils, PNETCDF_FILE, describe: true, sized: false);
table!(pnetcdf_var_logutils, PNETCDF_VAR, describe: true, sized: false);
table!(bgq_logutils, BGQ, describe: true, sized: false);
table!(lustre_logutils, LUSTRE, describe: true, sized: false);
table!(stdio_logutils, STDIO, describe: true, sized: true);
table!(dxt_posix_logutils, DXT_POSIX, describe: false, sized: false);
table!(dxt_mpiio_logutils, DXT_MPIIO, describe: false, sized: false);
table!(mdhim_logutils, MDHIM, describe: true, sized: false);
table!(heatmap_logutils, HEATMAP, describe: true, sized: false);
table!(dfs_logutils, DFS, describe: true, sized: true);
table!(daos_logutils, DAOS, describe: true, sized: true);

/// A table's address, as `mod_logutils` holds it.
#[repr(transparent)]
pub struct Entry(pub *const Funcs);

// SAFETY: the pointers are to the immutable statics above, which any
// thread may read.
unsafe impl Sync for Entry {}

const fn at(t: &'static Funcs) -> Entry {
    Entry(t)
}

/// darshan-util's `mod_logutils`: each module id's table, NULL for the
/// modules darshan-util 3.5.0 has none for (NULL, APXC, APMPI) and every
/// id past the known ones.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static mod_logutils: [Entry; MAX_MODS] = {
    let mut t = [const { Entry(std::ptr::null()) }; MAX_MODS];
    t[POSIX] = at(&posix_logutils);
    t[MPIIO] = at(&mpiio_logutils);
    t[H5F] = at(&hdf5_file_logutils);
    t[H5D] = at(&hdf5_dataset_logutils);
    t[PNETCDF_FILE] = at(&pnetcdf_file_logutils);
    t[PNETCDF_VAR] = at(&pnetcdf_var_logutils);
    t[BGQ] = at(&bgq_logutils);
    t[LUSTRE] = at(&lustre_logutils);
    t[STDIO] = at(&stdio_logutils);
    t[DXT_POSIX] = at(&dxt_posix_logutils);
    t[DXT_MPIIO] = at(&dxt_mpiio_logutils);
    t[MDHIM] = at(&mdhim_logutils);
    t[HEATMAP] = at(&heatmap_logutils);
    t[DFS] = at(&dfs_logutils);
    t[DAOS] = at(&daos_logutils);
    t
};

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_module_but_nulls_has_a_table() {
        for (id, table) in mod_logutils.iter().enumerate() {
            let none = id >= KNOWN_MODULE_COUNT || matches!(id, NULL | APXC | APMPI);
            assert_eq!(table.0.is_null(), none, "{}", module_name(id));
        }
    }
}
