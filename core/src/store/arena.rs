//! Record memory: one block of `DARSHAN_MODMEM` bytes from which modules
//! reserve their slices, first come first served, as Darshan does.
//!
//! Records are kept as 64-bit words in the exact on-disk layout (id, rank,
//! counters, fcounters as f64 bits), so the block can later be backed by a
//! MAP_SHARED file (crash-safe logs) and written out without conversion.
//! The block is allocated zeroed, so pages cost memory only once touched.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

pub struct RecordArena {
    free: &'static mut [u64],
    /// Memory set aside at start-up for one module alone (DXT's traces,
    /// outside DARSHAN_MODMEM as in Darshan), by module id.
    aside: Vec<(usize, &'static mut [u64])>,
}

/// Gives the bytes of a module's reservation storage up to an address
/// (`slot`, end address, whether they may wait for the crash-safe file)
/// -> whether they have it: the crash-safe file's `logmap::room`, passed
/// in by the runtime that owns both.
pub type Backer = fn(usize, usize, bool) -> bool;

/// A module's reservation: room for `capacity` records of `rec_words` words.
///
/// Its words may lie in the crash-safe file's mapping, where a page
/// without storage behind it raises SIGBUS in the user's program when
/// touched (a full disk). So the slice hands out only its backed prefix:
/// it derefs to the words that have storage, and [`Slice::back`] is the
/// one way to extend that prefix. Storage before write holds by
/// construction, not by a call each record kind must remember.
pub struct Slice {
    words: &'static mut [u64],
    /// Words `..backed` have storage.
    backed: usize,
    /// Where storage comes from (None: ordinary memory, backed throughout).
    backer: Option<Backer>,
    slot: usize,
    pub rec_words: usize,
    pub capacity: usize,
}

impl Slice {
    pub const fn empty(rec_words: usize) -> Slice {
        Slice { words: &mut [], backed: 0, backer: None, slot: 0, rec_words, capacity: 0 }
    }

    /// A reservation of `words` with storage throughout (ordinary memory).
    pub fn new(words: &'static mut [u64], rec_words: usize, capacity: usize) -> Slice {
        Slice { backed: words.len(), words, backer: None, slot: 0, rec_words, capacity }
    }

    /// Storage for the words comes from `backer` (for area `slot`), as
    /// they are backed: none of them is handed out before.
    pub fn backed_by(mut self, backer: Backer, slot: usize) -> Slice {
        (self.backed, self.backer, self.slot) = (0, Some(backer), slot);
        self
    }

    /// Words reserved, backed or not (what the module may grow into).
    pub fn reserved_len(&self) -> usize {
        self.words.len()
    }

    /// Address and byte length of the whole reservation (the crash-safe
    /// file's table of module areas).
    pub fn span(&self) -> (usize, usize) {
        (self.words.as_ptr() as usize, self.words.len() * 8)
    }

    /// Give words `..end` storage; false (nothing changes) if they are
    /// past the reservation or cannot have it.
    pub fn back(&mut self, end: usize) -> bool {
        self.back_for(end, false)
    }

    /// [`Slice::back`] for a record that may wait for the crash-safe file
    /// (a standard stream's: logmap::room).
    pub fn back_waiting(&mut self, end: usize) -> bool {
        self.back_for(end, true)
    }

    fn back_for(&mut self, end: usize, may_wait: bool) -> bool {
        if end <= self.backed {
            return true;
        }
        let addr = self.words.as_ptr() as usize + end * 8;
        if end > self.words.len() || !self.backer.is_some_and(|b| b(self.slot, addr, may_wait)) {
            return false;
        }
        self.backed = end;
        true
    }

    /// The storage behind the words is gone (a forked child: the crash-safe
    /// file is the parent's, the child's is made at its first record): from
    /// now on every word must be backed again before it is handed out.
    /// Ordinary memory keeps its storage.
    pub fn forget_backing(&mut self) {
        if self.backer.is_some() {
            self.backed = 0;
        }
    }

    /// The backed words for the rest of the process (a module that lays
    /// out its memory itself after backing all it will use).
    pub fn into_backed(self) -> &'static mut [u64] {
        let n = self.backed;
        &mut self.words[..n]
    }

