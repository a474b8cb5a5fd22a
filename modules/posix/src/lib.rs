//! The POSIX module: one record per file (cleaned absolute path) with
//! every counter of the POSIX record version 4, computed as Darshan 3.5.0
//! does (docs/counter-rules.md §3). The `ffi` crate calls the `on_*` functions after
//! each real call returns; times are clock ticks since start-up (turned
//! into seconds at shutdown).
#![forbid(unsafe_code)]

mod aio;
mod record;
pub mod reduce;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::OnceLock;

use darshan_core::arena::Slice;
use darshan_core::common::{CommonPool, Tick};
use darshan_core::paths::NameFilter;
use darshan_core::records::{RecordSet, Records};
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{Env, FinalizeCtx, Module, ModuleSpec};
use darshan_core::{LockedState, ModuleState};
use darshan_log::counters::posix::typed as c;
use darshan_log::modules::POSIX as ID;

pub use record::Rt;

/// File descriptors below this are found in a table in the library's
/// .bss (fd -> record); higher ones in a second one (HIGH_FDS).
pub const MAX_FDS: usize = 1 << 16;
/// Descriptors from MAX_FDS up to Linux's default ceiling (fs.nr_open,
/// 2^20), in a table taken in pages at the first such descriptor a record
/// is mapped to; higher ones are passed through unrecorded.
const HIGH_FDS: usize = (1 << 20) - MAX_FDS;
/// Set in an fd's value when `fclose` closed it, which it does without
/// close(): every lookup takes the descriptor as untracked (we forget it
/// there on purpose: docs/runtime.md), but `aio_return` of a request
/// submitted while it was open still finds the file, as Darshan's table,
/// which keeps the descriptor until a close(), does. A later open, dup or
/// close() of the number clears it.
const CLOSED_BY_FCLOSE: u32 = 1 << 31;

pub struct State {
    set: RecordSet<Rt>,
    /// aio requests submitted and not yet returned.
    aio: aio::Aio,
    /// Spill blocks of the records' common-value tables.
    pool: CommonPool,
}

impl std::ops::Deref for State {
    type Target = RecordSet<Rt>;
    fn deref(&self) -> &RecordSet<Rt> {
        &self.set
    }
}

impl std::ops::DerefMut for State {
    fn deref_mut(&mut self) -> &mut RecordSet<Rt> {
        &mut self.set
    }
}

/// On a cache line of its own start: which lines a call's lock and counts
/// fall on must not depend on the size of the statics the linker puts
/// before it (an unrelated static moved this one by 24 bytes and pwrite
/// cost 4.6 ns more).
#[repr(align(64))]
pub struct Posix {
    set: Lock<State>,
    /// The exclusion rules, tested before the lock is taken.
    names: NameFilter,
    /// fd -> record index + 1 (0: not tracked). Read without the lock so
    /// that I/O on untracked descriptors (sockets, pipes) costs nothing.
    fds: &'static [AtomicU32; MAX_FDS],
    /// One past the highest fd ever tracked: a forked child clears the
    /// table up to it, not all 256 KiB (64 page faults in every child).
    fds_top: AtomicUsize,
    /// fd - MAX_FDS -> record index + 1, for descriptors past the first
    /// table (a program that raised its limit); set once, under the lock.
    high: OnceLock<&'static [AtomicU32]>,
    /// One past the highest index of `high` ever set (fds_top's reason).
    high_top: AtomicUsize,
}

/// The fd table on its own: all zeros, so it lies in .bss (256 KiB of
/// zero pages made on first touch) instead of making `POSIX`, whose other
/// fields are not zero, a 256 KiB part of the library's file-backed .data.
static FDS: [AtomicU32; MAX_FDS] = [const { AtomicU32::new(0) }; MAX_FDS];

pub static POSIX: Posix = Posix::new(&FDS);

impl Posix {
    /// A module with no records, not yet attached, keeping its descriptor
    /// table in `fds`: the runtime's static, or a test's own.
    pub const fn new(fds: &'static [AtomicU32; MAX_FDS]) -> Posix {
        Posix {
            set: Lock::new(State { set: RecordSet::new(ID), aio: aio::Aio::new(), pool: CommonPool::new() }),
            names: NameFilter::new(ID),
            fds,
            fds_top: AtomicUsize::new(0),
            high: OnceLock::new(),
            high_top: AtomicUsize::new(0),
        }
    }
}

