//! DXT_POSIX and DXT_MPIIO: every read and write of a traced file as a
//! segment (offset, length, start, end[, thread id]), one record per file
//! and rank, as Darshan 3.5.0's darshan-dxt.c keeps them (docs/counter-rules.md §5).
//!
//! Off unless asked for (`DARSHAN_MOD_ENABLE=DXT_POSIX,DXT_MPIIO`,
//! `MOD_ENABLE`, `DXT_ENABLE_IO_TRACE`). The POSIX and MPI-IO modules call
//! [`Dxt::trace`] after counting a read or write, with a [`Handle`] kept
//! in their record: a file DXT does not trace (module off, name excluded
//! with `NAME_EXCLUDE ... DXT_POSIX`, memory gone) is known as such after
//! its first call and costs one comparison from then on.
//!
//! Memory is Darshan's: MAX_RECORDS (2,048 by default) × 1 KiB per module,
//! outside DARSHAN_MODMEM, charged 104 bytes per file and 32 (40 with
//! thread ids) per segment; a file's write and read buffers start at 64
//! segments and double, the last growth taking what is left; when nothing
//! is left the module is partial and further segments are dropped. The
//! traces are chunks appended to the module's reservation
//! (`darshan_log::dxt_mapped`), so they live in the crash-safe file like
//! every other record and grow without allocating.
//!
//! At shutdown the triggers (`DARSHAN_DXT_SMALL_IO_TRIGGER`,
//! `..._UNALIGNED_IO_TRIGGER`) drop the traces of files whose POSIX
//! counters fall below them ([`apply_triggers`], called by POSIX's
//! finalize), and each record is written in the log's layout: header,
//! then every write, then every read.
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicBool, Ordering};

use darshan_core::arena::Slice;
use darshan_core::common::{at_c_resolution, Tick};
use darshan_core::id_index::IdIndex;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{Env, FinalizeCtx, LongRecord, Module, ModuleSpec, Run};
use darshan_core::{LockedState, ModuleState};
use darshan_log::dxt_mapped as dm;
use darshan_log::dxt_mapped_read as dmr;
use darshan_log::modules::{write_version, DXT_IO_URING as URING_ID, DXT_MPIIO as MPIIO_ID, DXT_POSIX as POSIX_ID};

/// What a POSIX, MPI-IO or io_uring record knows of its trace: 0 not yet
/// asked, [`NOT_TRACED`], else the trace's word offset + 1 (below 2^30),
/// with [`WRITES_FULL`] or [`READS_FULL`] set once that direction can
/// take no more segments. The budget never comes back, so such a call
/// then costs one comparison, as an untraced file's does, not the lock
/// (30 ns a call for every call after a trace outgrew its memory).
pub type Handle = u32;
pub const NOT_TRACED: Handle = u32::MAX;
const WRITES_FULL: Handle = 1 << 31;
const READS_FULL: Handle = 1 << 30;
const OFFSET_PART: Handle = READS_FULL - 1;

/// Darshan's charge for a file's trace record (sizeof(dxt_file_record)).
const FILE_BYTES: usize = 104;
/// Segments a file's write or read buffer starts with (IO_TRACE_BUF_SIZE).
const FIRST_SEGMENTS: usize = 64;
/// Nominal record size for the reservation (DXT_DEF_RECORD_SIZE).
const NOMINAL_WORDS: usize = 128;
/// The log's record header: id, rank, shared_record, hostname, counts.
const HEAD_WORDS: usize = 13;

struct State {
    /// The reservation; its backed prefix covers `..used`.
    words: Slice,
    used: usize,
    /// Bytes of the budget left (Darshan's accounting).
    avail: usize,
    budget: usize,
    /// 4, or 5 with thread ids.
    seg_words: usize,
    /// Record id -> record chunk offset.
    index: IdIndex,
    rank: i64,
    host: [u64; 8],
    frozen: bool,
    secs_per_tick: f64,
    /// Ids whose traces the triggers dropped (sorted).
    dropped: Vec<u64>,
    /// What the runtime gave at attach (None before: nothing traced).
    env: Option<Env>,
}

