//! The next definition of a name after this library, as `dlsym(RTLD_NEXT,
//! name)` gives it, read straight from the dynamic symbol tables of the
//! objects loaded with the program (docs/interposition.md rule 2).
//!
//! Why: resolving all 180 wrapped names with `dlsym` in the constructor
//! cost every process 45-70 us (a third of what loading and starting the
//! runtime adds to `/bin/true`), though a short process calls few of
//! them. `dlsym` cannot be called lazily from a wrapper: it takes the
//! loader's lock and allocates when a name is missing. This lookup only
//! reads tables the loader mapped for the process's life (the objects
//! loaded with the program are never unloaded), so a wrapper may use it at
//! its first call, even in a signal handler: no lock, no allocation.
//!
//! The rules are glibc's `do_lookup_x`/`check_match` for `dlsym` (the
//! newest version: a symbol of version index 0 or 1 at once; else the one
//! non-hidden versioned definition of an object). What it does not decide
//! itself (an IFUNC, a TLS or a GNU_UNIQUE symbol, an object without a GNU
//! hash table) goes back to `dlsym`. The constructor checks its answers
//! against `dlsym`'s for a few names and keeps the tables only if they
//! agree (a library loaded by `dlopen`, whose next objects are not the
//! ones after it in load order, is such a case).

use std::ffi::{c_int, c_void, CStr};
use std::sync::OnceLock;

use crate::loaded::{load_segments, program_headers};

const DT_NULL: i64 = 0;
const DT_STRTAB: i64 = 5;
const DT_SYMTAB: i64 = 6;
const DT_GNU_HASH: i64 = 0x6fff_fef5;
const DT_VERSYM: i64 = 0x6fff_fff0;
const SHN_UNDEF: u16 = 0;
const SHN_ABS: u16 = 0xfff1;
const STT_FUNC: u8 = 2;
const STT_TLS: u8 = 6;
const STT_GNU_IFUNC: u8 = 10;
/// NOTYPE, OBJECT, FUNC, COMMON, TLS, GNU_IFUNC: what glibc's lookups match.
const MATCHED_TYPES: u32 = (1 << 0) | (1 << 1) | (1 << STT_FUNC) | (1 << 5) | (1 << STT_TLS) | (1 << STT_GNU_IFUNC);
const STB_GLOBAL: u8 = 1;
const STB_WEAK: u8 = 2;
/// Names whose answers the constructor compares with `dlsym`'s.
const CHECKED: [&CStr; 3] = [c"open", c"fopen", c"write"];

/// One object's dynamic symbol table and GNU hash table, as addresses.
#[derive(Clone, Copy, Debug)]
struct Object {
    base: usize,
    symtab: usize,
    strtab: usize,
    /// 0 if the object has no version table.
    versym: usize,
    nbuckets: u32,
    symoffset: u32,
    /// Bloom words minus one (a power of two, as glibc masks).
    bloom_mask: u32,
    bloom_shift: u32,
    bloom: usize,
    buckets: usize,
    chain: usize,
}

/// What one object says of a name.
#[derive(Debug, PartialEq)]
enum Answer {
    Defined(*mut c_void),
    NotHere,
    /// Defined in a way only the loader resolves (IFUNC, TLS, unique).
    AskTheLoader,
}

/// The objects after this library in the program's search order, once
/// the constructor found them and checked them.
static NEXT: OnceLock<Vec<Object>> = OnceLock::new();

/// `name`'s next definition after this library, if the tables say: None
/// when they do not (no tables, a name defined nowhere in them, or one
/// only the loader resolves): the caller then asks `dlsym`.
pub fn find(name: &CStr) -> Option<*mut c_void> {
    find_in(NEXT.get()?, name)
}

fn find_in(objects: &[Object], name: &CStr) -> Option<*mut c_void> {
    let bytes = name.to_bytes();
    let h = gnu_hash(bytes);
    for o in objects {
        match o.answer(bytes, h) {
            Answer::Defined(p) => return Some(p),
            Answer::NotHere => {}
            Answer::AskTheLoader => return None,
        }
    }
    None
}

