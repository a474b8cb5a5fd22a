//! An HDF5 library a program calls, as the wrappers use it: every function
//! a wrapper calls, real or helper, resolved from that one library (which
//! library a call belongs to: hdf5_find.rs), and the inspection of the
//! ids it hands out. No undefined H5 symbol and no dependency on libhdf5
//! in this library: the C runtime's undefined references break every
//! program under LD_BIND_NOW=1, and h5py's wheels, whose bundled libhdf5
//! is loaded RTLD_LOCAL.
//!
//! Versions before 1.10 (32-bit hid_t) are passed through unrecorded,
//! with one line on stderr.

use std::ffi::{c_char, c_int, c_uint, c_void};

pub type Hid = i64;
pub type Herr = c_int;
pub type Hsize = u64;
pub type Haddr = u64;

/// H5O_token_t (HDF5 1.12+): an opaque object token, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Token(pub [u8; 16]);

/// H5P_DEFAULT, H5S_ALL, H5E_DEFAULT (1.10+ headers).
pub const H5P_DEFAULT: Hid = 0;
pub const H5S_ALL: Hid = 0;
const H5E_DEFAULT: Hid = 0;
pub const H5S_SEL_POINTS: c_int = 1;
pub const H5S_SEL_HYPERSLABS: c_int = 2;
/// H5S_SELECT_SET: a selection operation that replaces the selection.
pub const H5S_SELECT_SET: c_int = 0;
pub const H5I_DATASET: c_int = 5;
pub const H5D_CHUNKED: c_int = 2;
pub const H5FD_MPIO_COLLECTIVE: c_int = 1;
/// The largest rank HDF5 allows (H5S_MAX_RANK).
pub const H5S_MAX_RANK: usize = 32;

type AutoFn = Option<unsafe extern "C" fn(Hid, *mut c_void) -> Herr>;

macro_rules! functions {
    ($($name:ident: fn($($arg:ty),*) -> $ret:ty;)*) => {
        /// Every HDF5 function a wrapper calls, from one library; None
        /// where that library has no such function.
        #[allow(non_snake_case)]
        pub struct Fns {
            $(pub $name: Option<unsafe extern "C" fn($($arg),*) -> $ret>,)*
        }

        impl Fns {
            /// Each function as `lookup` finds it by its NUL-terminated
            /// name (null: none).
            ///
            /// # Safety
            /// What `lookup` returns for a name is null or that HDF5
            /// function of one library.
            unsafe fn resolve(lookup: &dyn Fn(*const c_char) -> *mut c_void) -> Fns {
                Fns {
                    $($name: {
                        let p = lookup(concat!(stringify!($name), "\0").as_ptr().cast());
                        // SAFETY: the library's function of this name has
                        // this C prototype (HDF5 1.10+ headers).
                        (!p.is_null()).then(|| unsafe {
                            std::mem::transmute::<*mut c_void, unsafe extern "C" fn($($arg),*) -> $ret>(p)
                        })
                    },)*
                }
            }
        }
    };
}