pub struct Dxt {
    id: usize,
    /// DXT_MPIIO is registered at MPI_Init only.
    spec: ModuleSpec,
    /// DXT_ENABLE_THREAD_IDS as configured at attach (read at shutdown
    /// for every record's length, without the lock).
    thread_ids: AtomicBool,
    st: Lock<State>,
}

impl Dxt {
    /// An empty, unattached instance for module `id` (DXT_POSIX or
    /// DXT_MPIIO): the process's are the statics; a test builds its own.
    pub const fn new(id: usize) -> Dxt {
        let spec = ModuleSpec::new(id, NOMINAL_WORDS);
        Dxt {
            id,
            spec: if id == MPIIO_ID { spec.mpi_only() } else { spec },
            thread_ids: AtomicBool::new(false),
            st: Lock::new(State {
                words: Slice::empty(0),
                used: 0,
                avail: 0,
                budget: 0,
                seg_words: 4,
                index: IdIndex::empty(),
                rank: 0,
                host: [0; 8],
                frozen: false,
                secs_per_tick: 0.0,
                dropped: Vec::new(),
                env: None,
            }),
        }
    }
}

pub static DXT_POSIX: Dxt = Dxt::new(POSIX_ID);
pub static DXT_MPIIO: Dxt = Dxt::new(MPIIO_ID);
/// Ours: the io_uring requests (the IO_URING module traces each at its
/// completion, from its submission). The triggers, which judge a file by
/// its POSIX counters, do not apply to it.
pub static DXT_IO_URING: Dxt = Dxt::new(URING_ID);

impl State {
    /// The trace record of `id`, made if new; None if DXT does not trace
    /// this file (name excluded for `module`, or no memory: partial).
    fn record_for(&mut self, module: usize, id: u64) -> Option<usize> {
        if let Some(off) = self.index.find(id) {
            return Some(off);
        }
        let env = self.env?;
        let mut buf = [0u8; 4096];
        if let Some(n) = env.ledger.name_of(id, &mut buf) {
            if darshan_core::paths::excluded(env.config, module, &buf[..n]) {
                return None;
            }
        }
        // The index was sized for every record the budget can pay for.
        if self.avail < FILE_BYTES {
            env.ledger.set_partial(module);
            return None;
        }
        let off = self.used;
        self.take(module, dm::RECORD_WORDS, id)?;
        let c = &mut self.words[off..off + dm::RECORD_WORDS];
        c[0] = id;
        c[1] = dm::tag(dm::KIND_RECORD, 0, 0, 0);
        c[dm::REC_RANK] = self.rank as u64;
        c[dm::REC_HOST..dm::REC_HOST + 8].copy_from_slice(&self.host);
        self.avail -= FILE_BYTES;
        self.index.insert(id, off);
        env.ledger.record_added(module, dm::RECORD_WORDS * 8);
        Some(off)
    }

    /// `n` more words at the end of the chunks for the trace of record
    /// `id`, given storage in the crash-safe file first; None (module
    /// partial) if there are none. A standard stream's trace waits for the
    /// file, as its record does (logmap::room): its writer holds the
    /// stream's module lock, which the file's maker would have to take.
    fn take(&mut self, module: usize, n: usize, id: u64) -> Option<()> {
        let waits = darshan_log::names::is_std_stream_id(id);
        let back = |w: &mut Slice, e| if waits { w.back_waiting(e) } else { w.back(e) };
        if !self.used.checked_add(n).is_some_and(|e| back(&mut self.words, e)) {
            self.set_partial(module);
            return None;
        }
        self.used += n;
        Some(())
    }

