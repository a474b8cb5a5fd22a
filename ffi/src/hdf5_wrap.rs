//! The HDF5 wrappers (H5F and H5D modules): the functions Darshan's HDF5
//! module wraps, calling the program's own HDF5 library (hdf5_lib.rs).
//! Each passes through unless recording, times exactly the real call,
//! and asks HDF5 what the record needs (names, dataspace, selection)
//! afterwards, under the guard (errno kept, nothing of ours recorded).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use darshan_core::paths::CleanPath;
use darshan_hdf5::dataset::{OpenInfo, MAX_NDIMS};
use darshan_hdf5::{Selection, H5D, H5F};

use crate::guard::{record, recording};
use crate::hdf5_lib::{self as h5, Hdf5, Herr, Hid, Hsize};
use crate::{clock, paths};

/// Darshan's limit on an H5D record name (DARSHAN_HDF5_MAX_NAME_LEN).
const MAX_NAME: usize = 256;

/// The library and the real function, or the error value HDF5 returns
/// when the call cannot be made (no library with this function).
macro_rules! real {
    ($f:ident, $err:expr) => {
        match h5::lib() {
            Some(lib) => match lib.f.$f {
                Some(real) => (lib, real),
                None => return $err,
            },
            None => return $err,
        }
    };
}

/// H5Fcreate/H5Fopen's file name as Darshan records it: a `prefix:`
/// longer than one character removed, then cleaned.
fn on_file_open(lib: &Hdf5, ret: Hid, filename: *const c_char, access_plist: Hid, t1: i64, t2: i64) {
    if filename.is_null() {
        return;
    }
    let use_mpio = lib.uses_mpio(access_plist);
    // SAFETY: the file name the real call just accepted, NUL-terminated.
    unsafe {
        paths::with_clean(None, crate::mpi_wrap::open_name(filename), |name| H5F.on_open(ret, name, use_mpio, t1, t2))
    };
}

/// # Safety
/// As HDF5's H5Fcreate.
#[no_mangle]
pub unsafe extern "C" fn H5Fcreate(filename: *const c_char, flags: c_uint, fcpl: Hid, fapl: Hid) -> Hid {
    let (lib, real) = real!(H5Fcreate, -1);
    if !lib.supported || !recording() {
        // SAFETY: the caller's arguments, passed on unchanged.
        return unsafe { real(filename, flags, fcpl, fapl) };
    }
    let t1 = clock::now();
    // SAFETY: as above.
    let ret = unsafe { real(filename, flags, fcpl, fapl) };
    let t2 = clock::now();
    if ret >= 0 {
        record(|| on_file_open(lib, ret, filename, fapl, t1, t2));
    }
    ret
}

/// # Safety
/// As HDF5's H5Fopen.
#[no_mangle]
pub unsafe extern "C" fn H5Fopen(filename: *const c_char, flags: c_uint, fapl: Hid) -> Hid {
    let (lib, real) = real!(H5Fopen, -1);
    if !lib.supported || !recording() {
        // SAFETY: the caller's arguments, passed on unchanged.
        return unsafe { real(filename, flags, fapl) };
    }
    let t1 = clock::now();
    // SAFETY: as above.
    let ret = unsafe { real(filename, flags, fapl) };
    let t2 = clock::now();
    if ret >= 0 {
        record(|| on_file_open(lib, ret, filename, fapl, t1, t2));
    }
    ret
}

/// # Safety
/// As HDF5's H5Fflush.
#[no_mangle]
pub unsafe extern "C" fn H5Fflush(object_id: Hid, scope: c_int) -> Herr {
    let (lib, real) = real!(H5Fflush, -1);
    if !lib.supported || !recording() {
        // SAFETY: the caller's arguments, passed on unchanged.
        return unsafe { real(object_id, scope) };
    }
    let t1 = clock::now();
    // SAFETY: as above.
    let ret = unsafe { real(object_id, scope) };
    let t2 = clock::now();
    if ret >= 0 {
        record(|| {
            let (Some(file_of), Some(close)) = (lib.f.H5Iget_file_id, lib.f.H5Fclose) else { return };
            // SAFETY: HDF5 calls on an id the real call just accepted; the
            // file id it gives is a new reference, released again.
            unsafe {
                let file_id = file_of(object_id);
                if file_id > 0 {
                    H5F.on_flush(file_id, t1, t2);
                    close(file_id);
                }
            }
        });
    }
    ret
}

