//! The crash-safe log (docs/log-format.md §10): while the program runs, the
//! header, the job record, the name table and every module's records live
//! in one MAP_SHARED file, an uncompressed Darshan log of this process
//! that is complete after every call that returned. A killed job leaves
//! these files; `darshan-merge` turns them into one log.
//!
//! Layout: header (1328 B) | job struct + exe/mount string (4096 B, its
//! end the extension map and the live words) | names (DARSHAN_NAMEMEM) |
//! module records (DARSHAN_MODMEM), page-rounded.
//! The header is kept current: the name region's length grows with each
//! name, a module's region starts where its reservation starts (modules in
//! registration order) and grows by a record as each is created. A module
//! with an id Darshan does not know, and DXT's traces (kept in a layout of
//! ours), are mapped by the extension map instead
//! (darshan_log::ext_map::ExtMap), never by the header.
//!
//! Three rules keep the host safe (issue 9):
//! - **No file before the first record.** At start-up the layout lives in
//!   private zeroed memory; the file is made (mode 0600), filled with what
//!   was written so far and mapped over the same addresses when the first
//!   record or name is about to be created. A process that records
//!   nothing leaves no file and pays for none. The standard streams'
//!   records and names do not make it: they wait in memory for the first
//!   other record, which then waits with them and wants the file; the
//!   wrapper that recorded it makes the file as it ends, holding no lock
//!   of its own, with every lock taken in fork's order, so that no writer
//!   of the waiting memory is inside it while it is copied and mapped
//!   ([`file_wanted`], [`make_wanted_file`]). A process that only touches
//!   its streams (Python's start, `echo`) makes no file, and one killed
//!   then leaves none. An MPI rank wants its file in MPI_Init, record or
//!   not ([`want_file`]): a killed job leaves one for every rank.
//! - **No descriptor held.** The descriptor is closed right after `mmap`,
//!   so the program's fd numbers and RLIMIT_NOFILE budget are its own;
//!   the ones opened for a moment later sit near the top of the limit.
//! - **No SIGBUS.** Every page is given its storage before any record or
//!   name is written into it (zeros written through a descriptor held
//!   for the moment, or MADV_POPULATE_WRITE; both report a full file
//!   system as an error); when that fails the new record is refused and
//!   the module marked partial, with one line on stderr.
//!
//! Time counters hold clock ticks until shutdown; the job metadata says
//! how long a tick is (`ticks=<seconds>`), so a reader can convert.

use std::sync::Mutex;

use darshan_log::header::HEADER_SIZE;
use darshan_log::job::JOB_RECORD_SIZE;
use darshan_log::modules::MAX_MODS;

use darshan_log::crash_safe::{in_map, EXT_MAP_SIZE, JOB_AREA_LEN};
use darshan_log::ext_map::ExtMap;

/// Each module's live sequence word (crate::store::sync, docs/live.md): 8 bytes
/// per module id at the end of the job area, after the job record's
/// exe/mount string (which gives up these 512 bytes in this file only).
pub use darshan_log::crash_safe::LIVE_OFF;
/// Where the name table starts in the file.
pub use darshan_log::crash_safe::NAMES_OFF;

/// Module `id`'s sequence word, when this process has a crash-safe layout.
pub fn live_word(id: usize) -> Option<&'static std::sync::atomic::AtomicU64> {
    FILE.live.get().and_then(|w| w.get(id))
}