/// A read or write of record `i`: its counters, its DXT trace, the heatmap.
#[allow(clippy::too_many_arguments)]
#[inline]
fn counted(
    st: &mut State,
    i: usize,
    write: bool,
    bytes: i64,
    offset: Option<i64>,
    aligned: bool,
    tm1: Tick,
    tm2: Tick,
) {
    let (w, rt) = st.set.both(i);
    let at = record::access(w, rt, &mut st.pool, write, bytes, offset, aligned, tm1, tm2);
    darshan_dxt::DXT_POSIX.trace(&mut rt.dxt, w[0], write, at, bytes, tm1, tm2);
    st.set.heat_add(write, bytes, tm1, tm2);
}

/// What an open-like call did to a record.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum OpenKind {
    /// open/creat/openat/mkstemp: counts OPENS and resets the offsets.
    Open,
    /// dup/dup2/dup3/fcntl(F_DUPFD): OPENS and DUPS, no reset.
    Dup,
    /// fileno on a tracked stream: OPENS and FILENOS, no reset.
    Fileno,
}

impl Posix {
    fn lock(&self) -> LockGuard<'_, State> {
        self.set.lock()
    }

    /// The record index of a tracked fd, without locking.
    #[inline]
    pub fn tracked(&self, fd: i32) -> Option<usize> {
        let v = self.fd_value(fd)?;
        // One comparison: 0 (untracked) wraps past it, and so does a
        // value marked CLOSED_BY_FCLOSE.
        (v.wrapping_sub(1) < CLOSED_BY_FCLOSE - 1).then(|| v as usize - 1)
    }

    #[inline]
    fn fd_value(&self, fd: i32) -> Option<u32> {
        let f = usize::try_from(fd).ok()?;
        Some(match self.fds.get(f) {
            Some(slot) => slot.load(Ordering::Relaxed),
            None => self.high_slot(f)?.load(Ordering::Relaxed),
        })
    }

    /// close() of a descriptor we do not track: a mark CLOSED_BY_FCLOSE
    /// goes with it, as Darshan's close drops its entry.
    #[inline]
    pub fn closed_untracked(&self, fd: i32) {
        if self.fd_value(fd).is_some_and(|v| v != 0) {
            self.map_fd(fd, None);
        }
    }

    /// `fclose` is closing `fd` (without close()): the descriptor is
    /// forgotten, but kept marked with its record for the aio requests
    /// submitted on it before (see [`CLOSED_BY_FCLOSE`]).
    pub fn closed_by_fclose(&self, fd: i32) {
        if let Some(i) = self.tracked(fd) {
            let _held = self.lock();
            self.map_value(fd, (i as u32 + 1) | CLOSED_BY_FCLOSE);
        }
    }

    #[cold]
    fn high_slot(&self, f: usize) -> Option<&AtomicU32> {
        self.high.get()?.get(f - MAX_FDS)
    }

    /// Mapping to a record (`Some`) only with the lock held: the high
    /// table is made once, under it.
    fn map_fd(&self, fd: i32, idx: Option<usize>) {
        self.map_value(fd, idx.map(|i| i as u32 + 1).unwrap_or(0));
    }

    fn map_value(&self, fd: i32, v: u32) {
        let Some(f) = usize::try_from(fd).ok() else { return };
        if f >= MAX_FDS {
            return self.map_high_fd(f, v);
        }
        // A plain load first: the top rarely moves.
        if v != 0 && f >= self.fds_top.load(Ordering::Relaxed) {
            self.fds_top.fetch_max(f + 1, Ordering::Relaxed);
        }
        self.fds[f].store(v, Ordering::Relaxed);
    }

    #[cold]
    fn map_high_fd(&self, f: usize, v: u32) {
        if f - MAX_FDS >= HIGH_FDS || (v == 0 && self.high.get().is_none()) {
            return;
        }
        if self.high.get().is_none() {
            if let Some(t) = darshan_core::arena::zeroed_atomics(HIGH_FDS) {
                let _ = self.high.set(t);
            }
        }
        if let Some(slot) = self.high_slot(f) {
            self.high_top.fetch_max(f - MAX_FDS + 1, Ordering::Relaxed);
            slot.store(v, Ordering::Relaxed);
        }
    }

    /// The record id behind a tracked fd (fdopen, openat).
    pub fn id_of_fd(&self, fd: i32) -> Option<u64> {
        let i = self.tracked(fd)?;
        Some(self.lock().record(i)[0])
    }

    /// open family, on success: `name` is the cleaned path.
    pub fn on_open(&self, fd: i32, name: &[u8], mode: i64, tm1: Tick, tm2: Tick) {
        if self.names.refuses(name) {
            return;
        }
        self.open_id(fd, darshan_log::record_id(name), name, OpenKind::Open, mode, tm1, tm2);
    }

    /// A new fd for the record `id` if it already exists (fileno's common
    /// case, which then needs no name); false if there is no such record.
    pub fn reopen(&self, fd: i32, id: u64, kind: OpenKind, tm1: Tick, tm2: Tick) -> bool {
        let mut set = self.lock();
        let Some(i) = set.find(id).filter(|&i| set.live(i)) else { return false };
        let (w, rt) = set.both(i);
        record::open(w, rt, kind, 0, tm1, tm2);
        self.map_fd(fd, Some(i));
        true
    }

    /// A new fd for a record named `name` (fileno of a stream whose path
    /// POSIX has not seen, or open by id).
    #[allow(clippy::too_many_arguments)]
    pub fn open_id(&self, fd: i32, id: u64, name: &[u8], kind: OpenKind, mode: i64, tm1: Tick, tm2: Tick) {
        let Some((mut st, i)) = self.locked_record(id, name) else { return };
        let (w, rt) = st.set.both(i);
        record::open(w, rt, kind, mode, tm1, tm2);
        self.map_fd(fd, Some(i));
    }

    /// The module locked, with the record `id` named `name`, made and set
    /// up if new. The first record on a mount needs the mount's block size
    /// (FILE_ALIGNMENT), which is asked of the file system with the lock
    /// released (Env::alignment_of), then the record is looked up again.
    fn locked_record(&self, id: u64, name: &[u8]) -> Option<(LockGuard<'_, State>, usize)> {
        let mut st = self.lock();
        match st.record_for(id, name) {
            Ok(i) => Some((st, i?)),
            Err(env) => {
                drop(st);
                env.alignment_of(name);
                let mut st = self.lock();
                let i = st.record_for(id, name).ok()??;
                Some((st, i))
            }
        }
    }

    /// The block size of `name`'s mount asked now, with the lock released
    /// (at most once per mount: `Env::alignment_of`).
    fn ask_block_size(&self, name: &[u8]) {
        let env = self.lock().set.env().copied();
        if let Some(env) = env {
            env.alignment_of(name);
        }
    }

    /// dup/dup2/dup3/fcntl(F_DUPFD): `newfd` refers to `oldfd`'s record.
    pub fn on_dup(&self, oldfd: i32, newfd: i32, tm1: Tick, tm2: Tick) {
        let Some(i) = self.tracked(oldfd) else {
            // dup2 onto a tracked fd closes it: forget the mapping.
            self.map_fd(newfd, None);
            return;
        };
        let mut set = self.lock();
        if !set.live(i) {
            return;
        }
        let (w, rt) = set.both(i);
        record::open(w, rt, OpenKind::Dup, 0, tm1, tm2);
        self.map_fd(newfd, Some(i));
    }

    pub fn on_read(&self, fd: i32, bytes: i64, offset: Option<i64>, aligned: bool, tm1: Tick, tm2: Tick) {
        let Some(i) = self.tracked(fd) else { return };
        self.access(i, false, bytes, offset, aligned, tm1, tm2);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn access(&self, i: usize, write: bool, bytes: i64, offset: Option<i64>, aligned: bool, tm1: Tick, tm2: Tick) {
        let mut guard = self.lock();
        if guard.set.live(i) {
            counted(&mut guard, i, write, bytes, offset, aligned, tm1, tm2);
        }
    }

    pub fn on_write(&self, fd: i32, bytes: i64, offset: Option<i64>, aligned: bool, tm1: Tick, tm2: Tick) {
        let Some(i) = self.tracked(fd) else { return };
        self.access(i, true, bytes, offset, aligned, tm1, tm2);
    }

    pub fn on_seek(&self, fd: i32, new_offset: i64, tm1: Tick, tm2: Tick) {
        self.with_fd(fd, |w, rt| {
            rt.offset = new_offset;
            darshan_core::common::add(w, c::word(c::SEEKS), 1);
            record::meta_time(w, rt, tm1, tm2);
        });
    }

    pub fn on_sync(&self, fd: i32, data_only: bool, tm1: Tick, tm2: Tick) {
        self.with_fd(fd, |w, rt| {
            darshan_core::common::add(w, c::word(if data_only { c::FDSYNCS } else { c::FSYNCS }), 1);
            let wt = c::fword(c::F_WRITE_TIME);
            darshan_core::common::timer_inc_no_overlap(w, wt, tm1, tm2, &mut rt.t.write);
        });
    }

    pub fn on_mmap(&self, fd: i32) {
        self.with_fd(fd, |w, _| record::mmap(w));
    }

    /// stat family on a tracked fd (fstat, fstatat with AT_EMPTY_PATH).
    pub fn on_stat_fd(&self, fd: i32, tm1: Tick, tm2: Tick) {
        self.with_fd(fd, |w, rt| record::stat(w, rt, tm1, tm2));
    }

    /// stat family by path, on a regular file: creates the record.
    pub fn on_stat_path(&self, name: &[u8], tm1: Tick, tm2: Tick) {
        if self.names.refuses(name) {
            return;
        }
        let Some((mut st, i)) = self.locked_record(darshan_log::record_id(name), name) else { return };
        let (w, rt) = st.set.both(i);
        record::stat(w, rt, tm1, tm2);
    }

    /// Forget `fd` before the real close, so that a concurrent open that
    /// gets the same number is not lost. Returns the record to close.
    pub fn take_fd(&self, fd: i32) -> Option<usize> {
        let i = self.tracked(fd)?;
        self.map_fd(fd, None);
        Some(i)
    }

    pub fn on_closed(&self, i: usize, tm1: Tick, tm2: Tick) {
        let mut set = self.lock();
        if set.live(i) {
            let (w, rt) = set.both(i);
            record::close(w, rt, tm1, tm2);
        }
    }

    /// rename(old, new) succeeded; both names cleaned.
    pub fn on_rename(&self, old: &[u8], new: &[u8], tm1: Tick, tm2: Tick) {
        let old_id = darshan_log::record_id(old);
        if self.names.excluded(old) {
            return;
        }
        // The target's record is made in the locked section below: its
        // mount's block size is asked before it, unlocked.
        self.ask_block_size(new);
        let mut set = self.lock();
        let Some(o) = set.find(old_id) else { return };
        {
            let (w, rt) = set.both(o);
            darshan_core::common::add(w, c::word(c::RENAME_SOURCES), 1);
            record::meta_time(w, rt, tm1, tm2);
        }
        if self.names.refuses(new) {
            return;
        }
        let new_id = darshan_log::record_id(new);
        let Some(n) = set.record_for(new_id, new).ok().flatten() else { return };
        let w = set.words(n);
        darshan_core::common::add(w, c::word(c::RENAME_TARGETS), 1);
        if w[c::word(c::RENAMED_FROM)] == 0 {
            w[c::word(c::RENAMED_FROM)] = old_id;
        }
    }

    /// An aio request was queued on `fd`: remember its submission time.
    /// The table grows outside the lock (its pages are a system call).
    pub fn on_aio_submit(&self, fd: i32, key: usize, write: bool, tm1: Tick) {
        let Some(i) = self.tracked(fd) else { return };
        let want = {
            let mut st = self.lock();
            if !st.live(i) || st.aio.insert(key, i, write, tm1) {
                return;
            }
            st.aio.wants()
        };
        let Some(bigger) = want.and_then(aio::Aio::words_for) else { return };
        let spare = {
            let mut st = self.lock();
            let spare = st.aio.grow(bigger);
            if st.live(i) {
                st.aio.insert(key, i, write, tm1);
            }
            spare
        };
        drop(spare);
    }

    /// aio_return: record the request as a read or write at `offset`, if
    /// it was submitted on the record `fd` names now (Darshan looks in
    /// that record's list).
    #[allow(clippy::too_many_arguments)]
    pub fn on_aio_return(&self, fd: i32, key: usize, bytes: i64, offset: i64, aligned: bool, tm2: Tick) {
        // A descriptor fclose closed is still the file's here, as in
        // Darshan (whose table keeps it): the request was submitted on it.
        let fclosed = self.fd_value(fd).filter(|v| v & CLOSED_BY_FCLOSE != 0);
        let Some(i) = self.tracked(fd).or(fclosed.map(|v| (v & !CLOSED_BY_FCLOSE) as usize - 1)) else { return };
        let mut st = self.lock();
        if !st.live(i) || key == 0 {
            return;
        }
        let Some((tm1, write)) = st.aio.take(key, i) else { return };
        if bytes >= 0 {
            counted(&mut st, i, write, bytes, Some(offset), aligned, tm1, tm2);
        }
    }

    fn with_fd(&self, fd: i32, f: impl FnOnce(&mut [u64], &mut Rt)) {
        let Some(i) = self.tracked(fd) else { return };
        let mut set = self.lock();
        if set.live(i) {
            let (w, rt) = set.both(i);
            f(w, rt);
        }
    }
}

