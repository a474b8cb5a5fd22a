//! The HDF5 wrappers (H5F and H5D modules): the functions Darshan's HDF5
//! module wraps, calling the program's own HDF5 library (hdf5_lib.rs).
//! Each passes through unless recording, times exactly the real call,
//! and asks HDF5 what the record needs (names, dataspace, selection)
//! afterwards, under the guard (errno kept, nothing of ours recorded).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

use darshan_core::paths::{CleanPath, PATH_MAX};
use darshan_hdf5::dataset::{Chunk, Layout, LayoutKey, OpenInfo, MAX_NDIMS};
use darshan_hdf5::{Selection, H5D, H5F};

use crate::guard::{record, recording};
use crate::hdf5_lib::{self as h5, DatasetIds, Haddr, Hdf5, Herr, Hid, Hsize, Token};
use crate::hdf5_select::{self, Change, SetCall};
use crate::{clock, hdf5_find, hdf5_layout, paths};

/// Darshan's limit on an H5D record name (DARSHAN_HDF5_MAX_NAME_LEN).
const MAX_NAME: usize = 256;

/// The exported symbol of wrapper `$name::wrapper`: an entry stub that
/// notes the caller's return address (hdf5_find.rs: which HDF5 library
/// the call belongs to) in an initial-exec TLS word (rax and r11 are free
/// at the entry of a non-variadic function), then tail-jumps to the
/// wrapper, so that it sees the call as it was made.
macro_rules! h5_stub {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[unsafe(naked)]
        #[no_mangle]
        pub extern "C" fn $name() {
            #[cfg(target_arch = "x86_64")]
            core::arch::naked_asm!(
                "mov r11, qword ptr [rsp]",
                "mov rax, qword ptr [rip + darshan_h5_caller_tls@GOTTPOFF]",
                "mov qword ptr fs:[rax], r11",
                "jmp {wrapper}",
                wrapper = sym $name::wrapper,
            );
            // Elsewhere no caller is noted: every call goes to the global
            // library.
            #[cfg(target_arch = "aarch64")]
            core::arch::naked_asm!("b {wrapper}", wrapper = sym $name::wrapper);
        }
    };
}

/// One exported function and its wrapper (the stub: `h5_stub!`): the
/// wrapper finds the real function in the caller's library (-1 if it has
/// none, as HDF5 fails) and runs `$body` with the library and it.
macro_rules! h5_entry {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty, |$lib:ident, $real:ident| $body:block) => {
        h5_stub!($(#[$doc])* $name);

        #[allow(non_snake_case)]
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            /// # Safety
            /// As HDF5's function of this name.
            pub(super) unsafe extern "C" fn wrapper($($arg: $ty),*) -> $ret {
                let Some(($lib, $real)) = hdf5_find::real(|f| f.$name) else { return -1 };
                $body
            }
        }
    };
}

/// A wrapper that records: it runs `before` if given (whether recording
/// or not), passes through unless recording (or, given `only if`, unless
/// that holds), times the real call, and on success runs `$record` under
/// the guard with the library, the result and the two clock readings.
macro_rules! h5_wrap {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty, $(before $before:expr,)? $(only if $when:expr,)? |$lib:ident, $r:ident, $t1:ident, $t2:ident| $record:expr) => {
        h5_entry!($(#[$doc])* $name($($arg: $ty),*) -> $ret, |$lib, real| {
            $(if $lib.supported {
                $before;
            })?
            if !$lib.supported || !recording() || !enabled() $(|| !$when)? {
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
        });
    };
}

/// A wrapper of a function that changes what an earlier call described (a
/// dataspace: hdf5_select.rs; which dataset is at a path:
/// hdf5_layout.rs): `before` notes the change before the real call;
/// nothing recorded.
macro_rules! h5_change {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty, |$lib:ident| $before:expr) => {
        h5_entry!($(#[$doc])* $name($($arg: $ty),*) -> $ret, |$lib, real| {
            if $lib.supported {
                $before;
            }
            // SAFETY: the caller's arguments, passed on unchanged.
            unsafe { real($($arg),*) }
        });
    };
}

