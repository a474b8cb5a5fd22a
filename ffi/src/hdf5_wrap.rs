//! The HDF5 wrappers (H5F and H5D modules): the functions Darshan's HDF5
//! module wraps, calling the program's own HDF5 library (hdf5_lib.rs).
//! Each passes through unless recording, times exactly the real call,
//! and asks HDF5 what the record needs (names, dataspace, selection)
//! afterwards, under the guard (errno kept, nothing of ours recorded).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use darshan_core::paths::{CleanPath, PATH_MAX};
use darshan_hdf5::dataset::{OpenInfo, MAX_NDIMS};
use darshan_hdf5::{Selection, H5D, H5F};

use crate::guard::{record, recording};
use crate::hdf5_lib::{self as h5, DatasetIds, Hdf5, Herr, Hid};
use crate::{clock, paths};

/// Darshan's limit on an H5D record name (DARSHAN_HDF5_MAX_NAME_LEN).
const MAX_NAME: usize = 256;

/// One exported wrapper: find the real function in the program's HDF5
/// (-1 if there is none, as HDF5 fails), pass through unless recording,
/// time the real call, and on success run `$record` under the guard with
/// the library, the result and the two clock readings.
macro_rules! h5_wrap {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty, |$lib:ident, $r:ident, $t1:ident, $t2:ident| $record:expr) => {
        $(#[$doc])*
        /// # Safety
        /// As HDF5's function of this name.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            let Some(($lib, real)) = h5::lib().and_then(|l| Some((l, l.f.$name?))) else { return -1 };
            if !$lib.supported || !recording() {
                // SAFETY: the caller's arguments, passed on unchanged.
                return unsafe { real($($arg),*) };
            }
            let $t1 = clock::now();
            // SAFETY: as above.
            let $r = unsafe { real($($arg),*) };
            let $t2 = clock::now();
            if $r >= 0 {
                record(|| $record);
            }
            $r
        }
    };
}

/// A name argument the real call just accepted: NUL-terminated (empty if
/// null).
///
/// # Safety
/// `p` is null or a NUL-terminated string that outlives `'a`.
unsafe fn arg_bytes<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        return b"";
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(p) }.to_bytes()
}

/// H5Fcreate / H5Fopen: the file name with a `prefix:` longer than one
/// character removed (as MPI_File_open's), cleaned.
///
/// # Safety
/// `filename` is null or the NUL-terminated name the real call accepted.
unsafe fn file_opened(lib: &Hdf5, ret: Hid, filename: *const c_char, fapl: Hid, t1: i64, t2: i64) {
    if filename.is_null() {
        return;
    }
    let use_mpio = lib.uses_mpio(fapl);
    // SAFETY: the caller's contract; open_name stays inside the string.
    unsafe { paths::with_clean(None, crate::mpi_wrap::open_name(filename), |n| H5F.on_open(ret, n, use_mpio, t1, t2)) };
}

h5_wrap!(H5Fcreate(filename: *const c_char, flags: c_uint, fcpl: Hid, fapl: Hid) -> Hid,
    // SAFETY: the file name the real call just accepted.
    |lib, ret, t1, t2| unsafe { file_opened(lib, ret, filename, fapl, t1, t2) });
h5_wrap!(H5Fopen(filename: *const c_char, flags: c_uint, fapl: Hid) -> Hid,
    // SAFETY: the file name the real call just accepted.
    |lib, ret, t1, t2| unsafe { file_opened(lib, ret, filename, fapl, t1, t2) });
h5_wrap!(
    /// Counted on the file `object_id` belongs to.
    H5Fflush(object_id: Hid, scope: c_int) -> Herr,
    |lib, ret, t1, t2| lib.with_file_of(object_id, |file_id| H5F.on_flush(file_id, t1, t2)));
h5_wrap!(H5Fclose(file_id: Hid) -> Herr, |lib, ret, t1, t2| H5F.on_close(file_id, t1, t2));

/// The H5D record name Darshan builds into `out`: the file's cleaned path,
/// `:`, the name of `loc_id`, then `name` appended as given (so dataset
/// `d` of group `/g` is `<file>:/gd`, and one opened by address
/// `<file>://d`: Darshan's names, kept for compatibility), within 255
/// bytes; and the file record's id (0 when the file name did not fit).
/// None where Darshan records nothing (an HDF5 error).
fn dataset_name(lib: &Hdf5, loc_id: Hid, name: &[u8], out: &mut [u8; MAX_NAME]) -> Option<(usize, u64)> {
    const ROOM: usize = MAX_NAME - 1;
    let mut raw = [0u8; MAX_NAME];
    let n = lib.file_name(loc_id, &mut raw[..ROOM]);
    let written = |b: &[u8]| b.iter().position(|&c| c == 0).unwrap_or(b.len());
    if n < 0 {
        return None;
    }
    if n as usize >= ROOM {
        // Too long: HDF5's truncated name, no file link.
        let len = written(&raw);
        out[..len].copy_from_slice(&raw[..len]);
        return Some((len, 0));
    }
    let mut clean = CleanPath::<PATH_MAX>::default();
    // SAFETY: `raw` is NUL-terminated (HDF5 wrote fewer than ROOM bytes).
    if !unsafe { paths::clean(None, raw.as_ptr().cast(), &mut clean) } {
        return None;
    }
    let file = clean.as_bytes();
    let mut len = file.len().min(ROOM);
    out[..len].copy_from_slice(&file[..len]);
    if len + 2 <= ROOM {
        out[len] = b':';
        len += 1;
        let room = ROOM - len;
        let mut loc = [0u8; MAX_NAME];
        let r = lib.object_name(loc_id, &mut loc[..room]);
        if r < 0 {
            return None;
        }
        let got = written(&loc[..room]);
        out[len..len + got].copy_from_slice(&loc[..got]);
        len += got;
        if (r as usize) < room {
            let add = name.len().min(ROOM - len);
            out[len..len + add].copy_from_slice(&name[..add]);
            len += add;
        }
    }
    Some((len, darshan_log::record_id(file)))
}