    /// A new segment chunk for the writes (k = 0) or reads (1) of the
    /// record at `rec`, as Darshan grows a buffer: 64 segments, then
    /// doubling, the last growth taking what the budget has left.
    fn grow(&mut self, module: usize, rec: usize, k: usize) -> Option<usize> {
        let sw = self.seg_words;
        let total = self.words[rec + dm::REC_CAPACITY + k] as usize;
        let mut inc = if total == 0 { FIRST_SEGMENTS } else { total };
        if inc * sw * 8 > self.avail {
            inc = self.avail / (sw * 8);
            if inc == 0 {
                self.set_partial(module);
                return None;
            }
        }
        let inc = inc.min(dm::MAX_CHUNK_SEGMENTS);
        let off = self.used;
        self.take(module, 2 + inc * sw, self.words[rec])?;
        let kind = if k == 0 { dm::KIND_WRITES } else { dm::KIND_READS };
        self.words[off] = self.words[rec];
        self.words[off + 1] = dm::tag(kind, sw, inc, 0);
        self.avail -= inc * sw * 8;
        self.words[rec + dm::REC_CAPACITY + k] += inc as u64;
        self.words[rec + dm::REC_CURRENT + k] = off as u64;
        if let Some(env) = self.env {
            env.ledger.record_added(module, (2 + inc * sw) * 8);
        }
        Some(off)
    }

    fn set_partial(&self, module: usize) {
        if let Some(env) = self.env {
            env.ledger.set_partial(module);
        }
    }

    /// False if the segment found no room and none can be had: this
    /// direction of this file is full for good.
    fn append(&mut self, module: usize, rec: usize, write: bool, seg: &[u64; 5]) -> bool {
        let k = usize::from(!write);
        let cur = self.words[rec + dm::REC_CURRENT + k] as usize;
        let room_in = |w: &[u64], c: usize| c != 0 && matches!(dm::untag(w[c + 1]), (_, _, cap, n) if n < cap);
        let cur = if room_in(&self.words, cur) {
            cur
        } else {
            match self.grow(module, rec, k) {
                Some(c) => c,
                None => return false,
            }
        };
        let (kind, sw, cap, count) = dm::untag(self.words[cur + 1]);
        let at = cur + 2 + count * sw;
        self.words[at..at + sw].copy_from_slice(&seg[..sw]);
        // Counted once filled: a killed process leaves no half segment.
        self.words[cur + 1] = dm::tag(kind, sw, cap, count + 1);
        true
    }

    /// Every chunk: (offset, tag).
    fn chunks(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        dm::chunks(&self.words[..self.used])
    }

    /// Offsets of the record chunks.
    fn records(&self) -> Vec<usize> {
        self.chunks().filter(|&(_, t)| dm::untag(t).0 == dm::KIND_RECORD).map(|(p, _)| p).collect()
    }

    fn clear(&mut self) {
        self.words[..self.used].iter_mut().for_each(|w| *w = 0);
        self.words.forget_backing();
        self.used = 0;
        self.avail = self.budget;
        self.index.clear();
        self.frozen = false;
        self.dropped.clear();
    }
}