functions! {
    H5get_libversion: fn(*mut c_uint, *mut c_uint, *mut c_uint) -> Herr;
    H5Fcreate: fn(*const c_char, c_uint, Hid, Hid) -> Hid;
    H5Fopen: fn(*const c_char, c_uint, Hid) -> Hid;
    H5Fflush: fn(Hid, c_int) -> Herr;
    H5Fclose: fn(Hid) -> Herr;
    H5Dcreate1: fn(Hid, *const c_char, Hid, Hid, Hid) -> Hid;
    H5Dcreate2: fn(Hid, *const c_char, Hid, Hid, Hid, Hid, Hid) -> Hid;
    H5Dopen1: fn(Hid, *const c_char) -> Hid;
    H5Dopen2: fn(Hid, *const c_char, Hid) -> Hid;
    H5Dread: fn(Hid, Hid, Hid, Hid, Hid, *mut c_void) -> Herr;
    H5Dwrite: fn(Hid, Hid, Hid, Hid, Hid, *const c_void) -> Herr;
    H5Dflush: fn(Hid) -> Herr;
    H5Dclose: fn(Hid) -> Herr;
    H5Oopen: fn(Hid, *const c_char, Hid) -> Hid;
    H5Oclose: fn(Hid) -> Herr;
    H5Oopen_by_addr: fn(Hid, Haddr) -> Hid;
    H5Oopen_by_idx: fn(Hid, *const c_char, c_int, c_int, Hsize, Hid) -> Hid;
    H5Oopen_by_token: fn(Hid, Token) -> Hid;
    H5Dcreate_anon: fn(Hid, Hid, Hid, Hid, Hid) -> Hid;
    H5Dread_multi: fn(usize, *const Hid, *const Hid, *const Hid, *const Hid, Hid, *mut *mut c_void) -> Herr;
    H5Dwrite_multi: fn(usize, *const Hid, *const Hid, *const Hid, *const Hid, Hid, *const *const c_void) -> Herr;
    H5Dread_chunk: fn(Hid, Hid, *const Hsize, *mut u32, *mut c_void) -> Herr;
    H5Dread_chunk1: fn(Hid, Hid, *const Hsize, *mut u32, *mut c_void) -> Herr;
    H5Dread_chunk2: fn(Hid, Hid, *const Hsize, *mut u32, *mut c_void, *mut usize) -> Herr;
    H5Dwrite_chunk: fn(Hid, Hid, u32, *const Hsize, usize, *const c_void) -> Herr;
    H5Freopen: fn(Hid) -> Hid;
    H5Idec_ref: fn(Hid) -> c_int;
    H5Fget_access_plist: fn(Hid) -> Hid;
    H5Dget_chunk_storage_size: fn(Hid, *const Hsize, *mut Hsize) -> Herr;
    H5Fget_name: fn(Hid, *mut c_char, usize) -> isize;
    H5Iget_name: fn(Hid, *mut c_char, usize) -> isize;
    H5Iget_type: fn(Hid) -> c_int;
    H5Iget_file_id: fn(Hid) -> Hid;
    H5Dget_type: fn(Hid) -> Hid;
    H5Dget_space: fn(Hid) -> Hid;
    H5Dget_create_plist: fn(Hid) -> Hid;
    H5Tget_size: fn(Hid) -> usize;
    H5Tclose: fn(Hid) -> Herr;
    H5Sget_select_npoints: fn(Hid) -> i64;
    H5Sget_select_type: fn(Hid) -> c_int;
    H5Sis_regular_hyperslab: fn(Hid) -> c_int;
    H5Sget_regular_hyperslab: fn(Hid, *mut Hsize, *mut Hsize, *mut Hsize, *mut Hsize) -> Herr;
    H5Sget_simple_extent_ndims: fn(Hid) -> c_int;
    H5Sget_simple_extent_npoints: fn(Hid) -> i64;
    H5Sclose: fn(Hid) -> Herr;
    H5Sselect_hyperslab: fn(Hid, c_int, *const Hsize, *const Hsize, *const Hsize, *const Hsize) -> Herr;
    H5Sselect_elements: fn(Hid, c_int, usize, *const Hsize) -> Herr;
    H5Sselect_all: fn(Hid) -> Herr;
    H5Sselect_none: fn(Hid) -> Herr;
    H5Sselect_copy: fn(Hid, Hid) -> Herr;
    H5Smodify_select: fn(Hid, c_int, Hid) -> Herr;
    H5Sselect_adjust: fn(Hid, *const i64) -> Herr;
    H5Soffset_simple: fn(Hid, *const i64) -> Herr;
    H5Sset_extent_simple: fn(Hid, c_int, *const Hsize, *const Hsize) -> Herr;
    H5Sset_extent_none: fn(Hid) -> Herr;
    H5Sextent_copy: fn(Hid, Hid) -> Herr;
    H5Iclear_type: fn(c_int, u8) -> Herr;
    H5Idestroy_type: fn(c_int) -> Herr;
    H5close: fn() -> Herr;
    H5Ldelete: fn(Hid, *const c_char, Hid) -> Herr;
    H5Ldelete_by_idx: fn(Hid, *const c_char, c_int, c_int, Hsize, Hid) -> Herr;
    H5Lmove: fn(Hid, *const c_char, Hid, *const c_char, Hid, Hid) -> Herr;
    H5Odecr_refcount: fn(Hid) -> Herr;
    H5Gunlink: fn(Hid, *const c_char) -> Herr;
    H5Gmove: fn(Hid, *const c_char, *const c_char) -> Herr;
    H5Gmove2: fn(Hid, *const c_char, Hid, *const c_char) -> Herr;
    H5Pget_layout: fn(Hid) -> c_int;
    H5Pget_chunk: fn(Hid, c_int, *mut Hsize) -> c_int;
    H5Pget_fapl_mpio: fn(Hid, *mut c_void, *mut c_void) -> Herr;
    H5Pget_dxpl_mpio: fn(Hid, *mut c_int) -> Herr;
    H5Pclose: fn(Hid) -> Herr;
    H5Eget_auto2: fn(Hid, *mut AutoFn, *mut *mut c_void) -> Herr;
    H5Eset_auto2: fn(Hid, AutoFn, *mut c_void) -> Herr;
}