    #[inline]
    pub fn record(&self, i: usize) -> &[u64] {
        &self[i * self.rec_words..(i + 1) * self.rec_words]
    }
    #[inline]
    pub fn record_mut(&mut self, i: usize) -> &mut [u64] {
        let n = self.rec_words;
        &mut self[i * n..(i + 1) * n]
    }
}

/// The backed words.
impl std::ops::Deref for Slice {
    type Target = [u64];
    #[inline]
    fn deref(&self) -> &[u64] {
        &self.words[..self.backed]
    }
}

impl std::ops::DerefMut for Slice {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u64] {
        &mut self.words[..self.backed]
    }
}

/// A zeroed block of `n` words that lives as long as the process, or None
/// if it cannot be had (an absurd DARSHAN_MODMEM must not abort the
/// program, which `vec![0; n]` would do).
pub(crate) fn zeroed_words(n: usize) -> Option<&'static mut [u64]> {
    ZeroedWords::new(n).map(ZeroedWords::leak)
}

/// Blocks of at least this many bytes are mapped, not allocated.
const MAP_MIN_BYTES: usize = 4096;

/// A zeroed block of words whose pages cost nothing until touched. Blocks
/// of a page or more are fresh anonymous mappings: the allocator would
/// take a 16-64 KiB index from its heap and clear it with memset, a page
/// fault per page (1.4 us here) whether or not the index is ever used,
/// which was a fifth of a short process's start-up.
pub struct ZeroedWords {
    words: &'static mut [u64],
    mapped: bool,
}

impl ZeroedWords {
    #[allow(unsafe_code)]
    pub fn new(n: usize) -> Option<ZeroedWords> {
        if n == 0 {
            return Some(ZeroedWords { words: &mut [], mapped: false });
        }
        let bytes = n.checked_mul(8)?;
        if bytes >= MAP_MIN_BYTES {
            return ZeroedWords::in_pages(n);
        }
        let layout = std::alloc::Layout::array::<u64>(n).ok()?;
        // SAFETY: the layout has a non-zero size. alloc_zeroed returns null
        // or a block of that layout whose bytes are all zero.
        let p = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u64>();
        if p.is_null() {
            return None;
        }
        // SAFETY: `p` is non-null, aligned for u64 and valid for `n` words,
        // and no other reference to the block exists.
        Some(ZeroedWords { words: unsafe { std::slice::from_raw_parts_mut(p, n) }, mapped: false })
    }

    /// `n` zeroed words in pages of their own (the pool's or a fresh
    /// mapping), never the heap, whatever their size: what a wrapper takes
    /// at a first use may not call the allocator (docs/interposition.md
    /// rule 5). Page-aligned, so whole words; Drop unmaps them.
    pub fn in_pages(n: usize) -> Option<ZeroedWords> {
        if n == 0 {
            return Some(ZeroedWords::empty());
        }
        let bytes = n.checked_mul(8)?;
        let block = POOL.take(bytes).or_else(|| reserve_mapping(bytes))?;
        Some(ZeroedWords { words: as_words(block)?, mapped: true })
    }

    /// No words (an index before its memory is had).
    pub const fn empty() -> ZeroedWords {
        ZeroedWords { words: &mut [], mapped: false }
    }

    /// Every word zero again. A mapped block's pages are given back
    /// (MADV_DONTNEED: they read as zeros and cost nothing until used
    /// again) instead of written: a forked child clearing its parent's
    /// 512 KiB index wrote every page of it, 128 page faults before it
    /// did anything.
    #[allow(unsafe_code)]
    pub fn zero(&mut self) {
        if self.mapped {
            let bytes = (self.words.len() * 8).next_multiple_of(page_size());
            // SAFETY: a mapped block is page-aligned private anonymous
            // memory of its own pages (the pool's pages are rounded up per
            // block; a mapping of its own is whole pages): the range holds
            // nothing but this block, and we have it mutably.
            let done = unsafe { libc::madvise(self.words.as_mut_ptr().cast(), bytes, libc::MADV_DONTNEED) } == 0;
            if done {
                return;
            }
        }
        self.words.fill(0);
    }