impl Dxt {
    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// A read or write of `length` bytes at `offset` (-1: unknown) of the
    /// file whose record id is `id`, between ticks `tm1` and `tm2`; the
    /// caller keeps `handle` in that file's record.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn trace(&self, handle: &mut Handle, id: u64, write: bool, offset: i64, length: i64, tm1: Tick, tm2: Tick) {
        // NOT_TRACED has both bits.
        if *handle & if write { WRITES_FULL } else { READS_FULL } == 0 {
            self.trace_slow(handle, id, write, [offset as u64, length as u64, tm1 as u64, tm2 as u64, 0]);
        }
    }

    fn trace_slow(&self, handle: &mut Handle, id: u64, write: bool, mut seg: [u64; 5]) {
        let mut st = self.lock();
        if st.words.reserved_len() == 0 {
            *handle = NOT_TRACED;
            return;
        }
        if st.frozen {
            return;
        }
        let known = ((*handle & OFFSET_PART) as usize).checked_sub(1).filter(|&r| r < st.used && st.words[r] == id);
        let rec = match known {
            Some(r) => r,
            None => match st.record_for(self.id, id).filter(|&r| r < OFFSET_PART as usize) {
                Some(r) => {
                    *handle = r as Handle + 1;
                    r
                }
                None => {
                    *handle = NOT_TRACED;
                    return;
                }
            },
        };
        if st.seg_words == 5 {
            seg[4] = st.env.map_or(0, |e| e.platform.thread_id());
        }
        if !st.append(self.id, rec, write, &seg) {
            *handle |= if write { WRITES_FULL } else { READS_FULL };
        }
    }

    /// Segments traced so far (writes, reads) for `id`.
    #[cfg(test)]
    fn counts(&self, id: u64) -> Option<(usize, usize)> {
        let st = self.lock();
        st.index.find(id)?;
        let mut n = (0, 0);
        for (_, t) in st.chunks().filter(|&(at, _)| st.words[at] == id) {
            match dm::untag(t) {
                (dm::KIND_WRITES, _, _, c) => n.0 += c,
                (dm::KIND_READS, _, _, c) => n.1 += c,
                _ => {}
            }
        }
        Some(n)
    }
}

/// Shutdown, from POSIX's finalize (before any reduction, as in
/// darshan-core.c): with a trigger set, drop the DXT_POSIX and DXT_MPIIO
/// traces of every traced file whose share of small (< 10 KiB) or of
/// file-unaligned operations is below it; with both set a file must pass
/// both. `stats(id)`: the file's POSIX (reads + writes, small ops,
/// unaligned ops), None if it has no POSIX record (kept).
pub fn apply_triggers(stats: &dyn Fn(u64) -> Option<(i64, i64, i64)>) {
    let Some(cfg) = DXT_POSIX.lock().env.map(|e| e.config) else { return };
    let (small, unaligned) = (cfg.dxt_small_io_trigger, cfg.dxt_unaligned_io_trigger);
    if small.is_none() && unaligned.is_none() {
        return;
    }
    // Darshan divides C ints as doubles: 0/0 is NaN, never kept.
    let keep = |part: i64, ops: i64, at_least: Option<f64>| at_least.is_none_or(|t| part as f64 / ops as f64 >= t);
    let ids: Vec<u64> = {
        let st = DXT_POSIX.lock();
        st.records().into_iter().map(|p| st.words[p]).collect()
    };
    let mut drop: Vec<u64> = ids
        .into_iter()
        .filter(|&id| match stats(id) {
            Some((ops, s, u)) => !(keep(s, ops, small) && keep(u, ops, unaligned)),
            None => false,
        })
        .collect();
    drop.sort_unstable();
    for m in [&DXT_POSIX, &DXT_MPIIO] {
        let mut st = m.lock();
        st.dropped.extend_from_slice(&drop);
        st.dropped.sort_unstable();
    }
}

/// DXT's traces are no record set: its hooks are its own; its lock is
/// still the runtime's to hold across fork() and to publish.
impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn darshan_core::records::Records> {
        None
    }
}

