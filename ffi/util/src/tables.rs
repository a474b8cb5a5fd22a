//! darshan-util's per-module function tables (`mod_logutils[id]`,
//! `posix_logutils`, ...), which C programs compiled against
//! darshan-logutils.h call: each module's record reader, its printing as
//! darshan-parser prints (`log_print_record`, `log_print_description`),
//! and, for the modules with an accumulator, a record's size and figures.
//! The printing is our darshan-parser's and darshan-diff's (printing.rs),
//! written to the C program's own `stdout` so that its lines and ours come
//! out in order. Which entries are NULL is darshan-util
//! 3.5.0's: callers test some of them (darshan-parser skips a module
//! without a description). The writer's entry writes the record
//! (writer.rs).

use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_void};

use darshan_log::modules::*;

use crate::fd::DarshanFd;
use crate::get::darshan_log_get_record;
use crate::printing::{describe, diff_pair, print_one};

use crate::funcs::Funcs;

/// A table's functions for module `$id`, named `$m` in the functions'
/// names, and the table `$table` exported under darshan-util's name.
macro_rules! table {
    ($table:ident, $id:expr, describe: $d:literal, diff: $df:literal, sized: $s:literal) => {
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
            unsafe extern "C" fn diff(r1: *mut c_void, n1: *mut c_char, r2: *mut c_void, n2: *mut c_char) {
                // SAFETY: the caller's: records of this module (or NULL)
                // and C strings.
                crate::guarded((), || unsafe { diff_pair(ID, (r1, n1), (r2, n2)) })
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
                log_print_diff: if $df { Some(diff) } else { None },
                log_agg_records: if crate::agg::combines(ID) { Some(agg) } else { None },
                log_sizeof_record: if $s { Some(size) } else { None },
                log_record_metrics: if $s { Some(crate::metrics::record_metrics::<ID>) } else { None },
            }
        };
    };
}

table!(null_logutils, NULL, describe: true, diff: true, sized: false);
table!(posix_logutils, POSIX, describe: true, diff: true, sized: true);
table!(mpiio_logutils, MPIIO, describe: true, diff: true, sized: true);
table!(hdf5_file_logutils, H5F, describe: true, diff: true, sized: false);
table!(hdf5_dataset_logutils, H5D, describe: true, diff: true, sized: false);
table!(pnetcdf_file_logutils, PNETCDF_FILE, describe: true, diff: true, sized: false);
table!(pnetcdf_var_logutils, PNETCDF_VAR, describe: true, diff: true, sized: false);
table!(bgq_logutils, BGQ, describe: true, diff: true, sized: false);
table!(lustre_logutils, LUSTRE, describe: true, diff: true, sized: false);
table!(stdio_logutils, STDIO, describe: true, diff: true, sized: true);
table!(dxt_posix_logutils, DXT_POSIX, describe: false, diff: false, sized: false);
table!(dxt_mpiio_logutils, DXT_MPIIO, describe: false, diff: false, sized: false);
table!(mdhim_logutils, MDHIM, describe: true, diff: true, sized: false);
table!(heatmap_logutils, HEATMAP, describe: true, diff: false, sized: false);
table!(dfs_logutils, DFS, describe: true, diff: true, sized: true);
table!(daos_logutils, DAOS, describe: true, diff: true, sized: true);

/// A table's address, as `mod_logutils` holds it.
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct Entry(pub *const Funcs);

const fn at(t: &'static Funcs) -> Entry {
    Entry(t)
}

/// `mod_logutils`'s storage: C programs read its entries in place.
#[repr(transparent)]
pub struct Table(UnsafeCell<[Entry; MAX_MODS]>);

// SAFETY: the entries are addresses of the immutable statics above,
// written once, by `install_autoperf` at load, before any caller can run
// (a `.init_array` function); read-only after.
unsafe impl Sync for Table {}

impl Table {
    /// Module `id`'s table (null for none).
    pub fn get(&self, id: usize) -> *const Funcs {
        // SAFETY: read-only after load (see `Sync`).
        unsafe { (*self.0.get()).get(id).map_or(std::ptr::null(), |e| e.0) }
    }
}

/// darshan-util's `mod_logutils`: each module id's table, NULL for the
/// modules a default darshan-util 3.5.0 has none for (NULL, APXC, APMPI)
/// and every id past the known ones; APMPI's and APXC's set at load
/// where install said AutoPerf's records are read (autoperf.rs).
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static mod_logutils: Table = Table(UnsafeCell::new({
    let mut t = [Entry(std::ptr::null()); MAX_MODS];
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
}));

/// Puts AutoPerf's tables in `mod_logutils` where install said so: run
/// by the loader before anything of the library is called.
extern "C" fn install_autoperf() {
    for (m, funcs) in [(APMPI, &crate::apmpi::apmpi_logutils), (APXC, &crate::apxc::apxc_logutils)] {
        if crate::autoperf::on(m) {
            // SAFETY: no caller runs before the loader has run this;
            // nothing else writes the table.
            unsafe { (*mod_logutils.0.get())[m] = at(funcs) };
        }
    }
}

#[used]
#[link_section = ".init_array"]
static INSTALL_AUTOPERF: extern "C" fn() = install_autoperf;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_module_but_nulls_has_a_table() {
        for id in 0..MAX_MODS {
            let none = id >= KNOWN_MODULE_COUNT || matches!(id, NULL | APXC | APMPI);
            assert_eq!(mod_logutils.get(id).is_null(), none, "{}", module_name(id));
        }
    }
}