/// # Safety
/// As HDF5's H5Fclose.
#[no_mangle]
pub unsafe extern "C" fn H5Fclose(file_id: Hid) -> Herr {
    let (lib, real) = real!(H5Fclose, -1);
    if !lib.supported || !recording() {
        // SAFETY: the caller's argument, passed on unchanged.
        return unsafe { real(file_id) };
    }
    let t1 = clock::now();
    // SAFETY: as above.
    let ret = unsafe { real(file_id) };
    let t2 = clock::now();
    if ret >= 0 {
        record(|| H5F.on_close(file_id, t1, t2));
    }
    ret
}

/// The H5D record name Darshan builds: the file's cleaned path, `:`, the
/// name of `loc_id` and then `name` appended as given (so a dataset `d`
/// in group `/g` is `<file>:/gd`, and one opened by address `<file>://d`:
/// Darshan's names, kept for compatibility), within 255 bytes; and the
/// file record's id (0 when the file name did not fit).
fn dataset_name(lib: &Hdf5, loc_id: Hid, name: &[u8], out: &mut [u8; MAX_NAME]) -> Option<(usize, u64)> {
    let mut raw = [0u8; MAX_NAME];
    let n = Hdf5::name_into(lib.f.H5Fget_name, loc_id, &mut raw[..MAX_NAME - 1]);
    let Some(n) = n else {
        // Too long for the buffer (or an error: then no record at all).
        let g = lib.f.H5Fget_name?;
        // SAFETY: the buffer is writable for MAX_NAME - 1 bytes.
        let r = unsafe { g(loc_id, raw.as_mut_ptr().cast(), MAX_NAME - 1) };
        if r < 0 {
            return None;
        }
        let len = raw.iter().position(|&c| c == 0).unwrap_or(MAX_NAME - 1);
        out[..len].copy_from_slice(&raw[..len]);
        return Some((len, 0));
    };
    raw[n] = 0;
    let mut clean = CleanPath::<{ darshan_core::paths::PATH_MAX }>::default();
    // SAFETY: `raw` is NUL-terminated.
    if !unsafe { paths::clean(None, raw.as_ptr().cast(), &mut clean) } {
        return None;
    }
    let file = clean.as_bytes();
    let file_rec_id = darshan_log::record_id(file);
    let mut len = file.len().min(MAX_NAME - 1);
    out[..len].copy_from_slice(&file[..len]);
    if len + 2 <= MAX_NAME - 1 {
        out[len] = b':';
        len += 1;
        let room = MAX_NAME - 1 - len;
        let mut loc = [0u8; MAX_NAME];
        let g = lib.f.H5Iget_name?;
        // SAFETY: the buffer is writable for `room` bytes.
        let r = unsafe { g(loc_id, loc.as_mut_ptr().cast(), room) };
        if r < 0 {
            return None;
        }
        let got = loc.iter().position(|&c| c == 0).unwrap_or(room);
        out[len..len + got].copy_from_slice(&loc[..got]);
        len += got;
        if (r as usize) < room {
            let add = name.len().min(MAX_NAME - 1 - len);
            out[len..len + add].copy_from_slice(&name[..add]);
            len += add;
        }
    }
    Some((len, file_rec_id))
}

/// What a dataset open records, from the dataset's type, space and
/// creation property list.
fn open_info(lib: &Hdf5, type_id: Hid, space_id: Hid, dcpl_id: Hid, deprecated: bool, file_rec_id: u64) -> OpenInfo {
    let f = &lib.f;
    // SAFETY (the calls below): HDF5 inspection calls on ids the program's
    // HDF5 just handed out; out-buffers are as large as they say.
    let ndims = f.H5Sget_simple_extent_ndims.map_or(0, |g| unsafe { g(space_id) } as i64);
    let npoints = f.H5Sget_simple_extent_npoints.map_or(0, |g| unsafe { g(space_id) });
    let type_size = f.H5Tget_size.map_or(0, |g| unsafe { g(type_id) } as i64);
    let mut chunk = None;
    if dcpl_id != h5::H5P_DEFAULT {
        if let (Some(layout), Some(get)) = (f.H5Pget_layout, f.H5Pget_chunk) {
            if unsafe { layout(dcpl_id) } == h5::H5D_CHUNKED {
                let mut dims = [0 as Hsize; h5::H5S_MAX_RANK];
                let n = unsafe { get(dcpl_id, MAX_NDIMS as c_int, dims.as_mut_ptr()) }.clamp(0, MAX_NDIMS as c_int)
                    as usize;
                let mut c = [0i64; MAX_NDIMS];
                for (i, v) in c.iter_mut().enumerate().take(n) {
                    *v = dims[n - i - 1] as i64;
                }
                chunk = Some(c);
            }
        }
    }
    OpenInfo { deprecated, ndims, npoints, type_size, chunk, file_rec_id }
}