    /// Keep the block for the rest of the process.
    pub fn leak(self) -> &'static mut [u64] {
        let mut me = std::mem::ManuallyDrop::new(self);
        std::mem::take(&mut me.words)
    }
}

impl std::ops::Deref for ZeroedWords {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        self.words
    }
}

impl std::ops::DerefMut for ZeroedWords {
    fn deref_mut(&mut self) -> &mut [u64] {
        self.words
    }
}

impl Drop for ZeroedWords {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        let words = std::mem::take(&mut self.words);
        if words.is_empty() {
            return;
        }
        let (p, n) = (words.as_mut_ptr(), words.len());
        if self.mapped {
            // SAFETY: `p`/`n * 8` is exactly the mapping made in new(); the
            // borrow was taken out of self, so nothing refers to it.
            unsafe { libc::munmap(p.cast(), n * 8) };
        } else if let Ok(layout) = std::alloc::Layout::array::<u64>(n) {
            // SAFETY: allocated in new() with this very layout.
            unsafe { std::alloc::dealloc(p.cast(), layout) };
        }
    }
}

/// Bytes of fresh zeroed pages set aside at the first mapped block, from
/// which later blocks are carved: a process starts about twenty-five
/// (each module's index, handle table and common values: 1.9 MiB in all
/// with the default limits), and each of its own took an mmap (1.4 us here) and a
/// mapping to tear down at exit. Blocks that do not fit in what is left
/// get their own. Sized for start-up, not more: untouched pages cost no
/// memory, but they are address space all the same, which `mlockall`
/// makes resident and `ulimit -v` or a strict overcommit policy count
/// against the program (a pool of 16 MiB left 13 of them unused).
/// Unmapping the unused tail after start-up instead cost 4-9 us (15 in
/// start-up's own figure, darshan_cost_startup_us).
const POOL_BYTES: usize = 2 << 20;

/// What is left of the pool: its next free address and its end (0 until
/// the first block; see [`NONE`] and [`MAPPING`]).
struct MapPool {
    next: AtomicUsize,
    end: AtomicUsize,
}

static POOL: MapPool = MapPool { next: AtomicUsize::new(0), end: AtomicUsize::new(0) };

impl MapPool {
    /// `len` bytes (rounded up to whole pages) of the pool, or None when
    /// they do not fit (or no pool could be had). A block is never handed
    /// out twice, so its owner may unmap exactly its pages.
    fn take(&self, len: usize) -> Option<&'static mut [u8]> {
        self.take_paged(len, page_size())
    }

    /// [`MapPool::take`] with pages of `page` bytes. Whole pages of the
    /// kernel's, not 4 KiB ones: on a kernel with 64 KiB pages (aarch64's
    /// on RHEL and NVIDIA Grace systems) munmap and madvise act on whole
    /// pages, and a block's owner giving back its 4 KiB would have taken
    /// its neighbours' pages with it (tables gone: SIGSEGV in the program
    /// at the next record) or cleared them.
    fn take_paged(&self, len: usize, page: usize) -> Option<&'static mut [u8]> {
        let pages = len.checked_add(page - 1)? & !(page - 1);
        if pages > POOL_BYTES / 2 {
            return None;
        }
        let end = self.mapped()?;
        let mut at = self.next.load(Ordering::Relaxed);
        loop {
            let to = at.checked_add(pages).filter(|&to| to <= end)?;
            match self.next.compare_exchange_weak(at, to, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => at = now,
            }
        }
        #[allow(unsafe_code)]
        // SAFETY: `at..at+len` lies in the pool's mapping (at + pages <=
        // end), is zeroed and writable, and the compare-exchange gave it to
        // this caller alone.
        Some(unsafe { std::slice::from_raw_parts_mut(at as *mut u8, len) })
    }

    /// The pool's end address, mapping it on first use; None if it
    /// cannot be had (then every block maps its own), or while another
    /// thread maps it.
    fn mapped(&self) -> Option<usize> {
        match self.end.load(Ordering::Acquire) {
            0 => {}
            NONE | MAPPING => return None,
            end => return Some(end),
        }
        if self.end.compare_exchange(0, MAPPING, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return None;
        }
        let Some(m) = reserve_mapping(POOL_BYTES) else {
            self.end.store(NONE, Ordering::Release);
            return None;
        };
        let base = m.as_mut_ptr() as usize;
        self.next.store(base, Ordering::Relaxed);
        // Release: whoever sees the end sees the start stored before it.
        self.end.store(base + POOL_BYTES, Ordering::Release);
        Some(base + POOL_BYTES)
    }
}