extern "C" {
    /// The static library's HDF5 table's function of NUL-terminated
    /// `name` (shim.c), null if none or if the table is not linked in.
    fn darshan_static_hdf5_symbol(name: *const c_char) -> *mut c_void;
}

pub struct Hdf5 {
    pub f: Fns,
    /// 1.10 or later: ids are 64-bit and the wrappers may inspect them.
    pub supported: bool,
    /// Load address of the object that is this library (hdf5_find.rs).
    pub base: usize,
    /// Its number among the libraries found (0: the first).
    pub tag: u64,
    /// Linked into the program statically: the 1.6 API's link deletions
    /// and moves reach it without a wrapper (scripts/install.sh).
    pub linked_in: bool,
}

impl Hdf5 {
    /// The library behind dlopen handle `handle`, loaded at `base`; its
    /// version checked (one line on stderr if it is too old to inspect).
    ///
    /// # Safety
    /// `handle` is a handle dlopen returned.
    pub unsafe fn open(handle: *mut c_void, base: usize) -> Hdf5 {
        // SAFETY: a dlopen handle (the caller's contract) and a
        // NUL-terminated name: that library's function of the name.
        let f = unsafe { Fns::resolve(&|name| libc::dlsym(handle, name)) };
        Self::checked(f, base)
    }

    /// The HDF5 linked into the program statically, with the static
    /// library's HDF5 table (share/ld-opts/darshan-hdf5-ld-opts): None
    /// where there is no such table (libdarshan.so, or a static link
    /// without the HDF5 options).
    pub fn linked_in() -> Option<Hdf5> {
        // SAFETY: the table names each function by the name it resolves
        // (install.sh makes it from this file's list), all of one
        // library; the names passed are NUL-terminated.
        let f = unsafe { Fns::resolve(&|name| darshan_static_hdf5_symbol(name)) };
        // No table (every function null) where it is not linked in.
        f.H5Fcreate?;
        // Its base: the table's own code, in the program (no other
        // library's calls reach the __wrap_ names).
        Some(Hdf5 { linked_in: true, ..Self::checked(f, darshan_static_hdf5_symbol as *const () as usize) })
    }

    /// The library with functions `f`, loaded at `base`; its version
    /// checked (one line on stderr if it is too old to inspect).
    fn checked(f: Fns, base: usize) -> Hdf5 {
        let (mut maj, mut min, mut rel) = (0, 0, 0);
        // SAFETY: three writable unsigned ints, as H5get_libversion takes.
        let ok = f.H5get_libversion.is_some_and(|v| unsafe { v(&mut maj, &mut min, &mut rel) } >= 0);
        let supported = ok && (maj > 1 || min >= 10);
        if !supported {
            crate::host::say(&format!(
                "HDF5 {maj}.{min}.{rel} is older than 1.10 (32-bit ids): its calls are not recorded"
            ));
        }
        Hdf5 { f, supported, base, tag: 0, linked_in: false }
    }

