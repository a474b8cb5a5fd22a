//! The HDF5 library behind a program's H5* calls, found at run time: no
//! undefined H5 symbol and no dependency on libhdf5 in this library (the
//! C runtime's undefined references break every program under
//! LD_BIND_NOW=1, and h5py's wheels, whose bundled libhdf5 is loaded
//! RTLD_LOCAL). The library is looked up at the first H5* call: the next
//! definition of H5Fcreate in the global scope (a program linked with
//! -lhdf5), else the first loaded object that defines it (h5py's
//! `h5py.libs/libhdf5-<hash>.so`), and every function a wrapper calls,
//! real or helper, comes from that one library.
//!
//! Versions before 1.10 (32-bit hid_t) are passed through unrecorded,
//! with one line on stderr.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::OnceLock;

pub type Hid = i64;
pub type Herr = c_int;
pub type Hsize = u64;

/// H5P_DEFAULT, H5S_ALL, H5E_DEFAULT (1.10+ headers).
pub const H5P_DEFAULT: Hid = 0;
pub const H5S_ALL: Hid = 0;
const H5E_DEFAULT: Hid = 0;
pub const H5S_SEL_POINTS: c_int = 1;
pub const H5S_SEL_HYPERSLABS: c_int = 2;
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
            /// # Safety
            /// `handle` is a handle dlopen returned.
            unsafe fn resolve(handle: *mut c_void) -> Fns {
                Fns {
                    $($name: {
                        let name = concat!(stringify!($name), "\0");
                        // SAFETY: a dlopen handle and a NUL-terminated name.
                        let p = unsafe { libc::dlsym(handle, name.as_ptr().cast()) };
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
    H5Pget_layout: fn(Hid) -> c_int;
    H5Pget_chunk: fn(Hid, c_int, *mut Hsize) -> c_int;
    H5Pget_fapl_mpio: fn(Hid, *mut c_void, *mut c_void) -> Herr;
    H5Pget_dxpl_mpio: fn(Hid, *mut c_int) -> Herr;
    H5Pclose: fn(Hid) -> Herr;
    H5Eget_auto2: fn(Hid, *mut AutoFn, *mut *mut c_void) -> Herr;
    H5Eset_auto2: fn(Hid, AutoFn, *mut c_void) -> Herr;
}

pub struct Hdf5 {
    pub f: Fns,
    /// 1.10 or later: ids are 64-bit and the wrappers may inspect them.
    pub supported: bool,
}

static LIB: OnceLock<Option<Hdf5>> = OnceLock::new();

/// The program's HDF5 library (looked up once, at the first H5* call).
pub fn lib() -> Option<&'static Hdf5> {
    LIB.get_or_init(find).as_ref()
}

/// The object that defines `sym` (not this library), as a dlopen handle.
fn owner_handle(sym: *mut c_void) -> Option<*mut c_void> {
    // SAFETY: dladdr only reads the loader's tables; `info` is writable.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    if sym.is_null() || unsafe { libc::dladdr(sym, &mut info) } == 0 || info.dli_fname.is_null() {
        return None;
    }
    if info.dli_fbase == own_base() {
        return None;
    }
    // SAFETY: a loaded object's file name; RTLD_NOLOAD only takes a
    // reference to an object already loaded.
    let h = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    (!h.is_null()).then_some(h)
}

fn own_base() -> *mut c_void {
    // SAFETY: as above, for a function of this library.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    unsafe { libc::dladdr(own_base as *const c_void, &mut info) };
    info.dli_fbase
}

fn find() -> Option<Hdf5> {
    let name = c"H5Fcreate";
    // SAFETY: dlsym with a NUL-terminated name.
    let next = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    let handle = owner_handle(next).or_else(|| {
        // Not in the global scope: an object loaded RTLD_LOCAL (h5py).
        let mut found: Option<*mut c_void> = None;
        // SAFETY: the callback only reads the entry it is given.
        unsafe { libc::dl_iterate_phdr(Some(visit), (&mut found as *mut Option<*mut c_void>).cast()) };
        found
    })?;
    // SAFETY: `handle` came from dlopen.
    let f = unsafe { Fns::resolve(handle) };
    let (mut maj, mut min, mut rel) = (0, 0, 0);
    // SAFETY: three writable unsigned ints, as H5get_libversion takes.
    let ok = f.H5get_libversion.is_some_and(|v| unsafe { v(&mut maj, &mut min, &mut rel) } >= 0);
    let supported = ok && (maj > 1 || min >= 10);
    if !supported {
        crate::init::say(&format!(
            "HDF5 {maj}.{min}.{rel} is older than 1.10 (32-bit ids): its calls are not recorded"
        ));
    }
    Some(Hdf5 { f, supported })
}

unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
    // SAFETY: the loader passes a valid entry and our `found` pointer.
    let (info, found) = unsafe { (&*info, &mut *data.cast::<Option<*mut c_void>>()) };
    if info.dlpi_name.is_null() || unsafe { *info.dlpi_name } == 0 {
        return 0;
    }
    // SAFETY: the name of a loaded object; RTLD_NOLOAD loads nothing.
    let h = unsafe { libc::dlopen(info.dlpi_name, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    if h.is_null() {
        return 0;
    }
    // SAFETY: a dlopen handle and a NUL-terminated name.
    let p = unsafe { libc::dlsym(h, c"H5Fcreate".as_ptr()) };
    // SAFETY: the handle is ours to release; the owner keeps its own.
    unsafe { libc::dlclose(h) };
    match owner_handle(p) {
        Some(owner) => {
            *found = Some(owner);
            1
        }
        None => 0,
    }
}

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

    /// A name HDF5 writes into a buffer (H5Fget_name, H5Iget_name), if it
    /// fits in `buf`.
    pub fn name_into(
        getter: Option<unsafe extern "C" fn(Hid, *mut c_char, usize) -> isize>,
        id: Hid,
        buf: &mut [u8],
    ) -> Option<usize> {
        let g = getter?;
        // SAFETY: the buffer is writable for its length.
        let n = unsafe { g(id, buf.as_mut_ptr().cast(), buf.len()) };
        (n >= 0 && (n as usize) < buf.len()).then(|| CStr::from_bytes_until_nul(buf).map_or(0, |s| s.to_bytes().len()))
    }
}
