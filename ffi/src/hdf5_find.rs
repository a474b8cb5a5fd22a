//! Which HDF5 library an H5* call belongs to. A process can hold several:
//! h5py's and netCDF4's wheels each bundle their own, loaded RTLD_LOCAL,
//! and all their calls reach the same exported wrappers. Passing a call
//! (or an id) to the wrong library operates on another library's object
//! of the same number, so each call goes to the library its caller was
//! linked with: the exported entry stub (hdf5_wrap.rs) notes the return
//! address, the object holding that address is found once (its address
//! range cached, lock-free), and the H5Fcreate its own dependencies
//! define says which library is its. A caller whose dependencies define
//! none (the program itself, linked with -lhdf5 into the global scope, or
//! a ctypes call) gets the global one: the next H5Fcreate after this
//! library, else the first loaded object that defines it.
//!
//! Finding an object takes the loader's lock (dladdr, dl_iterate_phdr,
//! dlopen with RTLD_NOLOAD) and, for a library not seen before, one
//! allocation that is never freed, as the first call of the C runtime's
//! wrappers does (dlsym): once per calling object (per page of code
//! outside any object), never again. Past 64 calling objects the lookup
//! is made at every call: slower, never the wrong library.

use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};

use crate::hdf5_lib::{Fns, Hdf5};
use crate::loaded::{first_definition, load_segments, owner_of};

extern "C" {
    /// The return address the entry stub noted for this thread (shim.c,
    /// an initial-exec TLS word), 0 where no stub notes it.
    fn darshan_h5_caller() -> usize;
}

/// The return address of the H5* call this thread is in, 0 if unknown.
pub fn caller() -> usize {
    // SAFETY: reads this thread's word; no preconditions.
    unsafe { darshan_h5_caller() }
}

/// The library the H5* call this thread is in belongs to, and the real
/// function `pick` takes from it (None: no library, or it has none).
#[inline]
pub fn real<F>(pick: impl FnOnce(&Fns) -> Option<F>) -> Option<(&'static Hdf5, F)> {
    let lib = lib_for(caller())?;
    Some((lib, pick(&lib.f)?))
}

/// Every library found (never freed), at most this many kept.
const LIBRARIES: usize = 8;
static LIBS: [AtomicPtr<Hdf5>; LIBRARIES] = [const { AtomicPtr::new(std::ptr::null_mut()) }; LIBRARIES];

/// A calling object's address range and the library its calls go to;
/// `lib` is stored last and marks the entry complete.
struct CallerRange {
    lo: AtomicUsize,
    hi: AtomicUsize,
    lib: AtomicPtr<Hdf5>,
}

const CALLERS: usize = 64;
static RANGES: [CallerRange; CALLERS] = [const {
    CallerRange { lo: AtomicUsize::new(0), hi: AtomicUsize::new(0), lib: AtomicPtr::new(std::ptr::null_mut()) }
}; CALLERS];
static RANGES_CLAIMED: AtomicUsize = AtomicUsize::new(0);

/// The global-scope library, once looked for.
static GLOBAL: Cached = Cached::new();

/// The library a call from return address `caller` belongs to.
pub fn lib_for(caller: usize) -> Option<&'static Hdf5> {
    if let Some(lib) = linked_in() {
        return Some(lib);
    }
    if caller == 0 {
        return global();
    }
    let n = RANGES_CLAIMED.load(Ordering::Acquire).min(CALLERS);
    for r in &RANGES[..n] {
        let lib = r.lib.load(Ordering::Acquire);
        if !lib.is_null() && (r.lo.load(Ordering::Relaxed)..r.hi.load(Ordering::Relaxed)).contains(&caller) {
            // SAFETY: published from a leaked Box, never freed.
            return Some(unsafe { &*lib });
        }
    }
    let (lo, hi, lib) = match object_at(caller) {
        Some(obj) => (obj.lo, obj.hi, own_library(&obj).or_else(global)?),
        // Code in no loaded object (a JIT's: Julia's ccall, for one): the
        // global library, remembered for the caller's page, so that its
        // next calls are not looked up again.
        None => (caller & !4095, (caller & !4095) + 4096, global()?),
    };
    let slot = RANGES_CLAIMED.fetch_add(1, Ordering::AcqRel);
    if let Some(r) = RANGES.get(slot) {
        r.lo.store(lo, Ordering::Relaxed);
        r.hi.store(hi, Ordering::Relaxed);
        r.lib.store(lib as *const Hdf5 as *mut Hdf5, Ordering::Release);
    }
    Some(lib)
}

/// A library looked up once: found (a leaked Box, never freed, published)
/// or known to be absent. Without a lock: threads making their first
/// calls at once each look (a once-lock would hang a child forked while
/// another thread was looking), and the last one found is kept.
struct Cached {
    lib: AtomicPtr<Hdf5>,
    absent: AtomicBool,
}

impl Cached {
    const fn new() -> Cached {
        Cached { lib: AtomicPtr::new(std::ptr::null_mut()), absent: AtomicBool::new(false) }
    }