fn on_dataset_open(
    lib: &Hdf5,
    ret: Hid,
    loc_id: Hid,
    name: &[u8],
    ids: (Hid, Hid, Hid),
    deprecated: bool,
    t: (i64, i64),
) {
    let mut buf = [0u8; MAX_NAME];
    let Some((len, file_rec_id)) = dataset_name(lib, loc_id, name, &mut buf) else { return };
    let info = open_info(lib, ids.0, ids.1, ids.2, deprecated, file_rec_id);
    H5D.on_open(ret, &buf[..len], &info, t.0, t.1);
}

/// An opened dataset's type, space and creation list, asked of HDF5 and
/// closed again after `f` (as Darshan does for H5Dopen and H5Oopen).
fn with_dataset_ids(lib: &Hdf5, dset: Hid, f: impl FnOnce((Hid, Hid, Hid))) {
    let g = &lib.f;
    let (Some(gt), Some(gs), Some(gp), Some(tc), Some(sc), Some(pc)) =
        (g.H5Dget_type, g.H5Dget_space, g.H5Dget_create_plist, g.H5Tclose, g.H5Sclose, g.H5Pclose)
    else {
        return;
    };
    // SAFETY: HDF5 calls on the dataset id the real call returned; every
    // id obtained is closed.
    unsafe {
        let t = gt(dset);
        if t < 0 {
            return;
        }
        let s = gs(dset);
        if s < 0 {
            tc(t);
            return;
        }
        let p = gp(dset);
        if p < 0 {
            tc(t);
            sc(s);
            return;
        }
        f((t, s, p));
        tc(t);
        sc(s);
        pc(p);
    }
}

fn bytes_of(name: *const c_char) -> &'static [u8] {
    if name.is_null() {
        return b"";
    }
    // SAFETY: a name argument HDF5 just accepted: NUL-terminated, and it
    // outlives the wrapper call this is used in.
    unsafe { CStr::from_ptr(name) }.to_bytes()
}