/// `MapPool::end` before the pool is mapped: none to be had, or being
/// mapped by another thread.
const NONE: usize = 1;
const MAPPING: usize = 2;

/// The kernel's page size: 4 KiB on x86-64; 4, 16 or 64 KiB on aarch64.
#[allow(unsafe_code)]
pub fn page_size() -> usize {
    static SIZE: AtomicUsize = AtomicUsize::new(0);
    match SIZE.load(Ordering::Relaxed) {
        0 => {
            // SAFETY: getauxval reads the auxiliary vector; no preconditions.
            let p = unsafe { libc::getauxval(libc::AT_PAGESZ) } as usize;
            let p = if p.is_power_of_two() && p >= 4096 { p } else { 4096 };
            SIZE.store(p, Ordering::Relaxed);
            p
        }
        p => p,
    }
}

/// `len` bytes of fresh private zeroed memory, whose pages cost nothing
/// until touched: the crash-safe log's address space (until the first
/// record, when [`create_file_under`] puts the file under it; never
/// unmapped) and [`ZeroedWords`]' blocks. None if it cannot be had.
#[allow(unsafe_code)]
pub fn reserve_mapping(len: usize) -> Option<&'static mut [u8]> {
    // SAFETY: a fresh anonymous mapping; the kernel picks the address.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    // Accounted memory (no MAP_NORESERVE): an absurd size is refused here.
    if p == libc::MAP_FAILED {
        return None;
    }
    // SAFETY: `p` maps `len` zeroed bytes, readable and writable; no other
    // reference to it exists. It is unmapped only by its one owner
    // (ZeroedWords' Drop); the crash-safe log's is never unmapped (later
    // mappings replace pages in place).
    Some(unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) })
}

/// `n` zeroed atomic words in pages of their own that live as long as the
/// process: a table read without a lock and taken at its first use,
/// inside a wrapper (never the heap). None if they cannot be had.
#[allow(unsafe_code)]
pub fn zeroed_atomics(n: usize) -> Option<&'static [AtomicU32]> {
    let block = reserve_mapping(n.checked_mul(4)?)?;
    // SAFETY: the block is a fresh page-aligned mapping (aligned for
    // AtomicU32) of 4 * n zeroed bytes (a zero u32 is an AtomicU32 of 0),
    // never unmapped; the one reference to it is given up here for shared
    // ones.
    Some(unsafe { std::slice::from_raw_parts(block.as_mut_ptr().cast::<AtomicU32>(), n) })
}

/// The crash-safe file could not be put under the record memory: which
/// step failed (create, size, write, map), on which file, and the system's
/// error with its kind (a full disk is not a permission problem).
#[derive(Debug, thiserror::Error)]
#[error("cannot {step} {path}: {source}")]
pub struct MapFileError {
    pub step: &'static str,
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

/// Put a new file `path` (mode 0600, exclusive) of `len` bytes under the
/// mapping at `base`, after writing into it, for each `copy` range
/// (offset, bytes used, length), the used bytes of the mapping (what the
/// runtime wrote before the file existed) and zeros for the rest (the
/// next pages records will touch, which so get their blocks now). The
/// first range is the header's, written last. The
/// descriptor is closed before returning: the runtime holds none while
/// the program runs (docs/interposition.md rule 9). Returns what the file
/// is (device and inode), for a later change of owner (owner.rs).
/// The caller guarantees that nothing writes into the mapping meanwhile.
#[allow(unsafe_code)]
pub fn create_file_under(
    base: usize,
    len: usize,
    path: &str,
    copy: &[(usize, usize, usize)],
) -> Result<Option<crate::store::owner::Made>, MapFileError> {
    use std::os::unix::fs::OpenOptionsExt;
    // Sized past `ulimit -f`, the file would bring the program SIGXFSZ.
    crate::store::fsize::fits(len as u64).map_err(|e| MapFileError { step: "size", path: path.into(), source: e })?;
    let f = crate::store::nofile::with_descriptor(|| {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_CLOEXEC)
            .open(path)
    })
    .map(crate::store::nofile::out_of_the_way)
    .map_err(|e| MapFileError { step: "create", path: path.into(), source: e })?;
    let fail = |step: &'static str| {
        move |source| {
            let _ = std::fs::remove_file(path);
            MapFileError { step, path: path.into(), source }
        }
    };
    // 0600 whatever the umask (0777 made it 0000, unreadable by its owner).
    f.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600)).map_err(fail("mode"))?;
    f.set_len(len as u64).map_err(fail("size"))?;
    fill_header_last(&f, base, len, copy).map_err(fail("write"))?;
    use std::os::unix::io::AsRawFd;
    // SAFETY: `base..base+len` is our own mapping; MAP_FIXED replaces it in
    // place with the file, which holds the same bytes, so every slice into
    // it stays valid.
    let p = unsafe {
        libc::mmap(
            base as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            f.as_raw_fd(),
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(fail("map")(std::io::Error::last_os_error()));
    }
    Ok(crate::store::owner::Made::of(&f))
}