    fn get(&self, find: impl FnOnce() -> Option<&'static Hdf5>) -> Option<&'static Hdf5> {
        let p = self.lib.load(Ordering::Acquire);
        if !p.is_null() {
            // SAFETY: only 'static libraries are stored (leaked, never freed).
            return Some(unsafe { &*p });
        }
        if self.absent.load(Ordering::Relaxed) {
            return None;
        }
        let found = find();
        match found {
            Some(lib) => self.lib.store(lib as *const Hdf5 as *mut Hdf5, Ordering::Release),
            None => self.absent.store(true, Ordering::Relaxed),
        }
        found
    }
}

/// The HDF5 linked statically into the program with the static HDF5
/// options (Hdf5::linked_in), made once. Every call that reaches a
/// wrapper then comes from that link: the wrappers are the program's
/// `__wrap_H5...` names, which no shared library calls, so no caller is
/// looked up.
static LINKED_IN: Cached = Cached::new();

fn linked_in() -> Option<&'static Hdf5> {
    LINKED_IN.get(|| Hdf5::linked_in().map(|lib| &*Box::leak(Box::new(lib))))
}

/// The library this library's own calls to H5 names would reach: the next
/// definition in the global scope, else the first loaded object that
/// defines H5Fcreate (h5py's `h5py.libs/libhdf5-<hash>.so`). The library
/// registry keeps one per object, however many threads look at once.
fn global() -> Option<&'static Hdf5> {
    GLOBAL.get(|| {
        // SAFETY: dlsym with a NUL-terminated name.
        let next = unsafe { libc::dlsym(libc::RTLD_NEXT, c"H5Fcreate".as_ptr()) };
        let owner = owner_of(next).or_else(|| first_definition(c"H5Fcreate").map(|d| (d.handle, d.base)));
        owner.map(|(handle, base)| library(handle, base))
    })
}

/// The library loaded at `base` (dlopen handle `handle`), made once.
fn library(handle: *mut c_void, base: usize) -> &'static Hdf5 {
    loop {
        let mut free = None;
        for (i, slot) in LIBS.iter().enumerate() {
            match published(slot) {
                None => _ = free.get_or_insert(i),
                Some(lib) if lib.base == base => return lib,
                Some(_) => {}
            }
        }
        // SAFETY: `handle` came from dlopen.
        let mut lib = unsafe { Hdf5::open(handle, base) };
        lib.tag = free.unwrap_or(LIBRARIES) as u64;
        let mine: &'static mut Hdf5 = Box::leak(Box::new(lib));
        let Some(i) = free else { return mine }; // registry full: kept anyway
        let p: *mut Hdf5 = mine;
        match LIBS[i].compare_exchange(std::ptr::null_mut(), p, Ordering::AcqRel, Ordering::Acquire) {
            // SAFETY: `p` is the leaked Box just published; never freed.
            Ok(_) => return unsafe { &*p },
            // Another thread took the slot: look again (it may be this one).
            // SAFETY: `p` was never published, so no one else holds it.
            Err(_) => drop(unsafe { Box::from_raw(p) }),
        }
    }
}

/// The library in a registry slot, if one was published there.
fn published(slot: &AtomicPtr<Hdf5>) -> Option<&'static Hdf5> {
    let p = slot.load(Ordering::Acquire);
    // SAFETY: only leaked Boxes are stored in LIBS, and never freed.
    (!p.is_null()).then(|| unsafe { &*p })
}

/// A loaded object: its address range and file name (empty for the
/// program itself).
struct Object {
    lo: usize,
    hi: usize,
    name: [u8; libc::PATH_MAX as usize],
}

struct Search {
    addr: usize,
    found: Option<Object>,
}

/// The loaded object whose segments hold `addr`.
fn object_at(addr: usize) -> Option<Object> {
    let mut s = Search { addr, found: None };
    // SAFETY: the callback only reads the entry it is given and writes `s`.
    unsafe { libc::dl_iterate_phdr(Some(holding), (&mut s as *mut Search).cast()) };
    s.found
}

unsafe extern "C" fn holding(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
    // SAFETY: the loader passes a valid entry and our `Search`.
    let (info, s) = unsafe { (&*info, &mut *data.cast::<Search>()) };
    let (mut lo, mut hi, mut holds) = (usize::MAX, 0usize, false);
    for seg in load_segments(info) {
        holds |= seg.contains(&s.addr);
        lo = lo.min(seg.start);
        hi = hi.max(seg.end);
    }
    if !holds {
        return 0;
    }
    let mut obj = Object { lo, hi, name: [0; libc::PATH_MAX as usize] };
    if !info.dlpi_name.is_null() {
        // SAFETY: the loader's NUL-terminated name of this object.
        let name = unsafe { std::ffi::CStr::from_ptr(info.dlpi_name) }.to_bytes();
        if name.len() >= obj.name.len() {
            return 1; // a name too long to reopen: found, but not usable
        }
        obj.name[..name.len()].copy_from_slice(name);
    }
    s.found = Some(obj);
    1
}

/// The library `obj`'s own dependencies define H5Fcreate in, if it is
/// not the global one (None for the program itself).
fn own_library(obj: &Object) -> Option<&'static Hdf5> {
    if obj.name[0] == 0 {
        return None;
    }
    // SAFETY: `name` is NUL-terminated (zeroed past the copied name);
    // RTLD_NOLOAD only takes a reference to an object already loaded.
    let h = unsafe { libc::dlopen(obj.name.as_ptr().cast(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    if h.is_null() {
        return None;
    }
    // SAFETY: a dlopen handle and a NUL-terminated name: the object's own
    // dependency scope, not the global one.
    let p = unsafe { libc::dlsym(h, c"H5Fcreate".as_ptr()) };
    // SAFETY: the reference taken just above.
    unsafe { libc::dlclose(h) };
    let (handle, base) = owner_of(p)?;
    Some(library(handle, base))
}