/// Whether H5F or H5D records anything (`DARSHAN_MOD_DISABLE=H5F,H5D`
/// or `HDF5` turns both off: then not even the inspection calls are made).
fn enabled() -> bool {
    use darshan_log::modules as m;
    let ledger = &darshan_core::runtime::core().ledger;
    ledger.enabled(m::H5F) || ledger.enabled(m::H5D)
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

/// A file opened as `ret` under `filename`: the name with a `prefix:`
/// longer than one character removed (as MPI_File_open's), cleaned.
///
/// # Safety
/// `filename` is null or a NUL-terminated name.
unsafe fn file_opened(lib: &Hdf5, ret: Hid, filename: *const c_char, use_mpio: bool, t1: i64, t2: i64) {
    if filename.is_null() {
        return;
    }
    // SAFETY: the caller's contract; open_name stays inside the string.
    unsafe {
        paths::with_clean(None, crate::mpi_wrap::open_name(filename), |n| {
            H5F.on_open(lib.key(ret), n, use_mpio, t1, t2)
        })
    };
}

h5_wrap!(H5Fcreate(filename: *const c_char, flags: c_uint, fcpl: Hid, fapl: Hid) -> Hid,
    // SAFETY: the file name the real call just accepted.
    |lib, ret, t1, t2| unsafe { file_opened(lib, ret, filename, lib.uses_mpio(fapl), t1, t2) });
h5_wrap!(H5Fopen(filename: *const c_char, flags: c_uint, fapl: Hid) -> Hid,
    // SAFETY: the file name the real call just accepted.
    |lib, ret, t1, t2| unsafe { file_opened(lib, ret, filename, lib.uses_mpio(fapl), t1, t2) });
h5_wrap!(
    /// Counted on the file `object_id` belongs to.
    H5Fflush(object_id: Hid, scope: c_int) -> Herr,
    |lib, ret, t1, t2| lib.with_file_of(object_id, |file_id| H5F.on_flush(lib.key(file_id), t1, t2)));
h5_wrap!(H5Fclose(file_id: Hid) -> Herr, |lib, ret, t1, t2| H5F.on_close(lib.key(file_id), t1, t2));
h5_wrap!(
/// Beyond Darshan: a new id for an open file counts as one more open
/// of it (named and MPI-IO-checked as the file is now).
H5Freopen(file_id: Hid) -> Hid,
|lib, ret, t1, t2| {
    let mut name = [0u8; PATH_MAX];
    let n = lib.file_name(ret, &mut name[..PATH_MAX - 1]);
    if n > 0 && (n as usize) < PATH_MAX - 1 {
        // SAFETY: `name` is NUL-terminated (HDF5 wrote fewer bytes than
        // the buffer, which was zeroed).
        unsafe { file_opened(lib, ret, name.as_ptr().cast(), lib.file_uses_mpio(ret), t1, t2) };
    }
});
h5_wrap!(
/// Beyond Darshan: the reference that closes a file or dataset counts
/// as its close (h5py closes every object this way, never with
/// H5Fclose, H5Dclose or H5Oclose).
H5Idec_ref(id: Hid) -> c_int,
before hdf5_select::changing(lib.key(id), Change::Extent),
only if darshan_hdf5::ids::ID_BITS.may_be_kept(lib.key(id)),
|lib, ret, t1, t2| if ret == 0 {
    H5D.on_close(lib.key(id), false, t1, t2);
    H5F.on_close(lib.key(id), t1, t2);
});

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

/// A dataset `ret` created at `loc_id` under `name`, described by the
/// create call's `ids` (type, dataspace, creation list).
fn dataset_created(
    lib: &Hdf5,
    ret: Hid,
    loc_id: Hid,
    name: &[u8],
    (type_id, space_id, dcpl_id): (Hid, Hid, Hid),
    deprecated: bool,
    t: (i64, i64),
) {
    let mut buf = [0u8; MAX_NAME];
    let Some((len, file_rec_id)) = dataset_name(lib, loc_id, name, &mut buf) else { return };
    let opened = Opened { ret, record: &buf[..len], file_rec_id, deprecated, keep: None };
    record_open(lib, &opened, space_id, layout(lib, type_id, dcpl_id), t);
}

/// A dataset's layout from its datatype and creation property list.
fn layout(lib: &Hdf5, type_id: Hid, dcpl_id: Hid) -> Layout {
    let chunk = lib.chunk::<MAX_NDIMS>(dcpl_id).map(|(dims, rank)| Chunk { dims, rank });
    Layout { type_size: lib.type_size(type_id), chunk }
}

/// A dataset open, its record named.
struct Opened<'a> {
    ret: Hid,
    record: &'a [u8],
    file_rec_id: u64,
    deprecated: bool,
    keep: Option<LayoutKey>,
}