    /// The key the modules know an id of this library by: the id itself
    /// for the first library found, else the id with the library's number
    /// in bits 48..52 (HDF5 puts the id's type in bits 56..63 and numbers
    /// ids of a type from 1 up; two libraries hand out the same numbers).
    pub fn key(&self, id: Hid) -> Hid {
        id ^ ((self.tag as Hid) << 48)
    }
}

/// The ids describing an open dataset (its type, dataspace and creation
/// property list), closed when dropped.
pub struct DatasetIds<'a> {
    lib: &'a Hdf5,
    pub type_id: Hid,
    pub space_id: Hid,
    pub dcpl_id: Hid,
}

impl Drop for DatasetIds<'_> {
    fn drop(&mut self) {
        let f = &self.lib.f;
        // SAFETY: ids this library handed out for us and nobody else holds.
        f.H5Tclose.map(|c| unsafe { c(self.type_id) });
        // SAFETY: as above.
        f.H5Sclose.map(|c| unsafe { c(self.space_id) });
        // SAFETY: as above.
        f.H5Pclose.map(|c| unsafe { c(self.dcpl_id) });
    }
}

/// A dataspace id this library handed out for us, closed when dropped.
pub struct SpaceId<'a> {
    lib: &'a Hdf5,
    id: Hid,
}

impl SpaceId<'_> {
    pub fn id(&self) -> Hid {
        self.id
    }
}

impl Drop for SpaceId<'_> {
    fn drop(&mut self) {
        // SAFETY: an id this library handed out for us and nobody else holds.
        self.lib.f.H5Sclose.map(|c| unsafe { c(self.id) });
    }
}

/// Inspection of ids the program's HDF5 handed out, as Darshan makes it.
/// None of these functions dereferences memory it did not allocate; the
/// ids are the program's, already accepted by a real call.
impl Hdf5 {
    /// Whether `access_plist` selects the MPI-IO file driver (errors
    /// silenced around the probe, as Darshan does).
    pub fn uses_mpio(&self, access_plist: Hid) -> bool {
        let (Some(get), Some(set), Some(probe)) = (self.f.H5Eget_auto2, self.f.H5Eset_auto2, self.f.H5Pget_fapl_mpio)
        else {
            return false;
        };
        if access_plist == H5P_DEFAULT {
            return false;
        }
        let mut old: AutoFn = None;
        let mut data: *mut c_void = std::ptr::null_mut();
        // SAFETY: HDF5 calls with valid out-pointers; the error handler is
        // put back as it was.
        unsafe {
            get(H5E_DEFAULT, &mut old, &mut data);
            set(H5E_DEFAULT, None, std::ptr::null_mut());
            let r = probe(access_plist, std::ptr::null_mut(), std::ptr::null_mut());
            set(H5E_DEFAULT, old, data);
            r >= 0
        }
    }

    /// Whether an open file's access property list uses the MPI-IO driver
    /// (for H5Freopen, whose caller passes none).
    pub fn file_uses_mpio(&self, file_id: Hid) -> bool {
        let (Some(get), Some(close)) = (self.f.H5Fget_access_plist, self.f.H5Pclose) else { return false };
        // SAFETY: an HDF5 call on an id; no memory passed.
        let fapl = unsafe { get(file_id) };
        if fapl < 0 {
            return false;
        }
        let mpio = self.uses_mpio(fapl);
        // SAFETY: the copy H5Fget_access_plist made for us.
        unsafe { close(fapl) };
        mpio
    }