/// The last `8 * MAX_MODS` bytes of the job area as atomic words.
#[allow(unsafe_code)]
fn live_words(area: &'static mut [u8]) -> Option<&'static [std::sync::atomic::AtomicU64]> {
    use std::sync::atomic::AtomicU64;
    let p = area.as_mut_ptr();
    if area.len() != 8 * MAX_MODS || !(p as usize).is_multiple_of(std::mem::align_of::<AtomicU64>()) {
        return None;
    }
    // SAFETY: `area` is an exclusively owned, 'static, 8-aligned part of
    // the reserved mapping (checked above), `MAX_MODS` words long; it is
    // given up here and only ever used through these atomics. The mapping
    // is never unmapped while the process runs (a forked child and the
    // crash-safe file's creation put other memory under the same
    // addresses with MAP_FIXED, keeping them valid).
    Some(unsafe { std::slice::from_raw_parts(p.cast::<AtomicU64>(), MAX_MODS) })
}
/// comp_type of an uncompressed (mmap) log.
const COMP_NONE: u8 = 2;
/// Bytes of each area that holds records given storage when the file is
/// made: the first records, and all of HEATMAP's.
const FIRST: usize = 32 << 10;
/// Bytes given when the file is made to an area that expects records but
/// has none yet (STDIO's, for the standard streams): a few records'
/// worth before its first growth. Its 32 KiB of zeros were a quarter of
/// what every process's first I/O wrote (1.4 us a page on ext4 here).
const EARLY: usize = 2 * SLACK;
/// Bytes given storage at a time as records and names grow.
const AHEAD: usize = 64 << 10;
/// Storage is extended when the records come this close to its end.
const SLACK: usize = 8 << 10;
const PAGE: usize = 4096;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Backing {
    /// Private memory; the file is made at the first record.
    Pending,
    /// The file is mapped under the memory.
    File,
    /// The file could not be made: records stay in memory.
    Memory,
}

/// One area of the layout (a module's records, or the names), as file
/// offsets: storage is given up to `given`; the area ends at `end`.
#[derive(Clone, Copy, Default)]
struct Area {
    start: usize,
    given: usize,
    end: usize,
    /// Records are expected here early (a module that makes records at
    /// first use which it used to make at start-up): its first storage
    /// comes with the file, through the same descriptor.
    early: bool,
}

pub struct LogMap {
    backing: Backing,
    header: &'static mut [u8],
    job: &'static mut [u8],
    /// The extension map, between the job record and the live words.
    ext: &'static mut [u8],
    /// Per module, and the names at MAX_MODS.
    areas: [Area; MAX_MODS + 1],
    /// Address of the file's first byte, and the mapping's length.
    pub base: usize,
    pub len: usize,
    pub path: String,
    /// The file made at `path` (owner.rs), once made.
    made: Option<crate::store::owner::Made>,
    /// A full file system was reported (once).
    full_said: bool,
    /// The file was removed (shutdown done, or exec under way) but stays
    /// mapped: new records still get their pages populated, so a failed
    /// exec that keeps recording can never raise SIGBUS. Before the file
    /// was made: none will be (no one would remove it).
    unlinked: bool,
    /// Records may now be created: the first one makes the file. Before
    /// (start-up, a forked child's reset) what is written stays in memory
    /// and goes into the file when it is made.
    armed: bool,
    /// Areas (a bit per slot, the names' at MAX_MODS) written since
    /// arming while the file waited: the standard streams' records and
    /// their names, which do not make the file (see [`room`]), and any
    /// written after them until it is made.
    waiting: u128,
    /// The first record that wants the file while others wait (its slot,
    /// and the file offset its bytes end at): the file is made, with its
    /// area's first storage, by [`make_wanted_file`].
    wanted: Option<(usize, usize)>,
}

/// The process's crash-safe file, one value: the map, and what is read
/// of it without its lock.
struct CrashSafe {
    map: Mutex<Option<LogMap>>,
    /// The mapping's address and length, readable without the lock (a
    /// child forked from a signal handler must drop its parent's file
    /// without waiting for a lock the interrupted code may hold).
    range: [std::sync::atomic::AtomicUsize; 2],
    /// Whether there is a mapping: a process without one (records in
    /// memory) never takes the lock when it creates a record or a name.
    active: std::sync::atomic::AtomicBool,
    /// `LogMap::wanted` is set: read without the lock at the end of
    /// every recorded call.
    wanted: std::sync::atomic::AtomicBool,
    /// The sequence words, once the layout is installed.
    live: std::sync::OnceLock<&'static [std::sync::atomic::AtomicU64]>,
    /// The host's system calls, given at [`install`]: the file's own I/O
    /// and its one-line messages go through them (this piece reaches up
    /// into no runtime state).
    platform: std::sync::OnceLock<&'static dyn crate::store::platform::Platform>,
}

static FILE: CrashSafe = CrashSafe {
    map: Mutex::new(None),
    range: [std::sync::atomic::AtomicUsize::new(0), std::sync::atomic::AtomicUsize::new(0)],
    active: std::sync::atomic::AtomicBool::new(false),
    wanted: std::sync::atomic::AtomicBool::new(false),
    live: std::sync::OnceLock::new(),
    platform: std::sync::OnceLock::new(),
};

fn with<R>(f: impl FnOnce(&mut LogMap) -> R) -> Option<R> {
    if !FILE.active.load(std::sync::atomic::Ordering::Acquire) {
        return None;
    }
    FILE.map.lock().unwrap_or_else(|e| e.into_inner()).as_mut().map(f)
}

/// Run the runtime's own I/O (see [`crate::store::platform::Platform::own_io_begin`]).
fn own_io<R>(f: impl FnOnce() -> R) -> R {
    let p = FILE.platform.get().copied();
    let saved = p.map(|p| p.own_io_begin()).unwrap_or(0);
    let r = f();
    if let Some(p) = p {
        p.own_io_end(saved);
    }
    r
}

fn say(msg: &str) {
    if let Some(p) = FILE.platform.get() {
        p.say(msg);
    }
}

/// Bytes of the file for these limits (page-rounded).
pub fn file_len(name_mem: usize, mod_mem: usize) -> usize {
    (NAMES_OFF + name_mem.next_multiple_of(8) + mod_mem).next_multiple_of(PAGE)
}

/// The reserved memory (see [`crate::store::arena::reserve_mapping`]) split into
/// its parts: (names area, module area). Writes the fixed header fields.
/// The file `path` is made at the first record, through `platform`.
pub fn install(
    mem: &'static mut [u8],
    name_mem: usize,
    path: String,
    platform: &'static dyn crate::store::platform::Platform,
) -> (&'static mut [u8], &'static mut [u8]) {
    let _ = FILE.platform.set(platform);
    let base = mem.as_ptr() as usize;
    let len = mem.len();
    let (header, rest) = mem.split_at_mut(HEADER_SIZE);
    let (job, rest) = rest.split_at_mut(JOB_RECORD_SIZE);
    let (job, live) = job.split_at_mut(LIVE_OFF - HEADER_SIZE);
    let (job, ext) = job.split_at_mut(JOB_AREA_LEN);
    if let Some(w) = live_words(live) {
        let _ = FILE.live.set(w);
    }
    let (names, mods) = rest.split_at_mut(name_mem.next_multiple_of(8));
    write_fixed_header(header);
    let mut areas = [Area::default(); MAX_MODS + 1];
    let names_end = NAMES_OFF + name_mem.next_multiple_of(8);
    areas[MAX_MODS] = Area { start: NAMES_OFF, given: NAMES_OFF, end: names_end, early: false };
    *FILE.map.lock().unwrap_or_else(|e| e.into_inner()) = Some(LogMap {
        backing: Backing::Pending,
        header,
        job,
        ext,
        areas,
        base,
        len,
        path,
        made: None,
        full_said: false,
        unlinked: false,
        armed: false,
        waiting: 0,
        wanted: None,
    });
    FILE.range[0].store(base, std::sync::atomic::Ordering::Relaxed);
    FILE.range[1].store(len, std::sync::atomic::Ordering::Relaxed);
    FILE.active.store(true, std::sync::atomic::Ordering::Release);
    (names, mods)
}

fn write_fixed_header(h: &mut [u8]) {
    h[..4].copy_from_slice(b"3.41");
    h[8..16].copy_from_slice(&darshan_log::header::MAGIC.to_le_bytes());
    h[16] = COMP_NONE;
    put(h, 32, NAMES_OFF as u64);
}

/// Whether this process runs with a crash-safe log (made or to be made).
pub fn reserved() -> bool {
    with(|_| ()).is_some()
}

/// Whether the crash-safe file exists (the final log must then be on disk
/// before the file is removed).
pub fn has_file() -> bool {
    with(|m| m.backing == Backing::File && !m.unlinked).unwrap_or(false)
}

/// `f` of the crash-safe file's path, if it has one, without a copy.
pub fn with_path<R>(f: impl FnOnce(&str) -> R) -> Option<R> {
    with(|m| (m.backing == Backing::File && !m.unlinked).then(|| f(&m.path))).flatten()
}

fn put(h: &mut [u8], off: usize, v: u64) {
    h[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

fn get(h: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(h[off..off + 8].try_into().unwrap_or([0; 8]))
}

/// The bytes of module `id`'s records, as the file says: the extension
/// map's, else the header's.
fn region_len(header: &[u8], ext: &[u8], id: usize) -> u64 {
    ExtMap(ext).len(id).unwrap_or_else(|| get(header, 56 + 16 * id))
}

impl LogMap {
    /// Make the file: what was written so far, and the first pages of
    /// every area, get their storage by plain writes; then the file is
    /// mapped under the memory. Nothing else writes into the mapping
    /// meanwhile: records and names are only created after [`room`],
    /// which waits for this lock.
    fn make_file(&mut self, first: (usize, usize)) {
        // A fixed array: this runs in the wrapper that creates the first
        // record, where nothing may allocate.
        let mut copy = [(0, 0, 0); MAX_MODS + 2];
        copy[0] = (0, NAMES_OFF, NAMES_OFF.next_multiple_of(PAGE));
        let names_used = NAMES_OFF + get(self.header, 40) as usize;
        for (slot, a) in self.areas.iter_mut().enumerate() {
            if a.end == 0 {
                continue;
            }
            let used =
                if slot == MAX_MODS { names_used } else { a.start + region_len(self.header, self.ext, slot) as usize };
            // An area with nothing in it yet gets its storage at its first
            // record (room): most modules of a process never record, and
            // 32 KiB of zeros each cost a short process 0.1 ms. HEATMAP's
            // blocks are written without room(): its heatmaps are taken at
            // start-up (and again in a forked child before its file), so
            // its area is in use here and given whole (9.7 KB < FIRST),
            // MPI-IO's later heatmap included.
            let mut upto = if used > a.start {
                used.max(a.start + FIRST).min(a.end)
            } else if a.early {
                (a.start + EARLY).min(a.end)
            } else {
                a.start
            };
            // The area whose record makes the file gets its first storage
            // now, through the same descriptor: else room() opened the
            // file a second time at once to give it (about 50 us of every
            // process's first I/O).
            if slot == first.0 {
                upto = upto.max((first.1 + SLACK).max(a.start + FIRST)).min(a.end);
            }
            copy[slot + 1] = (a.start, used.saturating_sub(a.start), upto - a.start);
            a.given = upto;
        }
        match own_io(|| crate::store::arena::create_file_under(self.base, self.len, &self.path, &copy)) {
            Ok(made) => {
                self.backing = Backing::File;
                self.made = made;
            }
            Err(e) => {
                self.backing = Backing::Memory;
                say(&format!("{e}; no crash-safe log for this process (records kept in memory)"));
            }
        }
    }

    /// Give storage to area `slot` up to at least `end` (+ slack).
    /// False if the bytes up to `end` have none (file system full).
    fn grow(&mut self, slot: usize, end: usize) -> bool {
        let a = self.areas[slot];
        if end + SLACK <= a.given || a.given >= a.end {
            return end <= a.given;
        }
        let upto = (a.given + AHEAD).max(end + SLACK).min(a.end);
        let file = self.made.filter(|_| !self.unlinked).map(|made| (self.path.as_str(), made));
        match own_io(|| crate::store::arena::populate(self.base, a.given, upto - a.given, file)) {
            Ok(()) => self.areas[slot].given = upto,
            Err(e) if !self.full_said => {
                self.full_said = true;
                say(&format!(
                    "crash-safe log {}: cannot grow it ({e}; file system full?); records not yet made are not kept (log marked partial)",
                    self.path
                ));
            }
            Err(_) => {}
        }
        end <= self.areas[slot].given
    }
}

/// Before bytes of the mapping up to address `end` are written in area
/// `slot` (a module id, or MAX_MODS for the names): make the file if this
/// is the first record, and give the bytes storage. False if they cannot
/// have any: the caller must not write them (and marks itself partial).
/// Memory outside the mapping (no crash-safe file) always has room.
///
/// `may_wait`: a standard stream's record or name, which does not make
/// the file: it is written in memory and goes into the file when the
/// first other record makes it. A Python interpreter's start (fstat of
/// its three streams) and a program that only prints then make no file
/// (0.3-0.5 ms of every such process here). That other record waits too
/// and wants the file: copying the waiting memory into it and mapping it
/// under them must keep out their writers, whose locks this caller may
/// not wait for (a holder may be waiting for this lock); the wrapper that
/// recorded it makes the file as it ends ([`make_wanted_file`]).
pub fn room(slot: usize, end: usize, may_wait: bool) -> bool {
    with(|m| {
        if end < m.base || end > m.base + m.len || slot > MAX_MODS {
            return true;
        }
        if m.backing == Backing::Pending {
            // Before arming, what is written goes into the file when it is
            // made; once the file is gone (removed before an exec that
            // failed, or by the shutdown while another thread still
            // records), none is made: no one would remove it.
            if !m.armed || m.unlinked {
                return true;
            }
            if may_wait || m.waiting != 0 {
                m.waiting |= 1 << slot;
                if !may_wait && m.wanted.is_none() {
                    m.wanted = Some((slot, end - m.base));
                    FILE.wanted.store(true, std::sync::atomic::Ordering::Release);
                }
                return true;
            }
            m.make_file((slot, end - m.base));
        }
        m.backing != Backing::File || m.grow(slot, end - m.base)
    })
    .unwrap_or(true)
}

/// Whether a record waits for the crash-safe file to be made (see
/// [`room`]): one load, at the end of every recorded call.
#[inline(always)]
pub fn file_wanted() -> bool {
    FILE.wanted.load(std::sync::atomic::Ordering::Relaxed)
}

/// The file is wanted now, record or not (an MPI rank in MPI_Init, see
/// `runtime::make_crash_safe_file`): made by the next
/// [`make_wanted_file`], with whatever waits for it. Nothing if it is
/// made already, not to be made, or removed.
pub fn want_file() {
    with(|m| {
        if m.backing == Backing::Pending && m.armed && !m.unlinked && m.wanted.is_none() {
            // An area no module has: none is given storage beyond what
            // it holds.
            m.wanted = Some((usize::MAX, 0));
            FILE.wanted.store(true, std::sync::atomic::Ordering::Release);
        }
    });
}

/// Make the file a record wants, with what waited for it. The caller
/// holds every lock under which the waiting memory is written (every
/// module's and the name lock: the runtime's `with_all_locked`, at the
/// end of a recorded call).
pub fn make_wanted_file() {
    with(|m| {
        if let (Some(first), Backing::Pending, false) = (m.wanted.take(), m.backing, m.unlinked) {
            m.make_file(first);
        }
        m.waiting = 0;
        FILE.wanted.store(false, std::sync::atomic::Ordering::Relaxed);
    });
}

/// Start-up (or a forked child's reset) is over: the next record or name
/// makes the file.
pub fn arm() {
    with(|m| m.armed = true);
}

/// The names area's address range check: room for `bytes` more names
/// (`may_wait`: a standard stream's, see [`room`]).
pub fn names_room(bytes: usize, may_wait: bool) -> bool {
    with(|m| m.base + NAMES_OFF + get(m.header, 40) as usize + bytes).is_none_or(|end| room(MAX_MODS, end, may_wait))
}

/// The job record (struct + exe/mount string, [`darshan_log::Job::encode`])
/// as it stands: its string ends before the extension map and the live
/// words, cut if it must be at a whole mount entry (fitted before the
/// lock is taken: no allocation under it).
pub fn set_job(encoded: &[u8]) {
    let fitted = darshan_log::job::fit(encoded, JOB_AREA_LEN);
    with(|m| {
        let n = fitted.len().min(m.job.len());
        m.job[..n].copy_from_slice(&fitted[..n]);
        m.job[n..].iter_mut().for_each(|b| *b = 0);
    });
}

/// A module reserved `bytes` of records starting at `addr` (untouched).
/// `version`: the layout of its records in the file (Module::mapped_version).
pub fn module_registered(id: usize, addr: usize, bytes: usize, version: u32) {
    with(|m| {
        if id < MAX_MODS && addr >= m.base && addr < m.base + m.len {
            let off = addr - m.base;
            m.areas[id] = Area { start: off, given: off, end: off + bytes, early: false };
            // The map has room for every module in_map admits.
            if in_map(id, version) {
                ExtMap(&mut *m.ext).register(id, off as u64, version);
            } else {
                put(m.header, 48 + 16 * id, off as u64);
                m.header[1072 + 4 * id..1076 + 4 * id].copy_from_slice(&version.to_le_bytes());
            }
            // Registered after the file was made (MPI-IO at MPI_Init): its
            // storage comes with its first record, as every area's.
        }
    });
}

/// Module `id` expects records early (STDIO's standard streams, made at
/// their first use): its area gets its first storage when the file is
/// made, as one in use does, not through a second open at its first
/// record.
pub fn expect_early(id: usize) {
    with(|m| {
        if id < MAX_MODS {
            m.areas[id].early = true;
        }
    });
}

/// A module created a record of `bytes` (after [`room`] said yes).
pub fn record_added(id: usize, bytes: usize) {
    with(|m| {
        if !ExtMap(&mut *m.ext).add_len(id, bytes as u64) && id < MAX_MODS {
            let v = get(m.header, 56 + 16 * id) + bytes as u64;
            put(m.header, 56 + 16 * id, v);
        }
    });
}

pub fn names_len(len: usize) {
    with(|m| put(m.header, 40, len as u64));
}

pub fn partial(flags: u64) {
    with(|m| {
        // Darshan's readers take a partial bit of an id they do not know
        // for a module to read (darshan-parser 3.5.0 then indexes past its
        // table): those bits live in the extension map (DXT's in both).
        let theirs = (1u64 << darshan_log::modules::KNOWN_MODULE_COUNT) - 1;
        put(m.header, 24, flags & theirs);
        ExtMap(&mut *m.ext).set_partial(flags);
    });
}

/// A forked child could not let go of its parent's crash-safe file.
#[derive(Debug, thiserror::Error)]
#[error("cannot detach the parent's crash-safe log; the child is not instrumented")]
pub struct DetachError;

/// A forked child: the parent's file is replaced by private memory under
/// the same addresses (the child never writes its parent's file), the
/// header is written afresh (module regions where they were, empty) and
/// the child's own file `path` is made at its first record. The caller
/// writes the job record again. Err: the child could not let go of the
/// parent's file and must not record.
pub fn fork_child(path: String) -> Result<(), DetachError> {
    with(|m| {
        // Where each module's region starts, kept across the detach, which
        // zeroes the whole mapping: the header's maps and the extension
        // map (lost once, a forked child's file then mapped POSIX_META in
        // its header at offset 0). On the stack: a forked child allocates
        // nothing here.
        let mut saved = [0u8; HEADER_SIZE - 48];
        saved.copy_from_slice(&m.header[48..]);
        let mut ext = [0u8; EXT_MAP_SIZE];
        ext.copy_from_slice(m.ext);
        if m.backing == Backing::File && !crate::store::arena::detach_file(m.base, m.len) {
            m.backing = Backing::Memory;
            return Err(DetachError);
        }
        m.backing = Backing::Pending;
        m.path = path;
        m.made = None;
        m.full_said = false;
        m.unlinked = false;
        m.armed = false;
        m.waiting = 0;
        m.wanted = None;
        FILE.wanted.store(false, std::sync::atomic::Ordering::Relaxed);
        m.header.iter_mut().for_each(|b| *b = 0);
        write_fixed_header(m.header);
        m.header[48..].copy_from_slice(&saved);
        for i in 0..MAX_MODS {
            put(m.header, 56 + 16 * i, 0);
        }
        m.ext.copy_from_slice(&ext);
        ExtMap(&mut *m.ext).clear();
        for a in m.areas.iter_mut() {
            a.given = a.start;
        }
        Ok(())
    })
    .unwrap_or(Ok(()))
}

/// A child forked from a signal handler that interrupted the runtime: it
/// will not record (its state may be mid-update), but it must never write
/// its parent's file. Takes no lock; one system call.
pub fn detach_without_lock() {
    let (base, len) = (
        FILE.range[0].load(std::sync::atomic::Ordering::Relaxed),
        FILE.range[1].load(std::sync::atomic::Ordering::Relaxed),
    );
    if len != 0 {
        let _ = crate::store::arena::detach_file(base, len);
    }
}

/// The program changes its effective user to `uid` by `change` (setuid
/// and kin; true if it did). A crash-safe file made by another user is
/// given to `uid` first, while the process may still give it, and back if
/// the change failed (owner.rs); under the map's lock, so that no other
/// thread makes the file meanwhile. Root (`uid` 0) may remove any file,
/// and a file not made yet is made by the new user: neither is given.
pub fn changing_user(uid: u32, change: impl FnOnce() -> bool) {
    let mut change = Some(change);
    with(|m| {
        let given = if uid != 0 { m.give_file(uid) } else { None };
        let changed = change.take().is_some_and(|c| c());
        if let (Some(owner), false) = (given, changed) {
            m.give_file(owner);
        }
    });
    if let Some(c) = change {
        c();
    }
}

impl LogMap {
    /// The file given to `uid`: the owner it had, if it changed hands.
    fn give_file(&self, uid: u32) -> Option<u32> {
        let made = self.made.filter(|_| self.backing == Backing::File && !self.unlinked)?;
        own_io(|| crate::store::owner::give(&self.path, made, uid)).ok().flatten()
    }
}

/// An exec whose [`remove`] took the file away failed, and the image goes
/// on: a process killed later must still leave its file. What the
/// mapping holds goes into a new file under the same name, mapped under
/// it, as at the first making; a file not made yet is made by the next
/// record, as it was to be. The caller holds every lock under which the
/// mapping is written (the runtime's `with_all_locked`).
pub fn exec_failed() {
    with(|m| {
        if !m.unlinked {
            return;
        }
        m.unlinked = false;
        if m.backing == Backing::File {
            m.backing = Backing::Pending;
            m.make_file((usize::MAX, 0));
            if m.backing == Backing::Memory {
                // Not made (a full file system): the memory is still the
                // removed file's, whose pages get storage one grow at a
                // time; as private memory they would be stored into
                // without it (SIGBUS).
                m.backing = Backing::File;
                m.unlinked = true;
            }
        }
    });
}

/// Shutdown is over and the final log is safe (or the image is replaced
/// by exec): the file goes.
pub fn remove() {
    let p = with(|m| {
        let had = m.backing == Backing::File && !m.unlinked;
        m.unlinked = true;
        had.then(|| m.path.clone())
    });
    if let Some(Some(p)) = p {
        let _ = std::fs::remove_file(p);
    }
}