fn record_open(lib: &Hdf5, o: &Opened, space_id: Hid, layout: Layout, t: (i64, i64)) {
    let (ndims, npoints) = lib.extent(space_id);
    let info = OpenInfo { deprecated: o.deprecated, ndims, npoints, layout, file_rec_id: o.file_rec_id, keep: o.keep };
    H5D.on_open(lib.key(o.ret), o.record, &info, t.0, t.1);
}

/// An opened dataset, described as Darshan does after H5Dopen and
/// H5Oopen: its dataspace asked of HDF5 (and closed again); its datatype
/// size and chunk sizes too, unless an earlier open of the same dataset
/// found them and nothing since could have put another dataset in its
/// place (hdf5_layout.rs: copying its creation property list for them is
/// most of an open's cost inside HDF5).
fn opened_by_name(lib: &Hdf5, ret: Hid, loc_id: Hid, name: &[u8], deprecated: bool, t: (i64, i64)) {
    let mut buf = [0u8; MAX_NAME];
    let Some((len, file_rec_id)) = dataset_name(lib, loc_id, name, &mut buf) else { return };
    let keep = hdf5_layout::key(lib, ret);
    let opened = Opened { ret, record: &buf[..len], file_rec_id, deprecated, keep };
    if let Some(layout) = keep.and_then(|k| H5D.kept_layout(opened.record, k)) {
        if let Some(space) = lib.dataset_space(ret) {
            record_open(lib, &opened, space.id(), layout, t);
        }
        return;
    }
    if let Some(DatasetIds { type_id, space_id, dcpl_id, .. }) = lib.dataset_ids(ret).as_ref() {
        record_open(lib, &opened, *space_id, layout(lib, *type_id, *dcpl_id), t);
    }
}

h5_wrap!(H5Dcreate2(loc_id: Hid, name: *const c_char, type_id: Hid, space_id: Hid, lcpl: Hid, dcpl: Hid, dapl: Hid) -> Hid,
    // SAFETY: the name the real call just accepted.
    |lib, ret, t1, t2| dataset_created(lib, ret, loc_id, unsafe { arg_bytes(name) }, (type_id, space_id, dcpl), false, (t1, t2)));
h5_wrap!(H5Dcreate1(loc_id: Hid, name: *const c_char, type_id: Hid, space_id: Hid, dcpl: Hid) -> Hid,
    // SAFETY: the name the real call just accepted.
    |lib, ret, t1, t2| dataset_created(lib, ret, loc_id, unsafe { arg_bytes(name) }, (type_id, space_id, dcpl), true, (t1, t2)));
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

/// A dataset opened without a name (by address, index or token): named
/// from HDF5's path for it, appended to `loc_id`'s as Darshan does (so
/// `<file>://d` when `loc_id` is the file); an object HDF5 knows no path
/// for (anonymous) is not recorded, as in Darshan.
fn opened_without_name(lib: &Hdf5, ret: Hid, loc_id: Hid, t: (i64, i64)) {
    if !lib.is_dataset(ret) {
        return;
    }
    let mut name = [0u8; MAX_NAME];
    if lib.object_name(ret, &mut name) == 0 {
        return;
    }
    let len = name.iter().position(|&c| c == 0).unwrap_or(MAX_NAME);
    opened_by_name(lib, ret, loc_id, &name[..len], false, t);
}

h5_wrap!(H5Oopen_by_addr(loc_id: Hid, addr: Haddr) -> Hid,
    |lib, ret, t1, t2| opened_without_name(lib, ret, loc_id, (t1, t2)));
h5_wrap!(H5Oopen_by_idx(loc_id: Hid, group_name: *const c_char, idx_type: c_int, order: c_int, n: Hsize, lapl: Hid) -> Hid,
    |lib, ret, t1, t2| opened_without_name(lib, ret, loc_id, (t1, t2)));