/// A dataset `ret` created or opened at `loc_id` under `name`, described
/// by `ids`.
fn dataset_opened(
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
    let (type_id, space_id, dcpl_id) = ids;
    let (ndims, npoints) = lib.extent(space_id);
    let info = OpenInfo {
        deprecated,
        ndims,
        npoints,
        type_size: lib.type_size(type_id),
        chunk: lib.chunk::<MAX_NDIMS>(dcpl_id),
        file_rec_id,
    };
    H5D.on_open(ret, &buf[..len], &info, t.0, t.1);
}

/// An opened dataset: its describing ids are asked of HDF5 (and closed
/// again), as Darshan does after H5Dopen and H5Oopen.
fn opened_by_name(lib: &Hdf5, ret: Hid, loc_id: Hid, name: &[u8], deprecated: bool, t: (i64, i64)) {
    if let Some(DatasetIds { type_id, space_id, dcpl_id, .. }) = lib.dataset_ids(ret).as_ref() {
        dataset_opened(lib, ret, loc_id, name, (*type_id, *space_id, *dcpl_id), deprecated, t);
    }
}

h5_wrap!(H5Dcreate2(loc_id: Hid, name: *const c_char, type_id: Hid, space_id: Hid, lcpl: Hid, dcpl: Hid, dapl: Hid) -> Hid,
    // SAFETY: the name the real call just accepted.
    |lib, ret, t1, t2| dataset_opened(lib, ret, loc_id, unsafe { arg_bytes(name) }, (type_id, space_id, dcpl), false, (t1, t2)));
h5_wrap!(H5Dcreate1(loc_id: Hid, name: *const c_char, type_id: Hid, space_id: Hid, dcpl: Hid) -> Hid,
    // SAFETY: the name the real call just accepted.
    |lib, ret, t1, t2| dataset_opened(lib, ret, loc_id, unsafe { arg_bytes(name) }, (type_id, space_id, dcpl), true, (t1, t2)));
h5_wrap!(H5Dopen2(loc_id: Hid, name: *const c_char, dapl: Hid) -> Hid,
    // SAFETY: the name the real call just accepted.
    |lib, ret, t1, t2| opened_by_name(lib, ret, loc_id, unsafe { arg_bytes(name) }, false, (t1, t2)));
h5_wrap!(H5Dopen1(loc_id: Hid, name: *const c_char) -> Hid,
    // SAFETY: the name the real call just accepted.
    |lib, ret, t1, t2| opened_by_name(lib, ret, loc_id, unsafe { arg_bytes(name) }, true, (t1, t2)));
h5_wrap!(
/// Any object; recorded as a dataset open only if it is one (h5py
/// opens datasets this way).
H5Oopen(loc_id: Hid, name: *const c_char, lapl: Hid) -> Hid,
|lib, ret, t1, t2| if lib.is_dataset(ret) {
    // SAFETY: the name the real call just accepted.
    opened_by_name(lib, ret, loc_id, unsafe { arg_bytes(name) }, false, (t1, t2))
});

/// The file selection of an access, as Darshan classifies it.
fn selection(lib: &Hdf5, file_space: Hid) -> Selection {
    if file_space == h5::H5S_ALL {
        return Selection::All;
    }
    let (npoints, kind) = lib.selection(file_space);
    match kind {
        h5::H5S_SEL_POINTS => Selection::Points(npoints),
        h5::H5S_SEL_HYPERSLABS => match lib.regular_hyperslab(file_space) {
            // Darshan reads dimensions 5..1 of 5-element arrays, so D1 is
            // the fifth dimension (0 for a 2-D dataset): kept as it is.
            Some([stride, count, block]) => Selection::Regular {
                npoints,
                lengths: std::array::from_fn(|i| (count[MAX_NDIMS - i - 1] * block[MAX_NDIMS - i - 1]) as i64),
                strides: std::array::from_fn(|i| stride[MAX_NDIMS - i - 1] as i64),
            },
            None => Selection::Irregular(npoints),
        },
        _ => Selection::Other(npoints),
    }
}

h5_wrap!(H5Dread(dset: Hid, mem_type: Hid, mem_space: Hid, file_space: Hid, dxpl: Hid, buf: *mut c_void) -> Herr,
    |lib, ret, t1, t2| H5D.on_io(dset, false, selection(lib, file_space), lib.collective(dxpl), t1, t2));
h5_wrap!(H5Dwrite(dset: Hid, mem_type: Hid, mem_space: Hid, file_space: Hid, dxpl: Hid, buf: *const c_void) -> Herr,
    |lib, ret, t1, t2| H5D.on_io(dset, true, selection(lib, file_space), lib.collective(dxpl), t1, t2));
h5_wrap!(H5Dflush(id: Hid) -> Herr, |lib, ret, t1, t2| H5D.on_flush(id, t1, t2));
h5_wrap!(H5Dclose(id: Hid) -> Herr, |lib, ret, t1, t2| H5D.on_close(id, t1, t2));
h5_wrap!(
    /// Any object: only an id H5D knows as an open dataset counts.
    H5Oclose(id: Hid) -> Herr,
    |lib, ret, t1, t2| H5D.on_close(id, t1, t2));