impl Module for Dxt {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.st)
    }

    fn spec(&self) -> &ModuleSpec {
        &self.spec
    }
    fn version(&self) -> u32 {
        write_version(self.id) + u32::from(self.thread_ids.load(Ordering::Relaxed))
    }
    fn mapped_version(&self) -> u32 {
        dm::VERSION
    }
    fn record_len(&self, rec: &[u64]) -> usize {
        let sw = if self.thread_ids.load(Ordering::Relaxed) { 5 } else { 4 };
        let n = rec.get(11).copied().unwrap_or(0).saturating_add(rec.get(12).copied().unwrap_or(0));
        HEAD_WORDS.saturating_add((n as usize).saturating_mul(sw))
    }
    fn attach(&self, slice: Slice, env: &Env) {
        let mut st = self.lock();
        let cfg = env.config;
        st.env = Some(*env);
        st.budget = cfg.dxt_budget(self.id);
        self.thread_ids.store(cfg.dxt_thread_ids, Ordering::Relaxed);
        st.seg_words = if cfg.dxt_thread_ids { 5 } else { 4 };
        // Off (no budget): nothing is allocated, and every file is untraced.
        st.index = match st.budget {
            0 => IdIndex::empty(),
            b => IdIndex::for_entries(b / FILE_BYTES + 1).unwrap_or(IdIndex::empty()),
        };
        st.words = if st.index.capacity() > 0 { slice } else { Slice::empty(0) };
        st.used = 0;
        st.avail = st.budget;
        st.rank = env.rank;
        let host = env.platform.hostname();
        let mut bytes = [0u8; 64];
        let n = host.len().min(64);
        bytes[..n].copy_from_slice(&host.as_bytes()[..n]);
        for (k, w) in st.host.iter_mut().enumerate() {
            *w = u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().unwrap_or_default());
        }
    }
    fn finalize(&self, ctx: &FinalizeCtx) {
        let mut st = self.lock();
        st.frozen = true;
        st.secs_per_tick = ctx.secs_per_tick;
        st.rank = ctx.rank;
    }
    /// DXT records are never reduced nor shared: every rank writes its own.
    fn record_ids(&self, _f: &mut dyn FnMut(u64)) {}
    /// Each traced file's record in the log's layout, whole.
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        let mut words = Vec::new();
        self.output_parts(&mut |part| emit(part.words(&mut words)));
    }
    /// Each traced file's record as where its words in the log's layout
    /// come from: the chunks read back as the crash-safe file's reader
    /// reads them, times in seconds, a range at a time as the shutdown
    /// compresses it (never every segment rebuilt at once beside the
    /// trace itself, nor a long trace copied whole).
    fn output_parts(&self, emit: &mut dyn FnMut(Run<'_>)) {
        let st = self.lock();
        let s = st.secs_per_tick;
        let time = |t: u64| at_c_resolution((t as i64) as f64 * s);
        let how = dmr::Layout { time: &time, thread_ids: st.seg_words == 5, rank: st.rank };
        let keep = |id: u64| st.dropped.binary_search(&id).is_err();
        let words = &st.words[..st.used];
        let Ok(mut traces) = dmr::Traces::index(&mut dmr::InMemory { words, pos: 0 }) else { return };
        while let Some(laid) = traces.next_laid(&keep, &how) {
            emit(Run::Long(&LaidTrace { traces: &traces, laid, words, how: &how }));
        }
    }
    fn own_bytes(&self) -> usize {
        self.lock().used * 8
    }
    /// Without building them: the shutdown asks before it compresses.
    fn output_runs(&self) -> usize {
        let st = self.lock();
        let mut mem = dmr::InMemory { words: &st.words[..st.used], pos: 0 };
        dmr::Traces::index(&mut mem).map_or(0, |t| t.ids().filter(|id| st.dropped.binary_search(id).is_err()).count())
    }
    fn fork_child(&self) {
        self.lock().clear();
    }
    fn set_rank(&self, rank: i64) {
        let mut st = self.lock();
        st.rank = rank;
        for p in st.records() {
            st.words[p + dm::REC_RANK] = rank as u64;
        }
    }
}

/// A traced file's record in the log's layout, written from its chunks
/// a range at a time.
struct LaidTrace<'a> {
    traces: &'a dmr::Traces,
    laid: dmr::Laid,
    words: &'a [u64],
    how: &'a dmr::Layout<'a>,
}

impl LongRecord for LaidTrace<'_> {
    fn len_words(&self) -> usize {
        self.laid.len()
    }
    fn words_at(&self, from: usize, out: &mut [u64]) {
        let mut mem = dmr::InMemory { words: self.words, pos: 0 };
        // The index walked every chunk whole, so its words are there;
        // should a read fail all the same, zeros keep the record's length.
        if self.traces.laid_words(&self.laid, from, out, &mut mem, self.how).is_err() {
            out.fill(0);
        }
    }
}

#[cfg(test)]
mod tests;