h5_wrap!(
    /// HDF5 1.12+.
    H5Oopen_by_token(loc_id: Hid, token: Token) -> Hid,
    |lib, ret, t1, t2| opened_without_name(lib, ret, loc_id, (t1, t2)));
h5_wrap!(
    /// Beyond Darshan: an anonymous dataset (linked into the file later,
    /// if ever) is recorded as `(anonymous)` at `loc_id`: `<file>:/(anonymous)`
    /// for all of one file's anonymous datasets created at its root.
    H5Dcreate_anon(loc_id: Hid, type_id: Hid, space_id: Hid, dcpl: Hid, dapl: Hid) -> Hid,
    |lib, ret, t1, t2| dataset_created(lib, ret, loc_id, b"(anonymous)", (type_id, space_id, dcpl), false, (t1, t2)));

/// The file selection of an access, as Darshan classifies it.
fn selection(lib: &Hdf5, file_space: Hid) -> Selection {
    if file_space == h5::H5S_ALL {
        return Selection::All;
    }
    if let Some(known) = hdf5_select::take(lib.key(file_space)) {
        return known;
    }
    let (npoints, kind) = lib.selection(file_space);
    match kind {
        h5::H5S_SEL_POINTS => Selection::Points(npoints),
        h5::H5S_SEL_HYPERSLABS => match lib.regular_hyperslab(file_space) {
            Some([stride, count, block]) => Selection::regular(npoints, &stride, &count, &block),
            None => Selection::Irregular(npoints),
        },
        _ => Selection::Other(npoints),
    }
}

h5_wrap!(H5Dread(dset: Hid, mem_type: Hid, mem_space: Hid, file_space: Hid, dxpl: Hid, buf: *mut c_void) -> Herr,
    |lib, ret, t1, t2| H5D.on_io(lib.key(dset), false, selection(lib, file_space), lib.collective(dxpl), t1, t2));
h5_wrap!(H5Dwrite(dset: Hid, mem_type: Hid, mem_space: Hid, file_space: Hid, dxpl: Hid, buf: *const c_void) -> Herr,
    |lib, ret, t1, t2| H5D.on_io(lib.key(dset), true, selection(lib, file_space), lib.collective(dxpl), t1, t2));
h5_wrap!(H5Dflush(id: Hid) -> Herr, |lib, ret, t1, t2| H5D.on_flush(lib.key(id), t1, t2));
h5_wrap!(
    /// A dataset id still valid after its close had another reference
    /// (beyond Darshan: H5D::on_close).
    H5Dclose(id: Hid) -> Herr,
    only if darshan_hdf5::ids::ID_BITS.may_be_kept(lib.key(id)),
    |lib, ret, t1, t2| H5D.on_close(lib.key(id), lib.is_dataset(id), t1, t2));
h5_wrap!(
    /// Any object: only an id H5D knows as an open dataset counts (and
    /// one still valid after the call stays known, as for H5Dclose).
    H5Oclose(id: Hid) -> Herr,
    only if darshan_hdf5::ids::ID_BITS.may_be_kept(lib.key(id)),
    |lib, ret, t1, t2| H5D.on_close(lib.key(id), lib.is_dataset(id), t1, t2));

/// H5Dread_multi / H5Dwrite_multi (HDF5 1.14+, beyond Darshan): one read
/// or write of each dataset, with its own file selection; the call's time
/// is shared out evenly among them, in order.
///
/// # Safety
/// `dsets` and `file_spaces` are null or hold `count` ids each (the
/// arrays the real call just accepted).
unsafe fn multi_io(
    lib: &Hdf5,
    write: bool,
    count: usize,
    dsets: *const Hid,
    file_spaces: *const Hid,
    dxpl: Hid,
    (t1, t2): (i64, i64),
) {
    if count == 0 || dsets.is_null() || file_spaces.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let (dsets, spaces) =
        unsafe { (std::slice::from_raw_parts(dsets, count), std::slice::from_raw_parts(file_spaces, count)) };
    let collective = lib.collective(dxpl);
    let share = |k: usize| t1 + ((t2 - t1) as i128 * k as i128 / count as i128) as i64;
    for (k, (&dset, &space)) in dsets.iter().zip(spaces).enumerate() {
        H5D.on_io(lib.key(dset), write, selection(lib, space), collective, share(k), share(k + 1));
    }
}