/// Write `copy`'s ranges of the mapping at `base` (`len` bytes) into the
/// new file `f`, the first range (the header's) last. The file has its
/// name already, and a kill can come between any two writes
/// (exit_race.c): the header, whose maps say what the rest holds, must
/// come after the rest. Written first, it left a killed process's file
/// claiming names and records that were still zeros, which every reader
/// refused. Zeros first (the header's page of them lies under the
/// names), then every area's bytes, then the header's.
fn fill_header_last(f: &std::fs::File, base: usize, len: usize, copy: &[(usize, usize, usize)]) -> std::io::Result<()> {
    let clip = |&(off, used, n): &(usize, usize, usize)| {
        let n = n.min(len.saturating_sub(off));
        (off, used.min(n), n)
    };
    for (off, used, n) in copy.iter().map(clip).filter(|c| c.2 > c.1) {
        // From a static page of zeros: reading the memory's untouched
        // pages would fault each one in only to copy zeros.
        zeros_at(f, off + used, n - used)?;
    }
    let Some((header, areas)) = copy.split_first() else { return Ok(()) };
    for (off, used, _) in areas.iter().map(clip).filter(|c| c.1 > 0) {
        write_memory_at(f, base, off, used)?;
    }
    // The header's first 4 KiB, its maps, last and alone: a kill cuts a
    // write between the kernel's pages (4 KiB or more), never inside one.
    const MAPS: usize = 4096;
    let (off, used, _) = clip(header);
    if used > MAPS {
        write_memory_at(f, base, off + MAPS, used - MAPS)?;
    }
    write_memory_at(f, base, off, used.min(MAPS))
}

/// Bytes `off..off+n` of the mapping at `base` into the file at `off`.
#[allow(unsafe_code)]
fn write_memory_at(f: &std::fs::File, base: usize, off: usize, n: usize) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    // SAFETY: the caller's `base..base+len` is our mapping (reserve_mapping)
    // and `off..off+n` lies inside it (clipped to len); nothing writes to
    // it meanwhile.
    let bytes = unsafe { std::slice::from_raw_parts((base + off) as *const u8, n) };
    f.write_all_at(bytes, off as u64)
}