macro_rules! dataset_open {
    ($(#[$doc:meta])* $name:ident ($($arg:ident: $ty:ty),*), deprecated: $depr:expr, |$lib:ident, $ret:ident| $ids:expr) => {
        $(#[$doc])*
        /// # Safety
        /// As HDF5's function of this name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> Hid {
            let ($lib, real) = real!($name, -1);
            if !$lib.supported || !recording() {
                // SAFETY: the caller's arguments, passed on unchanged.
                return unsafe { real($($arg),*) };
            }
            let t1 = clock::now();
            // SAFETY: as above.
            let $ret = unsafe { real($($arg),*) };
            let t2 = clock::now();
            if $ret >= 0 {
                record(|| $ids(t1, t2));
            }
            $ret
        }
    };
}

dataset_open!(H5Dcreate2(loc_id: Hid, name: *const c_char, type_id: Hid, space_id: Hid, lcpl: Hid, dcpl: Hid, dapl: Hid), deprecated: false,
    |lib, ret| |t1, t2| on_dataset_open(lib, ret, loc_id, bytes_of(name), (type_id, space_id, dcpl), false, (t1, t2)));
dataset_open!(H5Dcreate1(loc_id: Hid, name: *const c_char, type_id: Hid, space_id: Hid, dcpl: Hid), deprecated: true,
    |lib, ret| |t1, t2| on_dataset_open(lib, ret, loc_id, bytes_of(name), (type_id, space_id, dcpl), true, (t1, t2)));
dataset_open!(H5Dopen2(loc_id: Hid, name: *const c_char, dapl: Hid), deprecated: false,
    |lib, ret| |t1, t2| with_dataset_ids(lib, ret, |ids| on_dataset_open(lib, ret, loc_id, bytes_of(name), ids, false, (t1, t2))));
dataset_open!(H5Dopen1(loc_id: Hid, name: *const c_char), deprecated: true,
    |lib, ret| |t1, t2| with_dataset_ids(lib, ret, |ids| on_dataset_open(lib, ret, loc_id, bytes_of(name), ids, true, (t1, t2))));
dataset_open!(
/// Any object; recorded as a dataset open only if it is one (h5py
/// opens datasets this way).
H5Oopen(loc_id: Hid, name: *const c_char, lapl: Hid), deprecated: false,
|lib, ret| |t1, t2| {
    // SAFETY: an HDF5 call on the id the real call returned.
    if lib.f.H5Iget_type.is_some_and(|g| unsafe { g(ret) } == h5::H5I_DATASET) {
        with_dataset_ids(lib, ret, |ids| on_dataset_open(lib, ret, loc_id, bytes_of(name), ids, false, (t1, t2)))
    }
});

/// The file selection of an access, as Darshan classifies it.
fn selection(lib: &Hdf5, file_space: Hid) -> Selection {
    if file_space == h5::H5S_ALL {
        return Selection::All;
    }
    let f = &lib.f;
    // SAFETY (the calls below): inspection of the dataspace id the real
    // call accepted; the four arrays hold H5S_MAX_RANK dimensions.
    let npoints = f.H5Sget_select_npoints.map_or(0, |g| unsafe { g(file_space) });
    match f.H5Sget_select_type.map_or(-1, |g| unsafe { g(file_space) }) {
        h5::H5S_SEL_POINTS => Selection::Points(npoints),
        h5::H5S_SEL_HYPERSLABS => {
            let regular = f.H5Sis_regular_hyperslab.is_some_and(|g| unsafe { g(file_space) } > 0);
            let Some(get) = f.H5Sget_regular_hyperslab.filter(|_| regular) else {
                return Selection::Irregular(npoints);
            };
            let mut d = [[0 as Hsize; h5::H5S_MAX_RANK]; 4];
            let [start, stride, count, block] = &mut d;
            unsafe { get(file_space, start.as_mut_ptr(), stride.as_mut_ptr(), count.as_mut_ptr(), block.as_mut_ptr()) };
            // Darshan reads dimensions 5..1 of 5-element arrays, so D1 is
            // the fifth dimension (0 for a 2-D dataset): kept as it is.
            let lengths = std::array::from_fn(|i| (count[MAX_NDIMS - i - 1] * block[MAX_NDIMS - i - 1]) as i64);
            let strides = std::array::from_fn(|i| stride[MAX_NDIMS - i - 1] as i64);
            Selection::Regular { npoints, lengths, strides }
        }
        _ => Selection::Other(npoints),
    }
}

fn collective(lib: &Hdf5, dxpl: Hid) -> bool {
    if dxpl == h5::H5P_DEFAULT {
        return false;
    }
    let mut mode: c_int = 0;
    // SAFETY: inspection of the transfer list the real call accepted.
    lib.f.H5Pget_dxpl_mpio.is_some_and(|g| unsafe { g(dxpl, &mut mode) } >= 0) && mode == h5::H5FD_MPIO_COLLECTIVE
}

macro_rules! dataset_io {
    ($name:ident, $buf:ty, $write:expr) => {
        /// # Safety
        /// As HDF5's function of this name.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            dset: Hid,
            mem_type: Hid,
            mem_space: Hid,
            file_space: Hid,
            dxpl: Hid,
            buf: $buf,
        ) -> Herr {
            let (lib, real) = real!($name, -1);
            if !lib.supported || !recording() {
                // SAFETY: the caller's arguments, passed on unchanged.
                return unsafe { real(dset, mem_type, mem_space, file_space, dxpl, buf) };
            }
            let t1 = clock::now();
            // SAFETY: as above.
            let ret = unsafe { real(dset, mem_type, mem_space, file_space, dxpl, buf) };
            let t2 = clock::now();
            if ret >= 0 {
                record(|| H5D.on_io(dset, $write, selection(lib, file_space), collective(lib, dxpl), t1, t2));
            }
            ret
        }
    };
}

dataset_io!(H5Dread, *mut c_void, false);
dataset_io!(H5Dwrite, *const c_void, true);

macro_rules! dataset_close {
    ($name:ident, |$id:ident, $t1:ident, $t2:ident| $body:expr) => {
        /// # Safety
        /// As HDF5's function of this name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($id: Hid) -> Herr {
            let (lib, real) = real!($name, -1);
            if !lib.supported || !recording() {
                // SAFETY: the caller's argument, passed on unchanged.
                return unsafe { real($id) };
            }
            let $t1 = clock::now();
            // SAFETY: as above.
            let ret = unsafe { real($id) };
            let $t2 = clock::now();
            if ret >= 0 {
                record(|| $body);
            }
            ret
        }
    };
}

dataset_close!(H5Dflush, |id, t1, t2| H5D.on_flush(id, t1, t2));
dataset_close!(H5Dclose, |id, t1, t2| H5D.on_close(id, t1, t2));
// Any object: only an id this module knows as an open dataset counts.
dataset_close!(H5Oclose, |id, t1, t2| H5D.on_close(id, t1, t2));