h5_wrap!(H5Dread_multi(count: usize, dset_id: *const Hid, mem_type_id: *const Hid, mem_space_id: *const Hid, file_space_id: *const Hid, dxpl: Hid, buf: *mut *mut c_void) -> Herr,
    // SAFETY: the arrays the real call just accepted.
    |lib, ret, t1, t2| unsafe { multi_io(lib, false, count, dset_id, file_space_id, dxpl, (t1, t2)) });
h5_wrap!(H5Dwrite_multi(count: usize, dset_id: *const Hid, mem_type_id: *const Hid, mem_space_id: *const Hid, file_space_id: *const Hid, dxpl: Hid, buf: *const *const c_void) -> Herr,
    // SAFETY: the arrays the real call just accepted.
    |lib, ret, t1, t2| unsafe { multi_io(lib, true, count, dset_id, file_space_id, dxpl, (t1, t2)) });

/// A direct chunk read (beyond Darshan): one read of the chunk's bytes as
/// stored (after filters), no selection counted.
///
/// # Safety
/// `offset` is the coordinate array the real call just accepted.
unsafe fn chunk_read(lib: &Hdf5, dset: Hid, dxpl: Hid, offset: *const Hsize, t1: i64, t2: i64) {
    // SAFETY: the caller's contract.
    let stored = unsafe { lib.chunk_storage_size(dset, offset) };
    H5D.on_io(lib.key(dset), false, Selection::Chunk(stored), lib.collective(dxpl), t1, t2);
}

h5_wrap!(
    /// HDF5 1.10.3 to 1.14.
    H5Dread_chunk(dset: Hid, dxpl: Hid, offset: *const Hsize, filters: *mut u32, buf: *mut c_void) -> Herr,
    // SAFETY: the offset the real call just accepted.
    |lib, ret, t1, t2| unsafe { chunk_read(lib, dset, dxpl, offset, t1, t2) });
h5_wrap!(
    /// HDF5 2.0's name for the 1.10 form.
    H5Dread_chunk1(dset: Hid, dxpl: Hid, offset: *const Hsize, filters: *mut u32, buf: *mut c_void) -> Herr,
    // SAFETY: the offset the real call just accepted.
    |lib, ret, t1, t2| unsafe { chunk_read(lib, dset, dxpl, offset, t1, t2) });
h5_wrap!(
    /// HDF5 2.0 (`H5Dread_chunk` in its headers).
    H5Dread_chunk2(dset: Hid, dxpl: Hid, offset: *const Hsize, filters: *mut u32, buf: *mut c_void, buf_size: *mut usize) -> Herr,
    // SAFETY: the offset the real call just accepted.
    |lib, ret, t1, t2| unsafe { chunk_read(lib, dset, dxpl, offset, t1, t2) });
h5_wrap!(
    /// A direct chunk write (beyond Darshan): one write of `data_size`
    /// bytes as the caller filtered them, no selection counted.
    H5Dwrite_chunk(dset: Hid, dxpl: Hid, filters: u32, offset: *const Hsize, data_size: usize, buf: *const c_void) -> Herr,
    |lib, ret, t1, t2| H5D.on_io(lib.key(dset), true, Selection::Chunk(data_size as i64), lib.collective(dxpl), t1, t2));

// Every function that changes a dataspace, so that a selection the SET
// call below described stays exact (hdf5_select.rs); none recorded.
h5_change!(H5Sselect_elements(space: Hid, op: c_int, n: usize, coord: *const Hsize) -> Herr,
    |lib| hdf5_select::changing(lib.key(space), Change::Selection));
h5_change!(H5Sselect_all(space: Hid) -> Herr, |lib| hdf5_select::changing(lib.key(space), Change::Selection));
h5_change!(H5Sselect_none(space: Hid) -> Herr, |lib| hdf5_select::changing(lib.key(space), Change::Selection));
h5_change!(
    /// HDF5 1.10.7+.
    H5Sselect_copy(dst: Hid, src: Hid) -> Herr,
    |lib| hdf5_select::changing(lib.key(dst), Change::Selection));