/// In a forked child: private zeroed memory again under the mapping at
/// `base`, so that nothing the child does reaches its parent's file.
#[allow(unsafe_code)]
pub fn detach_file(base: usize, len: usize) -> bool {
    // SAFETY: `base..base+len` is our own mapping; MAP_FIXED replaces it in
    // place (slices into it stay valid and now see zeros); the child is
    // single-threaded here.
    let p = unsafe {
        libc::mmap(
            base as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    p != libc::MAP_FAILED
}

use crate::store::owner::Made;

/// Give the file bytes `off..off+n` of the mapping at `base` their storage
/// now, so that a later store there can never raise SIGBUS (a full file
/// system answers here, with an error). The range must never have been
/// written. While the file has its name (`file`: the path, and the file
/// it must still name), zeros are written
/// into the range through a descriptor opened for the moment: on ext4
/// that is a quarter of the cost of MADV_POPULATE_WRITE (25 against 100
/// us per 64 KiB here; the same on tmpfs), and it held a lock other
/// threads waited on. Otherwise (the file removed, its path naming
/// another one, no descriptor to be had, or the program lowered its file size limit below the range since
/// the file was made: a write there would bring it SIGXFSZ, a store into
/// the mapping does not) MADV_POPULATE_WRITE (Linux 5.14).
pub fn populate(base: usize, off: usize, n: usize, file: Option<(&str, Made)>) -> Result<(), std::io::Error> {
    if let Some((path, made)) = file.filter(|_| crate::store::fsize::fits((off + n) as u64).is_ok()) {
        match write_zeros(path, made, off, n) {
            Ok(()) => return Ok(()),
            // The disk is full: populating would say the same.
            Err(e) if e.raw_os_error() == Some(libc::ENOSPC) || e.raw_os_error() == Some(libc::EDQUOT) => {
                return Err(e)
            }
            Err(_) => {}
        }
    }
    populate_pages(base, off, n)
}

/// Zeros written through the path, if it still names the file `made`
/// (opened without following a link or waiting: the directory may be one
/// another user writes into, who could have put a FIFO there, which held
/// the program for ever, or another file, which got the zeros).
fn write_zeros(path: &str, made: Made, off: usize, n: usize) -> Result<(), std::io::Error> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map(crate::store::nofile::out_of_the_way)?;
    if Made::of(&f) != Some(made) {
        return Err(std::io::Error::from_raw_os_error(libc::ESTALE));
    }
    zeros_at(&f, off, n)
}

/// Storage for `off..off+n` of `f` by writing zeros, which also puts the
/// pages in the page cache, dirty: a store into the mapping there costs a
/// minor fault. Not `fallocate` in general: its unwritten extents made
/// every first store into such a page an ext4 journal transaction (the
/// first I/O of a process took 2.2 ms instead of 0.5). On tmpfs (where
/// Darshan's documentation puts crash-safe files, /dev/shm, and many
/// diskless nodes' /tmp) `fallocate` puts zeroed pages in the page cache
/// with no copy: the file made in about 35 us less.
fn zeros_at(f: &std::fs::File, off: usize, n: usize) -> Result<(), std::io::Error> {
    use std::os::unix::fs::FileExt;
    if on_tmpfs(f) {
        match allocate(f, off, n) {
            Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => {}
            r => return r,
        }
    }
    static ZEROS: [u8; 64 << 10] = [0; 64 << 10];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(ZEROS.len());
        f.write_all_at(&ZEROS[..k], (off + done) as u64)?;
        done += k;
    }
    Ok(())
}

