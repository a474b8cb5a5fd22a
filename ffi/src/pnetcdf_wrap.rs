//! The PnetCDF file and variable wrappers (PNETCDF_FILE, and the opens of
//! PNETCDF_VAR): ncmpi_create, open, close, enddef, redef, sync, wait,
//! wait_all, def_var and inq_varid, as darshan-pnetcdf-api.m4 wraps them.
//! Each passes through unless recording, times exactly the real call, and
//! asks PnetCDF what the record needs afterwards, under the guard. The
//! puts and gets, several hundred of them, are generated from one table
//! in pnetcdf_api.rs.

use std::ffi::{c_char, c_int, CStr};

use darshan_core::common::Tick;
use darshan_core::paths::PATH_MAX;
use darshan_pnetcdf::{Meta, VarInfo, PNETCDF_FILE, PNETCDF_VAR};

use crate::guard::{record, recording};
use crate::mpi_abi::H;
use crate::pnetcdf_lib::{self as lib, NC_ENOTBUILT, NC_MAX_NAME, NC_MAX_VAR_DIMS, NC_NOERR};
use crate::{clock, paths};

/// Whether PNETCDF_FILE (`file`) or PNETCDF_VAR records anything
/// (`DARSHAN_MOD_DISABLE` can turn either off: then not even the inquiry
/// calls are made).
pub fn enabled(file: bool) -> bool {
    use darshan_log::modules as m;
    let id = if file { m::PNETCDF_FILE } else { m::PNETCDF_VAR };
    darshan_core::runtime::core().ledger.enabled(id)
}

/// Run the real call (None: the library has none, which fails the call
/// with NC_ENOTBUILT); while recording and `on`, time it and hand the
/// result and the two clock readings to `rec`, under the guard.
pub fn timed(on: bool, call: impl FnOnce() -> Option<c_int>, rec: impl FnOnce(c_int, Tick, Tick)) -> c_int {
    if !on || !recording() {
        return call().unwrap_or(NC_ENOTBUILT);
    }
    let t1 = clock::now();
    let Some(r) = call() else { return NC_ENOTBUILT };
    let t2 = clock::now();
    record(|| rec(r, t1, t2));
    r
}

/// A file created or opened as `*ncidp` under `path`: the path with a
/// `prefix:` longer than one character removed (as MPI_File_open's),
/// cleaned.
///
/// # Safety
/// `path` is null or NUL-terminated; `ncidp` is null or the int the real
/// call just wrote.
unsafe fn file_opened(path: *const c_char, ncidp: *const c_int, create: bool, t1: Tick, t2: Tick) {
    if path.is_null() || ncidp.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let ncid = unsafe { *ncidp };
    // SAFETY: as above; open_name stays inside the string.
    unsafe {
        paths::with_clean(None, crate::mpi_wrap::open_name(path), |n| PNETCDF_FILE.on_open(ncid, n, create, t1, t2))
    };
}

/// # Safety
/// As PnetCDF's ncmpi_create.
#[no_mangle]
pub unsafe extern "C" fn ncmpi_create(comm: H, path: *const c_char, cmode: c_int, info: H, ncidp: *mut c_int) -> c_int {
    timed(
        enabled(true),
        // SAFETY: the program's arguments, passed on unchanged.
        || lib::ncmpi_create().map(|f| unsafe { f(comm, path, cmode, info, ncidp) }),
        // SAFETY: the path and ncid the successful call just took and gave.
        |r, t1, t2| unsafe {
            if r == NC_NOERR {
                file_opened(path, ncidp, true, t1, t2)
            }
        },
    )
}

/// # Safety
/// As PnetCDF's ncmpi_open.
#[no_mangle]
pub unsafe extern "C" fn ncmpi_open(comm: H, path: *const c_char, omode: c_int, info: H, ncidp: *mut c_int) -> c_int {
    timed(
        enabled(true),
        // SAFETY: the program's arguments, passed on unchanged.
        || lib::ncmpi_open().map(|f| unsafe { f(comm, path, omode, info, ncidp) }),
        // SAFETY: the path and ncid the successful call just took and gave.
        |r, t1, t2| unsafe {
            if r == NC_NOERR {
                file_opened(path, ncidp, false, t1, t2)
            }
        },
    )
}

/// # Safety
/// As PnetCDF's ncmpi_close.
#[no_mangle]
pub unsafe extern "C" fn ncmpi_close(ncid: c_int) -> c_int {
    let on = enabled(true) && recording();
    // What the file moved since it was opened, asked before it closes.
    let (mut put, mut get) = (-1, -1);
    if on {
        record(|| (put, get) = (lib::moved(ncid, true), lib::moved(ncid, false)));
    }
    timed(
        on,
        // SAFETY: the program's argument, passed on unchanged.
        || lib::ncmpi_close().map(|f| unsafe { f(ncid) }),
        |r, t1, t2| {
            if r == NC_NOERR {
                PNETCDF_FILE.on_close(ncid, put, get, t1, t2)
            }
        },
    )
}

/// ncmpi_enddef, ncmpi_redef and ncmpi_sync: metadata time, and a count
/// for the last two.
macro_rules! meta_wrap {
    ($name:ident, $call:expr) => {
        /// # Safety
        /// As PnetCDF's function of this name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(ncid: c_int) -> c_int {
            timed(
                enabled(true),
                // SAFETY: the program's argument, passed on unchanged.
                || lib::$name().map(|f| unsafe { f(ncid) }),
                |r, t1, t2| {
                    if r == NC_NOERR {
                        PNETCDF_FILE.on_meta(ncid, $call, t1, t2)
                    }
                },
            )
        }
    };
}