h5_change!(
    /// HDF5 1.10.7+.
    H5Smodify_select(space: Hid, op: c_int, other: Hid) -> Herr,
    |lib| hdf5_select::changing(lib.key(space), Change::Selection));
h5_change!(
    /// HDF5 1.10.7+.
    H5Sselect_adjust(space: Hid, offset: *const i64) -> Herr,
    |lib| hdf5_select::changing(lib.key(space), Change::Selection));
h5_change!(H5Soffset_simple(space: Hid, offset: *const i64) -> Herr, |lib| hdf5_select::changing(lib.key(space), Change::Selection));
h5_change!(H5Sset_extent_simple(space: Hid, rank: c_int, dims: *const Hsize, max: *const Hsize) -> Herr,
    |lib| hdf5_select::changing(lib.key(space), Change::Extent));
h5_change!(H5Sset_extent_none(space: Hid) -> Herr, |lib| hdf5_select::changing(lib.key(space), Change::Extent));
h5_change!(H5Sextent_copy(dst: Hid, src: Hid) -> Herr, |lib| hdf5_select::changing(lib.key(dst), Change::Extent));
h5_change!(H5Sclose(space: Hid) -> Herr, |lib| hdf5_select::changing(lib.key(space), Change::Extent));

/// Any id of a kind freed (files among them), or the library shut down.
fn everything_may_change() {
    hdf5_select::changing(0, Change::Extent);
    hdf5_layout::changed();
}

h5_change!(H5Iclear_type(kind: c_int, force: u8) -> Herr, |lib| everything_may_change());
h5_change!(H5Idestroy_type(kind: c_int) -> Herr, |lib| everything_may_change());
h5_change!(H5close() -> Herr, |lib| everything_may_change());

// Every function that can put another dataset where one was (a link
// deleted or moved, an object's count of links lowered), so that a layout
// kept from an earlier open stays exact (hdf5_layout.rs); none recorded.
h5_change!(H5Ldelete(loc: Hid, name: *const c_char, lapl: Hid) -> Herr, |lib| hdf5_layout::changed());
h5_change!(H5Ldelete_by_idx(loc: Hid, group: *const c_char, index: c_int, order: c_int, n: Hsize, lapl: Hid) -> Herr,
    |lib| hdf5_layout::changed());
h5_change!(H5Lmove(src: Hid, src_name: *const c_char, dst: Hid, dst_name: *const c_char, lcpl: Hid, lapl: Hid) -> Herr,
    |lib| hdf5_layout::changed());
h5_change!(H5Odecr_refcount(object: Hid) -> Herr, |lib| hdf5_layout::changed());
h5_change!(
    /// The 1.6 API (deprecated, still in 1.10-2.0 builds with it).
    H5Gunlink(loc: Hid, name: *const c_char) -> Herr,
    |lib| hdf5_layout::changed());
h5_change!(
    /// The 1.6 API.
    H5Gmove(loc: Hid, src: *const c_char, dst: *const c_char) -> Herr,
    |lib| hdf5_layout::changed());
h5_change!(
    /// The 1.6 API.
    H5Gmove2(src_loc: Hid, src: *const c_char, dst_loc: Hid, dst: *const c_char) -> Herr,
    |lib| hdf5_layout::changed());

h5_entry!(
    /// A selection made with H5S_SELECT_SET is kept for the next access
    /// through the dataspace on this thread (hdf5_select.rs); any other
    /// operation only changes it.
    H5Sselect_hyperslab(
        space: Hid,
        op: c_int,
        start: *const Hsize,
        stride: *const Hsize,
        count: *const Hsize,
        block: *const Hsize
    ) -> Herr,
    |lib, real| {
        if !lib.supported {
            // SAFETY: the caller's arguments, passed on unchanged.
            return unsafe { real(space, op, start, stride, count, block) };
        }
        let epoch = hdf5_select::changing(lib.key(space), Change::Selection);
        // SAFETY: as above.
        let r = unsafe { real(space, op, start, stride, count, block) };
        if r >= 0 && op == h5::H5S_SELECT_SET && recording() && enabled() {
            let call = SetCall { space, epoch, stride, count, block };
            // SAFETY: the arrays the real call just accepted, as many
            // values each as the dataspace's rank.
            record(|| unsafe { hdf5_select::remember(lib, &call) });
        }
        r
    }
);
