//! The POSIX_META module (ours, id 63): what a job does to the namespace
//! and to files' attributes and mappings, which Darshan does not record —
//! unlink, rename, mkdir, rmdir, directory listing, truncate, fallocate,
//! chmod, chown, access, link, symlink, readlink, utimes, extended
//! attributes, and file-backed mmap/msync/munmap. One record per path
//! (record id = Darshan's hash of the cleaned path, so it joins the POSIX
//! record of the same file; a directory's record is named by the
//! directory), bounded by MAX_RECORDS, partial when full, at counter cost.
//!
//! Only successful calls are counted (as Darshan counts opens and stats).
//! Times are clock ticks until shutdown: F_TIME adds each call's duration
//! without counting overlapping calls twice (Darshan's META_TIME rule),
//! F_MAX_TIME is the slowest call, F_START/END_TIMESTAMP the first start
//! and the last end. docs/posix-meta.md has the counters and their rules.
#![forbid(unsafe_code)]

pub mod reduce;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicUsize, Ordering};

use darshan_core::common::{add, stamp, timer_inc_no_overlap, NoOverlap, Tick};
use darshan_core::handles::HandleTable;
use darshan_core::records::{RecordSet, Records};
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{Env, Module, ModuleSpec};
use darshan_core::{LockedState, ModuleState};
use darshan_log::counters::posix_meta::typed as c;
use darshan_log::modules::POSIX_META as ID;

pub use c::Counter;

/// Directory streams and mappings followed at once (DIR* and mapping
/// addresses -> record); more than this go uncounted in readdir, msync
/// and munmap (the module is marked partial).
const HANDLE_SLOTS: usize = 4096;

#[derive(Default)]
pub struct Rt {
    time: NoOverlap,
}

impl darshan_core::records::RecordRt for Rt {
    fn timers(&self, f: &mut dyn FnMut(usize, &NoOverlap)) {
        f(c::fword(c::F_TIME), &self.time)
    }
}

pub struct State {
    set: RecordSet<Rt>,
    /// Open directory streams (DIR* -> record).
    dirs: HandleTable,
    /// File-backed mappings (start address -> record).
    maps: HandleTable,
}

pub struct PosixMeta {
    /// Whether the module records (attached with room): off, the wrappers
    /// pass every call straight through at the cost of this load.
    on: std::sync::atomic::AtomicBool,
    st: Lock<State>,
    /// File-backed mappings live: munmap of anything else (malloc's
    /// arenas, anonymous memory) skips the lock while there are none.
    live_maps: AtomicUsize,
    /// Directory streams followed (inherited ones too): readdir of any
    /// other stream (a Python start-up lists its library directories, 572
    /// readdirs, none followed) skips the clock and the lock while there
    /// are none. Set under the lock whenever the table changes.
    dirs_followed: std::sync::atomic::AtomicBool,
}

pub static POSIX_META: PosixMeta = PosixMeta::new();

impl Default for PosixMeta {
    fn default() -> PosixMeta {
        PosixMeta::new()
    }
}

