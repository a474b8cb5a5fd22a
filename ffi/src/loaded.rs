//! Definitions outside the global scope. A library that a dlopen'ed
//! object brought in is loaded RTLD_LOCAL: Python imports every
//! extension module that way, so mpi4py's libmpi, a wheel's liburing or
//! a plugin's PnetCDF is not in the scope `dlsym(RTLD_NEXT)` searches.
//! Its users' calls still reach our exported wrappers (this library is
//! in the global scope, which every object searches first), and a
//! wrapper without its real function fails the call: `from mpi4py
//! import MPI` raised "MPI_Init_thread() failed". Such a definition is
//! looked for in the loaded objects, in load order: first in the
//! objects already found to define one (one `dlsym` each), then, from a
//! wrapper's first call only, in every object.
//!
//! Looking takes the loader's lock and may allocate, as `dlsym` does; it
//! happens once per name, where the call would otherwise fail. The
//! object that holds a definition is held open (a reference never
//! released), so a pointer kept in a wrapper's slot never outlives it.

use std::ffi::{c_int, c_void, CStr};
use std::sync::atomic::{AtomicPtr, Ordering};

/// Handles of the objects found to define a name outside the global
/// scope (libmpi, liburing, libpnetcdf: a few), each held open.
const KNOWN: usize = 8;
static KNOWN_OBJECTS: [AtomicPtr<c_void>; KNOWN] = [const { AtomicPtr::new(std::ptr::null_mut()) }; KNOWN];

/// `name`'s definition (`name` NUL-terminated, as the wrappers' slots
/// keep it) in an object already found to define another name outside
/// the global scope (the MPI library, for each of its functions once
/// MPI_Init found it there). Cheap: no object is searched unless one was
/// found before.
pub fn in_known_objects(name: &[u8]) -> Option<*mut c_void> {
    let name = CStr::from_bytes_with_nul(name).ok()?;
    KNOWN_OBJECTS.iter().map(|slot| slot.load(Ordering::Acquire)).take_while(|h| !h.is_null()).find_map(|h| {
        // SAFETY: a handle from dlopen, never closed; a NUL-terminated name.
        let p = unsafe { libc::dlsym(h, name.as_ptr()) };
        // Its scope's objects stay loaded while it is held open.
        object_base(p).is_some_and(|base| base != own_base()).then_some(p)
    })
}

/// `name`'s definition (NUL-terminated) anywhere outside this library:
/// in the objects found before, else the first loaded object (in load
/// order) whose own dependency scope defines it.
pub fn anywhere(name: &[u8]) -> Option<*mut c_void> {
    in_known_objects(name).or_else(|| {
        let d = first_definition(CStr::from_bytes_with_nul(name).ok()?)?;
        remember(d.handle);
        Some(d.sym)
    })
}

/// Keeps `handle` among the known objects (once; past KNOWN, not kept).
fn remember(handle: *mut c_void) {
    for slot in &KNOWN_OBJECTS {
        match slot.compare_exchange(std::ptr::null_mut(), handle, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return,
            Err(h) if h == handle => return,
            Err(_) => {}
        }
    }
}

/// A definition and the object holding it, held open.
pub struct Definition {
    pub sym: *mut c_void,
    /// A dlopen handle of the object (a reference never released).
    pub handle: *mut c_void,
    /// The object's load address.
    pub base: usize,
}

/// The first loaded object, in load order, other than the program and
/// this library, whose dependency scope defines `name`.
pub fn first_definition(name: &CStr) -> Option<Definition> {
    let mut search = Wanted { name, found: None };
    // SAFETY: the callback only reads the entry it is given and writes
    // `search`.
    unsafe { libc::dl_iterate_phdr(Some(defining), (&mut search as *mut Wanted).cast()) };
    search.found
}

struct Wanted<'a> {
    name: &'a CStr,
    found: Option<Definition>,
}

unsafe extern "C" fn defining(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
    // SAFETY: the loader passes a valid entry and our `Wanted`.
    let (info, search) = unsafe { (&*info, &mut *data.cast::<Wanted>()) };
    // SAFETY: a non-null name the loader keeps for the object's lifetime.
    if info.dlpi_name.is_null() || unsafe { *info.dlpi_name } == 0 {
        return 0;
    }
    // SAFETY: the name of a loaded object; RTLD_NOLOAD loads nothing.
    let h = unsafe { libc::dlopen(info.dlpi_name, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    if h.is_null() {
        return 0;
    }
    // SAFETY: a dlopen handle and a NUL-terminated name: the object's
    // own dependency scope, not the global one.
    let p = unsafe { libc::dlsym(h, search.name.as_ptr()) };
    // SAFETY: the reference taken just above; owner_of takes its own.
    unsafe { libc::dlclose(h) };
    match owner_of(p) {
        Some((handle, base)) => {
            search.found = Some(Definition { sym: p, handle, base });
            1
        }
        None => 0,
    }
}

/// The program headers of an object as `dl_iterate_phdr` describes it
/// (none if it gives none).
pub fn program_headers(info: &libc::dl_phdr_info) -> &[libc::Elf64_Phdr] {
    if info.dlpi_phdr.is_null() {
        return &[];
    }
    // SAFETY: dlpi_phdr points to dlpi_phnum program headers, valid while
    // the loader describes the object (the borrow of `info`).
    unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) }
}

/// The address ranges an object's loaded segments occupy.
pub fn load_segments(info: &libc::dl_phdr_info) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let base = info.dlpi_addr as usize;
    program_headers(info).iter().filter(|p| p.p_type == libc::PT_LOAD).map(move |p| {
        let start = base.wrapping_add(p.p_vaddr as usize);
        start..start.wrapping_add(p.p_memsz as usize)
    })
}

/// The object that defines `sym` (not this library): a dlopen handle,
/// held open, and its load address.
pub fn owner_of(sym: *mut c_void) -> Option<(*mut c_void, usize)> {
    let info = object_of(sym)?;
    if info.dli_fname.is_null() || info.dli_fbase == own_base() {
        return None;
    }
    // SAFETY: a loaded object's file name; RTLD_NOLOAD only takes a
    // reference to an object already loaded (kept: its functions are
    // used for the rest of the process).
    let h = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    (!h.is_null()).then_some((h, info.dli_fbase as usize))
}

/// The load address of the object holding `addr`, if one does.
fn object_base(addr: *mut c_void) -> Option<*mut c_void> {
    object_of(addr).map(|info| info.dli_fbase)
}

/// What the loader says of the object holding `addr` (dladdr).
fn object_of(addr: *mut c_void) -> Option<libc::Dl_info> {
    if addr.is_null() {
        return None;
    }
    // SAFETY: Dl_info is plain pointers and integers, valid all zero.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `addr` is an address the loader gave; dladdr writes `info`.
    (unsafe { libc::dladdr(addr, &mut info) } != 0).then_some(info)
}

/// This library's load address (asked of the loader once: it is fixed
/// for the process's life).
pub fn own_base() -> *mut c_void {
    static BASE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BASE.get_or_init(|| object_base(own_base as *mut c_void).map_or(0, |b| b as usize)) as *mut c_void
}