/// Whether `f`, the crash-safe file, lies on tmpfs: asked of the file
/// system once per process (its first record gives six areas their
/// storage, each asked again before; a forked child's file goes in the
/// same directory). 0: not asked yet, 1: no, 2: tmpfs.
#[allow(unsafe_code)]
fn on_tmpfs(f: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    static KNOWN: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
    match KNOWN.load(Ordering::Relaxed) {
        1 => return false,
        2 => return true,
        _ => {}
    }
    let mut st = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `st` is a writable statfs the call fills when it returns 0.
    if unsafe { libc::fstatfs(f.as_raw_fd(), st.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: fstatfs returned 0, so it filled `st`.
    let tmpfs = unsafe { st.assume_init() }.f_type == libc::TMPFS_MAGIC;
    KNOWN.store(if tmpfs { 2 } else { 1 }, Ordering::Relaxed);
    tmpfs
}

/// `fallocate` of `off..off+n` (pages allocated and zeroed, the size kept).
#[allow(unsafe_code)]
fn allocate(f: &std::fs::File, off: usize, n: usize) -> Result<(), std::io::Error> {
    use std::os::fd::AsRawFd;
    if n == 0 {
        return Ok(());
    }
    // SAFETY: a plain system call on a descriptor we own.
    let r = unsafe { libc::fallocate(f.as_raw_fd(), 0, off as libc::off_t, n as libc::off_t) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[allow(unsafe_code)]
fn populate_pages(base: usize, off: usize, n: usize) -> Result<(), std::io::Error> {
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    // madvise wants whole pages; the pages around the range belong to the
    // mapping too, and populating changes none of their bytes.
    let page = page_size();
    let first = (base + off) & !(page - 1);
    let last = (base + off + n).next_multiple_of(page);
    loop {
        // SAFETY: the pages lie inside our shared file mapping (which is
        // page-aligned and page-rounded); the advice only faults them in
        // for writing, changing no byte.
        let r = unsafe { libc::madvise(first as *mut libc::c_void, last - first, MADV_POPULATE_WRITE) };
        if r == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.raw_os_error() != Some(libc::EINTR) {
            return Err(err);
        }
    }
}

/// The words of a byte block that starts 8-byte aligned (a mapping's
/// module area); None if it does not.
#[allow(unsafe_code)]
pub fn as_words(bytes: &'static mut [u8]) -> Option<&'static mut [u64]> {
    // SAFETY: every bit pattern is a valid u64; align_to_mut only
    // reinterprets the aligned middle part.
    let (head, words, _) = unsafe { bytes.align_to_mut::<u64>() };
    head.is_empty().then_some(words)
}

impl RecordArena {
    /// Records in memory someone else provides (the crash-safe mapping).
    pub fn from_words(words: &'static mut [u64]) -> RecordArena {
        RecordArena { free: words, aside: Vec::new() }
    }

    /// A zeroed block of `bytes` (rounded down to whole words), or None if
    /// it cannot be had. Never freed: records live as long as the process.
    pub fn new(bytes: usize) -> Option<RecordArena> {
        Some(RecordArena { free: zeroed_words(bytes / 8)?, aside: Vec::new() })
    }

    /// Take `bytes` (whole words) off the end of the block for `module`
    /// alone; what the other modules reserve can then never reach it.
    pub fn set_aside(&mut self, module: usize, bytes: usize) {
        let n = (bytes / 8).min(self.free.len());
        let block = std::mem::take(&mut self.free);
        let at = block.len() - n;
        let (rest, mine) = block.split_at_mut(at);
        self.free = rest;
        self.aside.push((module, mine));
    }

    /// `module`'s reservation: all its set-aside memory if it has some
    /// (capacity 0: it holds no named records, the module lays it out
    /// itself), else as [`RecordArena::reserve`].
    pub fn reserve_for(&mut self, module: usize, rec_words: usize, want: usize) -> Slice {
        match self.aside.iter().position(|(m, _)| *m == module) {
            Some(k) => Slice::new(self.aside.swap_remove(k).1, rec_words, 0),
            None => self.reserve(rec_words, want),
        }
    }

    pub fn remaining_bytes(&self) -> usize {
        self.free.len() * 8
    }

    /// Reserve up to `want` records of `rec_words` words; fewer if less
    /// memory remains (possibly zero).
    pub fn reserve(&mut self, rec_words: usize, want: usize) -> Slice {
        if rec_words == 0 {
            return Slice::empty(rec_words);
        }
        let n = want.min(self.free.len() / rec_words);
        let block = std::mem::take(&mut self.free);
        let (mine, rest) = block.split_at_mut(n * rec_words);
        self.free = rest;
        Slice::new(mine, rec_words, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_first_come_first_served_and_bounded() {
        // black_box: an unused allocation may be optimised away as if it succeeded.
        assert!(std::hint::black_box(RecordArena::new(1 << 60)).is_none(), "an absurd size is refused, not fatal");
        let mut a = RecordArena::new(10_000).unwrap();
        let p = a.reserve(88, 10); // 7040 bytes
        assert_eq!(p.capacity, 10);
        let s = a.reserve(31, 1024); // 2960 bytes left -> 11 records
        assert_eq!(s.capacity, 2960 / 248);
        let none = a.reserve(88, 5);
        assert_eq!(none.capacity, 0);
    }

    /// Whether the page at `addr` is mapped (mincore fails with ENOMEM on
    /// an unmapped one).
    #[allow(unsafe_code)]
    fn mapped_at(addr: usize) -> bool {
        let mut v = 0u8;
        // SAFETY: mincore only reads the page tables and writes one byte
        // into `v` for the one page asked about.
        unsafe { libc::mincore((addr & !(PAGE - 1)) as *mut libc::c_void, PAGE, &mut v) == 0 }
    }

    const PAGE: usize = 4096;

    #[test]
    fn a_block_given_back_on_a_64_kib_page_kernel_took_its_neighbours_pages_with_it() {
        static P: MapPool = MapPool { next: AtomicUsize::new(0), end: AtomicUsize::new(0) };
        const BIG: usize = 64 << 10;
        let a = P.take_paged(8000, BIG).unwrap().as_ptr() as usize;
        let b = P.take_paged(100, BIG).unwrap().as_ptr() as usize;
        let c = P.take_paged(BIG + 1, BIG).unwrap().as_ptr() as usize;
        // The pool's own mapping is page-aligned for this kernel (4 KiB
        // here): the blocks lie whole pages of 64 KiB apart from its start.
        let base = a;
        assert_eq!((b - base, c - base), (BIG, 2 * BIG), "each block starts a page of its own");
        assert_eq!(P.next.load(Ordering::Relaxed) - base, 4 * BIG, "the last one took two");
    }

    #[test]
    fn zeroed_blocks_are_carved_from_one_mapping_and_each_gives_back_only_its_own_pages() {
        let mut a = ZeroedWords::new(1024).unwrap(); // 8 KiB
        let b = ZeroedWords::new(1000).unwrap(); // 8,000 bytes: two pages
        let (pa, pb) = (a.as_ptr() as usize, b.as_ptr() as usize);
        assert!(a.iter().chain(b.iter()).all(|&w| w == 0), "zeroed");
        assert_eq!((pa % PAGE, pb % PAGE), (0, 0), "page-aligned");
        assert!(pa + 8192 <= pb || pb + 8192 <= pa, "no two blocks overlap: {pa:#x} {pb:#x}");
        let end = POOL.end.load(Ordering::Acquire);
        assert!(end > MAPPING && (end - POOL_BYTES..end).contains(&pa), "from the pool");
        a[1023] = 7;
        drop(b);
        assert!(!mapped_at(pb) && !mapped_at(pb + PAGE), "the dropped block's pages are gone");
        assert_eq!(a[1023], 7, "and no other block's");
        let c = ZeroedWords::new(512).unwrap();
        assert_ne!(c.as_ptr() as usize, pb, "a dropped block's pages are never handed out again");
        // One larger than half the pool gets a mapping of its own.
        let big = ZeroedWords::new((POOL_BYTES / 2 + PAGE) / 8).unwrap();
        let pbig = big.as_ptr() as usize;
        assert!(!(end - POOL_BYTES..end).contains(&pbig), "outside the pool");
        drop(big);
        assert!(!mapped_at(pbig));
    }

    fn refuse_past_100_words(_slot: usize, end: usize, _may_wait: bool) -> bool {
        STARTS.with(|s| end <= s.get() + 100 * 8)
    }
    thread_local!(static STARTS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });

    #[test]
    fn a_slice_hands_out_only_words_its_backer_gave_storage() {
        let mut a = RecordArena::new(8 * 1000).unwrap();
        let s = a.reserve(10, 50);
        STARTS.with(|c| c.set(s.span().0));
        let mut s = s.backed_by(refuse_past_100_words, 3);
        assert_eq!((s.len(), s.reserved_len()), (0, 500), "nothing is handed out before it is backed");
        assert!(s.back(20));
        assert_eq!(s.len(), 20);
        s.record_mut(1)[0] = 7;
        assert!(!s.back(101), "the backer refused: nothing changes");
        assert_eq!(s.len(), 20);
        assert!(s.back(100));
        assert!(!s.back(501), "past the reservation");
        assert_eq!(s.record(1)[0], 7);
        // A forked child: nothing is backed until its backer says so again.
        s.forget_backing();
        assert_eq!(s.len(), 0);
        assert!(!s.back(101) && s.back(20) && s.len() == 20);
        let plain = a.reserve(10, 5);
        assert_eq!(plain.len(), 50, "ordinary memory is backed throughout");
    }
}