    /// The stored (filtered) size of the chunk at `offset` of a chunked
    /// dataset, 0 if HDF5 cannot tell.
    ///
    /// # Safety
    /// `offset` points to one coordinate per dimension of `dset` (the
    /// argument a direct chunk call just accepted).
    pub unsafe fn chunk_storage_size(&self, dset: Hid, offset: *const Hsize) -> i64 {
        let mut size: Hsize = 0;
        // SAFETY: the caller's contract for `offset`; `size` is writable.
        let ok = self.f.H5Dget_chunk_storage_size.is_some_and(|g| unsafe { g(dset, offset, &mut size) } >= 0);
        if ok {
            size as i64
        } else {
            0
        }
    }

    /// H5Fget_name into `buf`: HDF5's result (the full length, or < 0).
    pub fn file_name(&self, id: Hid, buf: &mut [u8]) -> isize {
        // SAFETY: the buffer is writable for its length.
        self.f.H5Fget_name.map_or(-1, |g| unsafe { g(id, buf.as_mut_ptr().cast(), buf.len()) })
    }

    /// H5Iget_name into `buf`: HDF5's result (the full length, or < 0).
    pub fn object_name(&self, id: Hid, buf: &mut [u8]) -> isize {
        // SAFETY: the buffer is writable for its length.
        self.f.H5Iget_name.map_or(-1, |g| unsafe { g(id, buf.as_mut_ptr().cast(), buf.len()) })
    }

    pub fn is_dataset(&self, id: Hid) -> bool {
        // SAFETY: an HDF5 call on an id; no memory passed.
        self.f.H5Iget_type.is_some_and(|g| unsafe { g(id) } == H5I_DATASET)
    }

    /// The id of the open file `object_id` lives in (the reference HDF5
    /// takes for it released at once: the number stays the file's while
    /// it is open, and is never handed out again).
    pub fn file_id_of(&self, object_id: Hid) -> Option<Hid> {
        let mut id = None;
        self.with_file_of(object_id, |f| id = Some(f));
        id
    }