meta_wrap!(ncmpi_enddef, Meta::Enddef);
meta_wrap!(ncmpi_redef, Meta::Redef);
meta_wrap!(ncmpi_sync, Meta::Sync);

/// ncmpi_wait and ncmpi_wait_all, counted whether they succeed or not.
macro_rules! wait_wrap {
    ($name:ident, $collective:expr) => {
        /// # Safety
        /// As PnetCDF's function of this name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(ncid: c_int, num: c_int, requests: *mut c_int, statuses: *mut c_int) -> c_int {
            timed(
                enabled(true),
                // SAFETY: the program's arguments, passed on unchanged.
                || lib::$name().map(|f| unsafe { f(ncid, num, requests, statuses) }),
                |r, t1, t2| PNETCDF_FILE.on_wait(ncid, $collective, r == NC_NOERR, t1, t2),
            )
        }
    };
}

wait_wrap!(ncmpi_wait, false);
wait_wrap!(ncmpi_wait_all, true);

/// A variable defined or looked up as `varid`: its record is named
/// `<the file's cleaned path>:<name>` (the path PnetCDF has for the file,
/// prefix and all, as Darshan asks it), and takes its shape from its
/// dimensions `dims`.
///
/// # Safety
/// `name` is null or NUL-terminated.
#[inline(never)] // its two name buffers stay out of the wrappers' frames
unsafe fn var_opened(ncid: c_int, name: *const c_char, xtype: c_int, dims: &[c_int], varid: c_int, t1: Tick, t2: Tick) {
    if name.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let var = unsafe { CStr::from_ptr(name) }.to_bytes();
    let mut path = [0u8; PATH_MAX + 1];
    let Some(path) = lib::path(ncid, &mut path) else { return };
    let unlimdimid = lib::unlimdim(ncid);
    let is_record = dims.first().is_some_and(|&d| unlimdimid >= 0 && d == unlimdimid);
    let npoints = dims[is_record as usize..].iter().fold(1i64, |n, &d| n.wrapping_mul(lib::dimlen(ncid, d)));
    // SAFETY: `path` is NUL-terminated (lib::path).
    unsafe {
        paths::with_clean(None, path.as_ptr().cast(), |file| {
            let mut buf = [0u8; PATH_MAX + 1 + NC_MAX_NAME];
            let n = file.len() + 1 + var.len();
            if n > buf.len() {
                return;
            }
            buf[..file.len()].copy_from_slice(file);
            buf[file.len()] = b':';
            buf[file.len() + 1..n].copy_from_slice(var);
            let info = VarInfo {
                ndims: dims.len() as i64,
                npoints,
                type_size: lib::type_size(xtype),
                is_record,
                unlimdimid,
                file_rec_id: darshan_log::record_id(file),
            };
            PNETCDF_VAR.on_open(varid, &buf[..n], &info, t1, t2);
        })
    };
}

/// # Safety
/// As PnetCDF's ncmpi_def_var.
#[no_mangle]
pub unsafe extern "C" fn ncmpi_def_var(
    ncid: c_int,
    name: *const c_char,
    xtype: c_int,
    ndims: c_int,
    dimids: *const c_int,
    varidp: *mut c_int,
) -> c_int {
    timed(
        enabled(false),
        // SAFETY: the program's arguments, passed on unchanged.
        || lib::ncmpi_def_var().map(|f| unsafe { f(ncid, name, xtype, ndims, dimids, varidp) }),
        |r, t1, t2| {
            let n = usize::try_from(ndims).unwrap_or(0);
            if r != NC_NOERR || varidp.is_null() || (n > 0 && dimids.is_null()) {
                return;
            }
            // SAFETY: what the successful call just took and wrote: a
            // name, `ndims` dimension ids, the new variable's id.
            unsafe {
                let dims = if n == 0 { &[][..] } else { std::slice::from_raw_parts(dimids, n) };
                var_opened(ncid, name, xtype, dims, *varidp, t1, t2)
            }
        },
    )
}

/// # Safety
/// As PnetCDF's ncmpi_inq_varid.
#[no_mangle]
pub unsafe extern "C" fn ncmpi_inq_varid(ncid: c_int, name: *const c_char, varidp: *mut c_int) -> c_int {
    timed(
        enabled(false),
        // SAFETY: the program's arguments, passed on unchanged.
        || lib::ncmpi_inq_varid().map(|f| unsafe { f(ncid, name, varidp) }),
        |r, t1, t2| {
            if r != NC_NOERR || varidp.is_null() {
                return;
            }
            // SAFETY: the id the successful call just wrote.
            let varid = unsafe { *varidp };
            let mut dimids = [0 as c_int; NC_MAX_VAR_DIMS];
            // As Darshan: not recorded when PnetCDF cannot describe it.
            let Some((xtype, n)) = lib::var_shape(ncid, varid, &mut dimids) else { return };
            // SAFETY: the name the call took.
            unsafe { var_opened(ncid, name, xtype, &dimids[..n], varid, t1, t2) }
        },
    )
}