impl PosixMeta {
    /// A module with no records, not yet attached: the runtime's static,
    /// or a test's own.
    pub const fn new() -> PosixMeta {
        PosixMeta {
            on: std::sync::atomic::AtomicBool::new(false),
            st: Lock::new(State { set: RecordSet::new(ID), dirs: HandleTable::new(), maps: HandleTable::new() }),
            live_maps: AtomicUsize::new(0),
            dirs_followed: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

/// What a mapping is, for its counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mapping {
    pub addr: usize,
    pub len: u64,
    /// MAP_SHARED with PROT_WRITE: what is written can reach the file.
    pub shared_write: bool,
}

impl State {
    /// The record for `name`, made if new; None when the name is left out
    /// by the configuration or the module has no room.
    fn record(&mut self, name: &[u8]) -> Option<usize> {
        self.set.find_or_create(darshan_log::record_id(name), name)
    }

    /// Count `n` of `k` on record `i` and the call's time.
    fn count(&mut self, i: usize, k: Counter, n: i64, tm1: Tick, tm2: Tick) {
        let (w, rt) = self.set.both(i);
        add(w, c::word(k), n);
        timed(w, rt, tm1, tm2);
    }
}

/// A call from `tm1` to `tm2`: its time, the slowest, first and last.
fn timed(w: &mut [u64], rt: &mut Rt, tm1: Tick, tm2: Tick) {
    timer_inc_no_overlap(w, c::fword(c::F_TIME), tm1, tm2, &mut rt.time);
    if (w[c::fword(c::F_MAX_TIME)] as i64) < tm2 - tm1 {
        w[c::fword(c::F_MAX_TIME)] = (tm2 - tm1) as u64;
    }
    stamp(w, c::fword(c::F_START_TIMESTAMP), c::fword(c::F_END_TIMESTAMP), tm1, tm2);
}

impl PosixMeta {
    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// A successful call of kind `k` on the path `name` (cleaned,
    /// absolute): unlink, mkdir, rmdir, truncate, fallocate, chmod,
    /// chown, access, link (the new name), symlink (the link), readlink,
    /// utimes, xattr get/set.
    pub fn on_path(&self, k: Counter, name: &[u8], tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        if let Some(i) = st.record(name) {
            st.count(i, k, 1, tm1, tm2);
        }
    }

    /// rename(old, new) succeeded: counted on both paths, the call's time
    /// on each.
    pub fn on_rename(&self, old: &[u8], new: &[u8], tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        if let Some(i) = st.record(old) {
            st.count(i, c::RENAMES_FROM, 1, tm1, tm2);
        }
        if let Some(i) = st.record(new) {
            st.count(i, c::RENAMES_TO, 1, tm1, tm2);
        }
    }

    /// opendir/fdopendir of the directory `name` returned the stream `dir`.
    pub fn on_opendir(&self, dir: usize, name: &[u8], tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        if let Some(i) = st.record(name) {
            st.count(i, c::OPENDIRS, 1, tm1, tm2);
            st.dirs.open(dir as u64, i, &st.set);
        }
        self.note_dirs(st);
    }

    /// Whether any directory stream is followed (readdir's fast test).
    #[inline]
    pub fn dirs_followed(&self) -> bool {
        self.dirs_followed.load(Ordering::Relaxed)
    }

    /// After a change to the stream table, under the lock.
    fn note_dirs(&self, st: &State) {
        self.dirs_followed.store(!st.dirs.is_empty(), Ordering::Relaxed);
    }

    /// readdir on `dir` (whatever it returned: `entry` is whether it
    /// returned one; the call that finds the end counts as a call).
    /// Returns false for a stream this forked process inherited from its
    /// parent and has not named yet: the caller then names it
    /// ([`on_inherited_readdir`](Self::on_inherited_readdir)).
    pub fn on_readdir(&self, dir: usize, entry: bool, tm1: Tick, tm2: Tick) -> bool {
        let mut st = self.lock();
        let Some(i) = st.dirs.record(dir as u64, &st.set) else { return !st.dirs.inherited(dir as u64) };
        st.count(i, c::READDIRS, 1, tm1, tm2);
        if entry {
            add(st.set.words(i), c::word(c::DIR_ENTRIES), 1);
        }
        true
    }

    /// readdir on a stream opened before this process was forked, named
    /// `name` (from its descriptor): from now on it is the child's own,
    /// counted under the directory's record (no opendir: the child made
    /// none).
    pub fn on_inherited_readdir(&self, dir: usize, name: &[u8], entry: bool, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        if !st.dirs.inherited(dir as u64) {
            return;
        }
        match st.record(name) {
            Some(i) => {
                st.dirs.open(dir as u64, i, &st.set);
                st.count(i, c::READDIRS, 1, tm1, tm2);
                if entry {
                    add(st.set.words(i), c::word(c::DIR_ENTRIES), 1);
                }
            }
            // Excluded, or no room: not followed from now on.
            None => st.dirs.remove(dir as u64),
        }
        self.note_dirs(st);
    }

    /// closedir(dir): the stream is no longer followed.
    pub fn on_closedir(&self, dir: usize) {
        let mut st = self.lock();
        st.dirs.remove(dir as u64);
        self.note_dirs(&st);
    }

    /// A file-backed mapping of `name` was made.
    pub fn on_mmap(&self, name: &[u8], m: Mapping, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.record(name) else { return };
        st.count(i, c::MMAPS, 1, tm1, tm2);
        let w = st.set.words(i);
        add(w, c::word(c::MMAP_BYTES), m.len as i64);
        if m.shared_write {
            add(w, c::word(c::MMAP_SHARED_WRITE_BYTES), m.len as i64);
        }
        // Counted live only once followed: a mapping the full table could
        // not take would keep munmap on the slow path for good.
        let new = st.maps.get(m.addr as u64).is_none();
        if !st.maps.insert(m.addr as u64, i) {
            st.set.mark_partial();
        } else if new {
            self.live_maps.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Whether the module records at all (the wrappers' first test).
    #[inline]
    pub fn on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    /// Whether any file-backed mapping is followed (munmap's fast test).
    #[inline]
    pub fn maps_live(&self) -> bool {
        self.live_maps.load(Ordering::Relaxed) > 0
    }

    /// msync on the mapping starting at `addr`.
    pub fn on_msync(&self, addr: usize, tm1: Tick, tm2: Tick) {
        let mut st = self.lock();
        if let Some(i) = st.maps.record(addr as u64, &st.set) {
            st.count(i, c::MSYNCS, 1, tm1, tm2);
        }
    }

    /// munmap of the mapping starting at `addr` (a mapping unmapped from
    /// another address, or in pieces, is not followed).
    pub fn on_munmap(&self, addr: usize, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let Some(i) = st.maps.get(addr as u64) else { return };
        st.maps.remove(addr as u64);
        self.live_maps.fetch_sub(1, Ordering::Relaxed);
        if st.set.live(i) {
            st.count(i, c::MUNMAPS, 1, tm1, tm2);
        }
    }
}

/// Every fcounter holds ticks until shutdown; shared records combine by
/// `reduce::RULES`.
const SPEC: ModuleSpec =
    ModuleSpec::new(ID, c::RECORD_WORDS).ticks(c::FCOUNTERS_AT..c::RECORD_WORDS).reduced_by(&reduce::RULES);

impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
}

impl Module for PosixMeta {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    /// The records, and tables for the streams and mappings it follows.
    fn attach(&self, slice: darshan_core::arena::Slice, env: &Env) {
        let mut st = self.lock();
        st.dirs = HandleTable::for_records(slice.capacity, HANDLE_SLOTS);
        st.maps = HandleTable::for_records(slice.capacity, HANDLE_SLOTS);
        self.live_maps.store(0, Ordering::Relaxed);
        self.note_dirs(&st);
        self.on.store(slice.capacity > 0, Ordering::Relaxed);
        st.set.attach(slice, env);
    }

    /// A forked child: no records or mappings of its parent's (the
    /// child's mappings are its own copies; their munmaps are not
    /// followed); the parent's directory streams are kept as inherited,
    /// so that the child's reads of one are counted as its own.
    fn fork_child(&self) {
        let mut st = self.lock();
        st.set.clear();
        st.dirs.mark_inherited();
        st.maps.clear();
        self.live_maps.store(0, Ordering::Relaxed);
        self.note_dirs(&st);
    }
}