/// Constructor: the tables of the objects after this one, kept if they
/// give `dlsym`'s answers. False if not (the caller resolves eagerly).
pub fn prepare() -> bool {
    let Some(objects) = objects_after(prepare as *const () as usize) else { return false };
    let agree = CHECKED.iter().all(|n| find_in(&objects, n) == Some(dlsym_next(n)).filter(|p| !p.is_null()));
    agree && NEXT.set(objects).is_ok()
}

fn dlsym_next(name: &CStr) -> *mut c_void {
    // SAFETY: a NUL-terminated name; dlsym may be called at any time
    // outside a wrapper's path (here: the constructor, or a test).
    unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) }
}

/// The objects loaded after the one that holds `own` (an address of its
/// code), in load order, the vDSO left out; None if one has no GNU hash
/// table or this object is not found.
fn objects_after(own: usize) -> Option<Vec<Object>> {
    struct Walk {
        own: usize,
        vdso: usize,
        found_own: bool,
        objects: Vec<Object>,
        broken: bool,
    }
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: dl_iterate_phdr passes the `Walk` given below and a valid
        // description of one loaded object, for the call's duration.
        let (w, info) = unsafe { (&mut *data.cast::<Walk>(), &*info) };
        let base = info.dlpi_addr as usize;
        if !w.found_own {
            w.found_own = load_segments(info).any(|seg| seg.contains(&w.own));
        } else if base != w.vdso {
            match Object::of(base, program_headers(info)) {
                Some(o) => w.objects.push(o),
                None => {
                    w.broken = true;
                    return 1;
                }
            }
        }
        0
    }
    // SAFETY: getauxval only reads the auxiliary vector.
    let vdso = unsafe { libc::getauxval(libc::AT_SYSINFO_EHDR) } as usize;
    let mut w = Walk { own, vdso, found_own: false, objects: Vec::new(), broken: false };
    // SAFETY: `each` matches the callback type and only uses `w` while
    // dl_iterate_phdr runs.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut w as *mut Walk).cast()) };
    (w.found_own && !w.broken).then_some(w.objects)
}

/// An address from a dynamic entry: glibc relocates them in place, other
/// loaders may leave them relative to the object's base.
fn absolute(base: usize, p: u64) -> usize {
    let p = p as usize;
    if p < base {
        base.wrapping_add(p)
    } else {
        p
    }
}

#[repr(C)]
struct Dyn {
    tag: i64,
    val: u64,
}

impl Object {
    /// The tables of the object loaded at `base` with these headers.
    fn of(base: usize, phdrs: &[libc::Elf64_Phdr]) -> Option<Object> {
        let dynamic = phdrs.iter().find(|p| p.p_type == libc::PT_DYNAMIC)?;
        let (mut strtab, mut symtab, mut gnu_hash, mut versym) = (0, 0, 0, 0);
        let mut d = base.wrapping_add(dynamic.p_vaddr as usize) as *const Dyn;
        loop {
            // SAFETY: the object's dynamic section, mapped while it is
            // loaded, ends with a DT_NULL entry.
            let e = unsafe { d.read() };
            match e.tag {
                DT_NULL => break,
                DT_STRTAB => strtab = absolute(base, e.val),
                DT_SYMTAB => symtab = absolute(base, e.val),
                DT_GNU_HASH => gnu_hash = absolute(base, e.val),
                DT_VERSYM => versym = absolute(base, e.val),
                _ => {}
            }
            d = d.wrapping_add(1);
        }
        if strtab == 0 || symtab == 0 || gnu_hash == 0 {
            return None;
        }
        // SAFETY: a GNU hash table starts with four 32-bit words.
        let [nbuckets, symoffset, bloom_size, bloom_shift] = unsafe { (gnu_hash as *const [u32; 4]).read() };
        if nbuckets == 0 || bloom_size == 0 {
            return None;
        }
        let bloom = gnu_hash + 16;
        let buckets = bloom + 8 * bloom_size as usize;
        let chain = buckets + 4 * nbuckets as usize;
        let bloom_mask = bloom_size - 1;
        Some(Object {
            base,
            symtab,
            strtab,
            versym,
            nbuckets,
            symoffset,
            bloom_mask,
            bloom_shift,
            bloom,
            buckets,
            chain,
        })
    }