    /// An open dataset's dataspace, closed when dropped.
    pub fn dataset_space(&self, dset: Hid) -> Option<SpaceId<'_>> {
        // SAFETY: an HDF5 call on a dataset id; no memory passed.
        let id = unsafe { self.f.H5Dget_space?(dset) };
        (id >= 0).then_some(SpaceId { lib: self, id })
    }

    /// The file `object_id` lives in, for `f`; the reference HDF5 takes
    /// for it is released afterwards.
    pub fn with_file_of(&self, object_id: Hid, f: impl FnOnce(Hid)) {
        let (Some(file_of), Some(close)) = (self.f.H5Iget_file_id, self.f.H5Fclose) else { return };
        // SAFETY: an HDF5 call on an id; no memory passed.
        let file_id = unsafe { file_of(object_id) };
        if file_id > 0 {
            f(file_id);
            // SAFETY: the new reference H5Iget_file_id gave us.
            unsafe { close(file_id) };
        }
    }

    /// An open dataset's type, dataspace and creation list (as Darshan
    /// asks for them after H5Dopen and H5Oopen).
    pub fn dataset_ids(&self, dset: Hid) -> Option<DatasetIds<'_>> {
        let f = &self.f;
        let (Some(gt), Some(gs), Some(gp)) = (f.H5Dget_type, f.H5Dget_space, f.H5Dget_create_plist) else {
            return None;
        };
        let mut ids = DatasetIds { lib: self, type_id: -1, space_id: -1, dcpl_id: -1 };
        // SAFETY: HDF5 calls on a dataset id; no memory passed. Whatever
        // was obtained is closed by DatasetIds' Drop.
        ids.type_id = unsafe { gt(dset) };
        // SAFETY: as above.
        ids.space_id = unsafe { gs(dset) };
        // SAFETY: as above.
        ids.dcpl_id = unsafe { gp(dset) };
        (ids.type_id >= 0 && ids.space_id >= 0 && ids.dcpl_id >= 0).then_some(ids)
    }

    /// (ndims, npoints) of a dataspace.
    pub fn extent(&self, space_id: Hid) -> (i64, i64) {
        // SAFETY: HDF5 calls on an id; no memory passed.
        let ndims = self.f.H5Sget_simple_extent_ndims.map_or(0, |g| unsafe { g(space_id) } as i64);
        // SAFETY: as above.
        let npoints = self.f.H5Sget_simple_extent_npoints.map_or(0, |g| unsafe { g(space_id) });
        (ndims, npoints)
    }

    pub fn type_size(&self, type_id: Hid) -> i64 {
        // SAFETY: an HDF5 call on an id; no memory passed.
        self.f.H5Tget_size.map_or(0, |g| unsafe { g(type_id) } as i64)
    }

    /// The chunk sizes of a chunked layout, D1 the fastest-varying
    /// dimension, and how many there are, at most `N` (Darshan's
    /// H5D_MAX_NDIMS).
    pub fn chunk<const N: usize>(&self, dcpl_id: Hid) -> Option<([i64; N], usize)> {
        let (Some(layout), Some(get)) = (self.f.H5Pget_layout, self.f.H5Pget_chunk) else { return None };
        // SAFETY: an HDF5 call on an id; no memory passed.
        if dcpl_id == H5P_DEFAULT || unsafe { layout(dcpl_id) } != H5D_CHUNKED {
            return None;
        }
        let mut dims = [0 as Hsize; H5S_MAX_RANK];
        // SAFETY: `dims` holds N <= H5S_MAX_RANK values, as many as asked for.
        let n = unsafe { get(dcpl_id, N as c_int, dims.as_mut_ptr()) }.clamp(0, N as c_int) as usize;
        Some((std::array::from_fn(|i| if i < n { dims[n - i - 1] as i64 } else { 0 }), n))
    }

    /// The rank of a dataspace (< 0: an error).
    pub fn rank(&self, space_id: Hid) -> c_int {
        // SAFETY: an HDF5 call on an id; no memory passed.
        self.f.H5Sget_simple_extent_ndims.map_or(-1, |g| unsafe { g(space_id) })
    }

    /// (npoints, selection type) of a file dataspace.
    pub fn selection(&self, space_id: Hid) -> (i64, c_int) {
        // SAFETY: HDF5 calls on an id; no memory passed.
        let npoints = self.f.H5Sget_select_npoints.map_or(0, |g| unsafe { g(space_id) });
        // SAFETY: as above.
        let kind = self.f.H5Sget_select_type.map_or(-1, |g| unsafe { g(space_id) });
        (npoints, kind)
    }

    /// (stride, count, block) of a regular hyperslab selection, in HDF5's
    /// dimension order, or None for an irregular one.
    pub fn regular_hyperslab(&self, space_id: Hid) -> Option<[[Hsize; H5S_MAX_RANK]; 3]> {
        let (Some(is_regular), Some(get)) = (self.f.H5Sis_regular_hyperslab, self.f.H5Sget_regular_hyperslab) else {
            return None;
        };
        // SAFETY: an HDF5 call on an id; no memory passed.
        if unsafe { is_regular(space_id) } <= 0 {
            return None;
        }
        let mut start = [0 as Hsize; H5S_MAX_RANK];
        let [mut stride, mut count, mut block] = [[0 as Hsize; H5S_MAX_RANK]; 3];
        // SAFETY: four arrays of H5S_MAX_RANK, the most dimensions a
        // dataspace has (Darshan passes 5 and overflows on rank 6+). As in
        // Darshan, a failure leaves them zero and the selection regular.
        unsafe { get(space_id, start.as_mut_ptr(), stride.as_mut_ptr(), count.as_mut_ptr(), block.as_mut_ptr()) };
        Some([stride, count, block])
    }

    /// Whether a transfer property list asks for collective MPI-IO.
    pub fn collective(&self, dxpl: Hid) -> bool {
        let mut mode: c_int = 0;
        // SAFETY: `mode` is a writable int, as H5Pget_dxpl_mpio takes.
        dxpl != H5P_DEFAULT
            && self.f.H5Pget_dxpl_mpio.is_some_and(|g| unsafe { g(dxpl, &mut mode) } >= 0)
            && mode == H5FD_MPIO_COLLECTIVE
    }
}