impl State {
    /// The record for `id`, created named `name` with its alignments if
    /// new. Err: it is new, on a mount whose block size has not been asked
    /// yet; the caller asks (`Env::alignment_of`) without the lock, then
    /// calls again. The record is not made until then.
    fn record_for(&mut self, id: u64, name: &[u8]) -> Result<Option<usize>, Env> {
        if let Some(i) = self.set.find(id) {
            return Ok(self.set.live(i).then_some(i));
        }
        let Some(env) = self.set.env().copied() else { return Ok(None) };
        let file_align = env.known_alignment_of(name).ok_or(env)?;
        let Some(i) = self.set.find_or_create(id, name) else { return Ok(None) };
        record::init_new(&mut self.set, i, env.config.mem_align, file_align);
        Ok(Some(i))
    }
}

/// Every fcounter but the byte variance holds clock ticks until shutdown.
const SPEC: ModuleSpec = ModuleSpec::new(ID, c::RECORD_WORDS)
    .ticks(c::FCOUNTERS_AT..c::fword(c::F_VARIANCE_RANK_BYTES))
    .reduced_by(&reduce::RULES);

impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
}

impl Module for Posix {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.set)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    fn attach(&self, slice: Slice, env: &Env) {
        let mut st = self.lock();
        st.pool = CommonPool::with_capacity(2 * slice.capacity);
        self.names.set(env.config, env.ledger);
        st.set.attach(slice, env);
    }

    fn finalize(&self, ctx: &FinalizeCtx) {
        let mut guard = self.lock();
        let st = &mut *guard;
        let (from, to) = SPEC.tick_words;
        st.set.finalize(ctx, from..to);
        // DXT's triggers look at this rank's own counters, before any
        // reduction (darshan-core.c applies them first).
        let set = &st.set;
        darshan_dxt::apply_triggers(&|id| {
            let w = set.record(set.find(id)?);
            let n = |k: c::Counter| w[c::word(k)] as i64;
            let small = [c::SIZE_READ_0_100, c::SIZE_READ_100_1K, c::SIZE_READ_1K_10K]
                .into_iter()
                .chain([c::SIZE_WRITE_0_100, c::SIZE_WRITE_100_1K, c::SIZE_WRITE_1K_10K])
                .map(n)
                .sum();
            Some((n(c::READS) + n(c::WRITES), small, n(c::FILE_NOT_ALIGNED)))
        });
    }

    fn fork_child(&self) {
        for slot in &self.fds[..self.fds_top.load(Ordering::Relaxed).min(MAX_FDS)] {
            slot.store(0, Ordering::Relaxed);
        }
        let high_top = self.high_top.load(Ordering::Relaxed);
        for slot in self.high.get().into_iter().flat_map(|t| &t[..high_top.min(t.len())]) {
            slot.store(0, Ordering::Relaxed);
        }
        let mut st = self.lock();
        st.set.clear();
        st.pool.clear();
        st.aio.clear();
    }
}