    /// What this object defines as `name` (of GNU hash `h`), by glibc's
    /// rules for dlsym.
    fn answer(&self, name: &[u8], h: u32) -> Answer {
        // The reads below are of the object's hash, symbol and version
        // tables, mapped for the process's life (objects loaded with the
        // program are never unloaded); the indices come from the hash
        // table, whose chains cover the symbol table's defined entries.
        // SAFETY: a bloom word, the index masked to the bloom's size.
        let word: u64 = unsafe { read(self.bloom + 8 * ((h / 64) & self.bloom_mask) as usize) };
        let bits = (1u64 << (h % 64)) | (1u64 << ((h >> self.bloom_shift) % 64));
        if word & bits != bits {
            return Answer::NotHere;
        }
        // SAFETY: a bucket, the index below the bucket count.
        let mut i: u32 = unsafe { read(self.buckets + 4 * (h % self.nbuckets) as usize) };
        if i == 0 || i < self.symoffset {
            return Answer::NotHere;
        }
        // glibc: an unversioned match is taken at once; otherwise the one
        // non-hidden versioned match, if exactly one.
        let (mut versioned, mut versions) = (None, 0);
        loop {
            // SAFETY: the chain entry of symbol `i` (>= symoffset), which
            // exists until a chain's last entry (bit 0) ends the walk.
            let link: u32 = unsafe { read(self.chain + 4 * (i - self.symoffset) as usize) };
            if (link | 1) == (h | 1) {
                // SAFETY: symbol `i`, which the chain says exists.
                let sym: libc::Elf64_Sym =
                    unsafe { read(self.symtab + std::mem::size_of::<libc::Elf64_Sym>() * i as usize) };
                if self.matches(&sym, name) {
                    // SAFETY: the version table has an entry per symbol.
                    let v: u16 = if self.versym == 0 { 0 } else { unsafe { read(self.versym + 2 * i as usize) } };
                    if v & 0x7fff < 2 {
                        return self.value(&sym);
                    }
                    if v & 0x8000 == 0 {
                        versions += 1;
                        versioned.get_or_insert(sym);
                    }
                }
            }
            if link & 1 == 1 {
                break;
            }
            i += 1;
        }
        match versioned {
            Some(sym) if versions == 1 => self.value(&sym),
            _ => Answer::NotHere,
        }
    }

    /// A defined symbol of a matched type named `name`.
    fn matches(&self, sym: &libc::Elf64_Sym, name: &[u8]) -> bool {
        let kind = sym.st_info & 0xf;
        if MATCHED_TYPES & (1 << kind) == 0 || (sym.st_value == 0 && sym.st_shndx != SHN_ABS && kind != STT_TLS) {
            return false;
        }
        // SAFETY: st_name is an offset into the object's string table,
        // whose strings are NUL-terminated.
        let s = unsafe { CStr::from_ptr((self.strtab + sym.st_name as usize) as *const libc::c_char) };
        s.to_bytes() == name
    }

    /// The address `dlsym` gives for `sym`, when it is a plain definition.
    fn value(&self, sym: &libc::Elf64_Sym) -> Answer {
        let kind = sym.st_info & 0xf;
        match sym.st_info >> 4 {
            STB_GLOBAL | STB_WEAK if kind != STT_TLS && kind != STT_GNU_IFUNC && sym.st_shndx != SHN_UNDEF => {
                let base = if sym.st_shndx == SHN_ABS { 0 } else { self.base };
                Answer::Defined(base.wrapping_add(sym.st_value as usize) as *mut c_void)
            }
            // A local symbol is passed over, as glibc does.
            0 => Answer::NotHere,
            _ => Answer::AskTheLoader,
        }
    }
}

