//! The PnetCDF library a program calls, as the wrappers use it: the file
//! and variable calls wrapped by hand (pnetcdf_wrap.rs) and the inquiry
//! functions Darshan asks it (a file's path and sizes moved, a variable's
//! type and dimensions), each resolved the first time it is needed with
//! `dlsym(RTLD_NEXT)`, else outside the global scope (a libpnetcdf that a
//! dlopen'ed object brought in: loaded.rs, interposition rule 3a), like
//! the generated put/get wrappers' own (pnetcdf_api.rs).
//! No undefined ncmpi_ symbol and no dependency on libpnetcdf in this
//! library, so a program without PnetCDF never loads it.

use std::ffi::{c_char, c_int, c_void};
use std::sync::atomic::AtomicPtr;

use crate::real::lookup;

/// MPI_Offset.
pub type Offset = i64;

pub const NC_NOERR: c_int = 0;
/// What a wrapper returns when the real function cannot be found:
/// "attempt to use a feature that was not turned on when netCDF was built".
pub const NC_ENOTBUILT: c_int = -128;
/// The largest name and rank a variable can have (pnetcdf.h).
pub const NC_MAX_NAME: usize = 256;
pub const NC_MAX_VAR_DIMS: usize = 1024;

use crate::mpi_abi::H;

reals! {
    ncmpi_create: fn(H, *const c_char, c_int, H, *mut c_int) -> c_int;
    ncmpi_open: fn(H, *const c_char, c_int, H, *mut c_int) -> c_int;
    ncmpi_close: fn(c_int) -> c_int;
    ncmpi_enddef: fn(c_int) -> c_int;
    ncmpi_redef: fn(c_int) -> c_int;
    ncmpi_sync: fn(c_int) -> c_int;
    ncmpi_wait: fn(c_int, c_int, *mut c_int, *mut c_int) -> c_int;
    ncmpi_wait_all: fn(c_int, c_int, *mut c_int, *mut c_int) -> c_int;
    ncmpi_def_var: fn(c_int, *const c_char, c_int, c_int, *const c_int, *mut c_int) -> c_int;
    ncmpi_inq_varid: fn(c_int, *const c_char, *mut c_int) -> c_int;
    ncmpi_inq_path: fn(c_int, *mut c_int, *mut c_char) -> c_int;
    ncmpi_inq_unlimdim: fn(c_int, *mut c_int) -> c_int;
    ncmpi_inq_dimlen: fn(c_int, c_int, *mut Offset) -> c_int;
    ncmpi_inq_put_size: fn(c_int, *mut Offset) -> c_int;
    ncmpi_inq_get_size: fn(c_int, *mut Offset) -> c_int;
    ncmpi_inq_vartype: fn(c_int, c_int, *mut c_int) -> c_int;
    ncmpi_inq_varndims: fn(c_int, c_int, *mut c_int) -> c_int;
    ncmpi_inq_vardimid: fn(c_int, c_int, *mut c_int) -> c_int;
}

/// The bytes of one value of external type `xtype`, as Darshan sizes it:
/// NC_BYTE, NC_CHAR, NC_UBYTE 1; NC_SHORT, NC_USHORT 2; NC_INT, NC_UINT,
/// NC_FLOAT 4; anything else 8.
pub fn type_size(xtype: c_int) -> i64 {
    match xtype {
        1 | 2 | 7 => 1,
        3 | 8 => 2,
        4 | 9 | 5 => 4,
        _ => 8,
    }
}

/// The current length of dimension `dimid` (for the unlimited one: the
/// number of records), 0 if PnetCDF cannot say.
pub fn dimlen(ncid: c_int, dimid: c_int) -> i64 {
    let mut len: Offset = 0;
    // SAFETY: `len` is a writable MPI_Offset, as ncmpi_inq_dimlen takes.
    if ncmpi_inq_dimlen().is_some_and(|f| unsafe { f(ncid, dimid, &mut len) } == NC_NOERR) {
        len
    } else {
        0
    }
}

/// The file's unlimited dimension, -1 if it has none (or PnetCDF cannot
/// say).
pub fn unlimdim(ncid: c_int) -> c_int {
    let mut id: c_int = -1;
    // SAFETY: `id` is a writable int.
    if ncmpi_inq_unlimdim().is_some_and(|f| unsafe { f(ncid, &mut id) } == NC_NOERR) {
        id
    } else {
        -1
    }
}

/// `ncmpi_inq_put_size` (`put`) or `ncmpi_inq_get_size`: the bytes the
/// file has moved since it was opened, -1 if PnetCDF cannot say.
pub fn moved(ncid: c_int, put: bool) -> i64 {
    let f = if put { ncmpi_inq_put_size() } else { ncmpi_inq_get_size() };
    let mut size: Offset = 0;
    // SAFETY: `size` is a writable MPI_Offset.
    if f.is_some_and(|f| unsafe { f(ncid, &mut size) } == NC_NOERR) {
        size
    } else {
        -1
    }
}

/// The path `ncid` was created or opened with, NUL-terminated in `buf`;
/// None if PnetCDF cannot say or it does not fit.
pub fn path(ncid: c_int, buf: &mut [u8]) -> Option<&[u8]> {
    let f = ncmpi_inq_path()?;
    let mut len: c_int = 0;
    // SAFETY: `len` is writable; a null path asks for the length only.
    if unsafe { f(ncid, &mut len, std::ptr::null_mut()) } != NC_NOERR {
        return None;
    }
    let len = usize::try_from(len).ok().filter(|&n| n < buf.len())?;
    // SAFETY: `buf` has room for the path and its NUL (checked above).
    if unsafe { f(ncid, std::ptr::null_mut(), buf.as_mut_ptr().cast()) } != NC_NOERR {
        return None;
    }
    buf[len] = 0;
    Some(&buf[..=len])
}

/// Type, rank and dimension ids of variable `varid` (for
/// `ncmpi_inq_varid`, whose caller gives none of them); the ids are
/// written to `dimids`. None if PnetCDF cannot say or there are more than
/// `dimids` holds.
pub fn var_shape(ncid: c_int, varid: c_int, dimids: &mut [c_int]) -> Option<(c_int, usize)> {
    let (Some(ty), Some(nd), Some(ids)) = (ncmpi_inq_vartype(), ncmpi_inq_varndims(), ncmpi_inq_vardimid()) else {
        return None;
    };
    let (mut xtype, mut ndims): (c_int, c_int) = (0, 0);
    // SAFETY: writable ints.
    if unsafe { ty(ncid, varid, &mut xtype) } != NC_NOERR || unsafe { nd(ncid, varid, &mut ndims) } != NC_NOERR {
        return None;
    }
    let n = usize::try_from(ndims).ok().filter(|&n| n <= dimids.len())?;
    // SAFETY: `dimids` has room for the variable's `n` dimension ids.
    if unsafe { ids(ncid, varid, dimids.as_mut_ptr()) } != NC_NOERR {
        return None;
    }
    Some((xtype, n))
}

/// The rank of variable `varid` of `ncid` as PnetCDF has it, None if it
/// cannot say.
pub fn var_ndims(ncid: c_int, varid: c_int) -> Option<usize> {
    let mut n: c_int = 0;
    // SAFETY: a writable int.
    let ok = ncmpi_inq_varndims().is_some_and(|f| unsafe { f(ncid, varid, &mut n) } == NC_NOERR);
    ok.then(|| usize::try_from(n).ok()).flatten()
}