/// A `T` at `addr`.
///
/// # Safety
/// `addr` must be valid for reads of a `T`, suitably aligned.
unsafe fn read<T: Copy>(addr: usize) -> T {
    // SAFETY: the caller's promise.
    unsafe { (addr as *const T).read() }
}

/// The GNU hash of a symbol name (the ELF gABI extension's djb2 variant).
fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| h.wrapping_mul(33).wrapping_add(u32::from(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name the C library and the other loaded objects define, with
    /// the answer `dlsym(RTLD_NEXT)` gives from this test program (whose
    /// code plays the library's part): the tables must give the same
    /// address, or send the name back to `dlsym`; never another address.
    #[test]
    fn every_loaded_name_resolves_to_the_address_dlsym_gives() {
        let objects =
            objects_after(every_loaded_name_resolves_to_the_address_dlsym_gives as *const () as usize).unwrap();
        assert!(objects.len() >= 2, "{objects:?}");
        let (mut same, mut deferred) = (0, 0);
        for o in &objects {
            for name in o.names() {
                let want = dlsym_next(&name);
                match find_in(&objects, &name) {
                    Some(p) => {
                        assert_eq!(p, want, "{name:?}");
                        same += 1;
                    }
                    None => deferred += 1,
                }
            }
        }
        // Here 2,699 were resolved and 365 sent back: 63 IFUNC and TLS
        // names, and names that only hidden (old) versions define, which
        // dlsym does not find either.
        assert!(same > 2000 && deferred < same / 5, "{same} resolved, {deferred} sent to dlsym");
    }

    /// Every function the wrappers call is resolved by the tables, to
    /// dlsym's address: none is left to a lookup that may allocate.
    #[test]
    fn every_wrapped_function_is_found_in_the_tables() {
        let objects = objects_after(every_wrapped_function_is_found_in_the_tables as *const () as usize).unwrap();
        for name in crate::real::NAMES {
            let name = CStr::from_bytes_with_nul(name).unwrap();
            let want = dlsym_next(name);
            if want.is_null() {
                continue;
            }
            assert_eq!(find_in(&objects, name), Some(want), "{name:?}");
        }
    }

    #[test]
    fn the_gnu_hash_is_the_gabis() {
        // Values from the GNU hash section's description (and binutils).
        assert_eq!(gnu_hash(b""), 0x0000_1505);
        assert_eq!(gnu_hash(b"printf"), 0x156b_2bb8);
        assert_eq!(gnu_hash(b"exit"), 0x7c96_7e3f);
        assert_eq!(gnu_hash(b"syscall"), 0xbac2_12a0);
    }

    impl Object {
        /// The names this object defines through its hash table.
        fn names(&self) -> Vec<std::ffi::CString> {
            let mut out = Vec::new();
            for b in 0..self.nbuckets {
                // SAFETY: as in `answer`.
                let mut i: u32 = unsafe { read(self.buckets + 4 * b as usize) };
                if i < self.symoffset {
                    continue;
                }
                loop {
                    // SAFETY: as in `answer`.
                    let sym: libc::Elf64_Sym =
                        unsafe { read(self.symtab + std::mem::size_of::<libc::Elf64_Sym>() * i as usize) };
                    // SAFETY: as in `matches`.
                    let s = unsafe { CStr::from_ptr((self.strtab + sym.st_name as usize) as *const libc::c_char) };
                    out.push(s.to_owned());
                    // SAFETY: as in `answer`.
                    let link: u32 = unsafe { read(self.chain + 4 * (i - self.symoffset) as usize) };
                    if link & 1 == 1 {
                        break;
                    }
                    i += 1;
                }
            }
            out
        }
    }
}
