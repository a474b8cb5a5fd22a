//! A module's record set: its slice of record memory, an id -> record
//! index, and per-record runtime state `R` that is not written to the log.
//! Creating a record registers its name with the core; when either the
//! module's records or the name memory run out, the module is marked
//! partial and the call goes unrecorded (the program is not affected).

use crate::contract::env::Env;
use crate::contract::heatmap::HeatBins;
use crate::counting::collective::{variance_combine, variance_elem, variance_of, Comm};
use crate::counting::common::{fix_negative_time, ticks_to_secs, NoOverlap};
use crate::store::arena::Slice;
use crate::store::fixed_vec::FixedVec;
use crate::store::id_index::IdIndex;
use crate::store::ledger::{Ledger, GRANT_CHUNK};

/// What a module needs to know at shutdown.
pub struct FinalizeCtx {
    /// Modules store raw clock ticks (relative to start-up) in their time
    /// counters while running; multiply by this to get seconds.
    pub secs_per_tick: f64,
    /// The clock at shutdown (ticks): the end of the run for heatmaps.
    pub end_tick: i64,
    /// Seconds per tick for heatmap bin widths: in an MPI job rank 0's,
    /// so that every rank's bins have exactly the same width (PyDarshan
    /// refuses heatmaps whose widths differ).
    pub heat_secs_per_tick: f64,
    /// Heatmap bins are at least `2^heat_shift` ticks wide: in an MPI job
    /// the widest any rank has, so that every rank's bins are as wide
    /// (0: no such floor).
    pub heat_shift: u32,
    pub rank: i64,
    pub nprocs: i64,
}

impl FinalizeCtx {
    /// A process on its own (no MPI job): its own tick length for its
    /// heatmaps, no floor on their width, rank 0 of 1.
    pub fn one_process(secs_per_tick: f64, end_tick: i64) -> FinalizeCtx {
        FinalizeCtx { secs_per_tick, end_tick, heat_secs_per_tick: secs_per_tick, heat_shift: 0, rank: 0, nprocs: 1 }
    }
}

pub use darshan_log::reduce::{prepare_shared, Reducer};

/// A module's per-record runtime state (what the record words do not
/// hold: last offsets, open descriptors, timers).
pub trait RecordRt: Default {
    /// Each of Darshan's non-overlap timers (`common::
    /// timer_inc_no_overlap`) this state keeps, with the record word of
    /// the fcounter it adds to. None by default.
    fn timers(&self, _f: &mut dyn FnMut(usize, &NoOverlap)) {}
}

/// A module without per-record state (NULL).
impl RecordRt for () {}

/// What the module contract's default hooks (`Module::attach`,
/// `finalize`, `reduce`, `fork_child`, `set_rank`, `output`) do to a module's records, reached
/// through `Module::records`: a module keeps a [`RecordSet`] (or a
/// `HandleRecords`, a `VarRecordSet`) and forwards nothing by hand.
pub trait Records {
    /// Start-up: the reserved memory and what the runtime gives.
    fn attach(&mut self, slice: Slice, env: &Env);
    /// Shutdown: freeze, and make the words `ticks` seconds.
    fn finalize(&mut self, ctx: &FinalizeCtx, ticks: std::ops::Range<usize>);
    /// Shutdown, MPI: combine the records every rank has with `rules`.
    fn reduce(&mut self, shared: &[u64], comm: &dyn Comm, rules: &dyn Reducer);
    /// In a forked child: no records.
    fn fork_child(&mut self);
    fn set_rank(&mut self, rank: i64);
    /// Every record, in runs (`RecordSet::output` keeping all).
    fn output_all(&self, emit: &mut dyn FnMut(&[u64]));
}

impl<R: RecordRt> Records for RecordSet<R> {
    fn attach(&mut self, slice: Slice, env: &Env) {
        RecordSet::attach(self, slice, env)
    }
    fn finalize(&mut self, ctx: &FinalizeCtx, ticks: std::ops::Range<usize>) {
        RecordSet::finalize(self, ctx, ticks)
    }
    fn reduce(&mut self, shared: &[u64], comm: &dyn Comm, rules: &dyn Reducer) {
        self.reduce_shared(shared, comm, rules);
    }
    fn fork_child(&mut self) {
        self.clear()
    }
    fn set_rank(&mut self, rank: i64) {
        RecordSet::set_rank(self, rank)
    }
    fn output_all(&self, emit: &mut dyn FnMut(&[u64])) {
        self.output(emit, |_| true)
    }
}

/// Rank word of a record reduced across ranks.
pub struct RecordSet<R> {
    module: usize,
    rank: i64,
    /// What the runtime gave at attach: the ledger grants, names and
    /// flags go to, the configuration (none before attach, when the set
    /// has no memory either).
    env: Option<Env>,
    slice: Slice,
    /// Records of DARSHAN_MODMEM granted at the first record (None
    /// before it; kept by a forked child, whose memory it still is).
    granted: Option<usize>,
    count: usize,
    frozen: bool,
    /// Record id -> record index.
    index: IdIndex,
    pub rt: FixedVec<R>,
    /// The module's heatmap (bytes over time), when HEATMAP gave it bins.
    heat: Option<HeatBins>,
    /// Rank 0 after an MPI reduction: the rank -1 records, written after
    /// the others (as Darshan sorts shared records to the end).
    reduced: Vec<u64>,
    /// After an MPI reduction, by record index: reduced into `reduced`, so
    /// not written on its own. Kept here, not in the record's rank word:
    /// the records live in the crash-safe file, which must keep each
    /// rank's own records should the log then not be written (a merge of
    /// the files reduces them again).
    shared: Vec<bool>,
    /// Places kept for records made at their first use that Darshan
    /// makes at start-up (`expect_early_records`), not made yet.
    early: usize,
}

impl<R: RecordRt> RecordSet<R> {
    pub const fn new(module: usize) -> Self {
        RecordSet {
            module,
            rank: 0,
            env: None,
            slice: Slice::empty(0),
            granted: None,
            count: 0,
            frozen: false,
            index: IdIndex::empty(),
            rt: FixedVec::empty(),
            heat: None,
            reduced: Vec::new(),
            shared: Vec::new(),
            early: 0,
        }
    }

    /// A read or write of `bytes` from tick `tm1` to `tm2`, into the
    /// heatmap (if there is one).
    #[inline]
    pub fn heat_add(&mut self, write: bool, bytes: i64, tm1: i64, tm2: i64) {
        if let Some(h) = self.heat.as_mut() {
            h.add(write, bytes, tm1, tm2);
        }
    }

    /// Take the reserved memory; allocate the index and runtime state now
    /// so that no later call allocates. If that memory cannot be had, the
    /// module keeps no records (and says so with its partial flag).
    pub fn attach(&mut self, mut slice: Slice, env: &Env) {
        let cap = slice.capacity;
        match (IdIndex::for_entries(cap), FixedVec::with_capacity(cap)) {
            (Some(ix), Some(rt)) => (self.index, self.rt) = (ix, rt),
            _ => {
                slice.capacity = 0;
                (self.index, self.rt) = (IdIndex::empty(), FixedVec::empty());
            }
        }
        self.slice = slice;
        self.granted = None;
        self.rank = env.rank;
        self.env = Some(*env);
        self.count = 0;
        // A source of a heat map (POSIX, MPI-IO, STDIO) takes its bins
        // from the process's keeper, as handed in `env`.
        self.heat = env.heat_bins(self.module);
    }

    /// Mark this module's data as incomplete in the log (a handle table
    /// or a trace ran out of room).
    pub fn mark_partial(&self) {
        // A module switched off keeps no records and is never partial.
        if let Some(e) = self.env.filter(|e| e.ledger.enabled(self.module)) {
            e.ledger.set_partial(self.module);
        }
    }

    /// What the runtime gave at attach.
    pub fn env(&self) -> Option<&Env> {
        self.env.as_ref()
    }

    /// Whether the configuration leaves `name` out of this module
    /// (DARSHAN_EXCLUDE_DIRS and the like); before attach, every name.
    pub fn excluded(&self, name: &[u8]) -> bool {
        self.env.is_none_or(|e| crate::counting::paths::excluded(e.config, self.module, name))
    }

    pub fn len(&self) -> usize {
        self.count
    }

    /// How many records this module may hold (its MAX_RECORDS).
    pub fn capacity(&self) -> usize {
        self.slice.capacity
    }

    /// Whether record `i` exists and may still be updated.
    #[inline]
    pub fn live(&self, i: usize) -> bool {
        i < self.count && !self.frozen
    }

    /// Shutdown: no more updates or new records (calls still in flight on
    /// other threads find the set frozen and record nothing).
    pub fn freeze(&mut self) {
        self.frozen = true;
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn rank(&self) -> i64 {
        self.rank
    }

    /// The rank of every record, existing and future, and of the
    /// module's heatmap (a process that started recording before
    /// MPI_Init learns its rank there).
    pub fn set_rank(&mut self, rank: i64) {
        self.rank = rank;
        for i in 0..self.count {
            self.slice.record_mut(i)[1] = rank as u64;
        }
        if let Some(h) = self.heat.as_mut() {
            h.set_rank(rank);
        }
    }

    /// Shutdown, first step, for a module whose records hold clock ticks
    /// in the words `times`: stop recording; Darshan's cumulative times
    /// wherever they are not negative, the sums of their non-negative
    /// parts where they are (`common::fix_negative_time`); give the
    /// records (and the heatmap) the rank, fit the heatmap to the run,
    /// ticks to seconds.
    pub fn finalize(&mut self, ctx: &FinalizeCtx, times: std::ops::Range<usize>) {
        self.freeze();
        for i in 0..self.count {
            let w = self.slice.record_mut(i);
            self.rt[i].timers(&mut |word, t| fix_negative_time(w, word, t));
        }
        if self.rank != ctx.rank {
            self.set_rank(ctx.rank);
        }
        if let Some(h) = self.heat.as_mut() {
            h.finish(ctx.end_tick, ctx.heat_secs_per_tick, ctx.rank, ctx.heat_shift);
        }
        let s = ctx.secs_per_tick;
        self.for_each_mut(|w| ticks_to_secs(w, times.clone(), s));
    }

    #[inline]
    pub fn find(&self, id: u64) -> Option<usize> {
        self.index.find(id)
    }

    /// The record for `id`, created (named `name`) if new. None when the
    /// configuration leaves the name out of this module (as Darshan's
    /// register_record asks for every module: no module can forget it),
    /// or the module has no room or the name table is full (partial flag
    /// set).
    pub fn find_or_create(&mut self, id: u64, name: &[u8]) -> Option<usize> {
        if self.frozen {
            return None;
        }
        if let Some(i) = self.find(id) {
            return Some(i);
        }
        let ledger = self.env.map(|e| e.ledger)?;
        if self.excluded(name) {
            ledger.name_left_out(self.module);
            return None;
        }
        // A record made at its first use takes one of the places kept for
        // it; any other leaves them free.
        let early = self.early > 0 && darshan_log::names::is_std_stream(name);
        let kept = if early { 0 } else { self.early };
        if self.count + kept >= self.slice.capacity {
            ledger.set_full(self.module);
            if ledger.enabled(self.module) {
                ledger.set_partial(self.module);
            }
            return None;
        }
        if self.count + kept >= self.granted.unwrap_or(0) && !self.grant_more(ledger) {
            return None;
        }
        // The crash-safe file (made now if this is the first record) must
        // have storage for the record before it is written. A standard
        // stream's record does not make it: it waits in memory for the
        // first other record (logmap::room), so that a process that only
        // touches its standard streams (a Python start, `echo`) makes none.
        let i = self.count;
        let end = (i + 1) * self.slice.rec_words;
        let backed =
            if darshan_log::names::is_std_stream(name) { self.slice.back_waiting(end) } else { self.slice.back(end) };
        if !backed {
            ledger.set_partial(self.module);
            return None;
        }
        if !ledger.register_name(self.module, id, name) {
            return None;
        }
        // Room for its state was reserved with the record memory.
        if self.rt.push(R::default()).is_err() {
            return None;
        }
        let w = self.slice.record_mut(i);
        w.iter_mut().for_each(|x| *x = 0);
        w[0] = id;
        w[1] = self.rank as u64;
        self.count += 1;
        ledger.record_added(self.module, self.slice.rec_words * 8);
        self.index.insert(id, i);
        self.early -= usize::from(early);
        if self.count + self.early >= self.slice.capacity {
            ledger.set_full(self.module);
        }
        Some(i)
    }

    /// DARSHAN_MODMEM's next chunk (GRANT_CHUNK records) for this module;
    /// false when none is left: the module is then marked starved, or
    /// partial once its own reservation is used up (a module switched off
    /// keeps no records and is neither).
    fn grant_more(&mut self, ledger: &Ledger) -> bool {
        let (rec_bytes, cap) = (self.slice.rec_words * 8, self.slice.capacity);
        let granted = self.granted.unwrap_or(0);
        let more = if granted < cap { ledger.grant(rec_bytes, (cap - granted).min(GRANT_CHUNK)) } else { 0 };
        self.granted = Some(granted + more);
        if more == 0 && ledger.enabled(self.module) {
            if granted < cap {
                ledger.set_starved(self.module);
            } else {
                ledger.set_partial(self.module);
            }
        }
        more > 0
    }

    #[inline]
    pub fn words(&mut self, i: usize) -> &mut [u64] {
        self.slice.record_mut(i)
    }

    /// Record words and runtime state of record `i` together.
    #[inline]
    pub fn both(&mut self, i: usize) -> (&mut [u64], &mut R) {
        (self.slice.record_mut(i), &mut self.rt[i])
    }

    #[inline]
    pub fn record(&self, i: usize) -> &[u64] {
        self.slice.record(i)
    }

    /// Forget every record (forked child); the memory stays reserved.
    pub fn clear(&mut self) {
        let n = self.count * self.slice.rec_words;
        self.slice[..n].iter_mut().for_each(|x| *x = 0);
        self.slice.forget_backing();
        self.index.clear();
        self.rt.clear();
        self.count = 0;
        self.frozen = false;
        self.reduced = Vec::new();
        self.shared = Vec::new();
        self.early = 0;
        if let Some(h) = self.heat.as_mut() {
            h.clear(self.rank);
        }
    }

    /// Emit the records for which `keep` holds, in runs of consecutive
    /// records (all of them in one run when every record is kept), then
    /// the records reduced across ranks for which it holds, if any (Darshan
    /// filters its output after the reduction: STDIO's unused standard
    /// streams, shared by every rank, are dropped there too).
    pub fn output(&self, emit: &mut dyn FnMut(&[u64]), keep: impl Fn(&[u64]) -> bool) {
        self.output_local(emit, &keep);
        emit_runs(&self.reduced, self.slice.rec_words, emit, |_, w| keep(w));
    }

    /// This rank's records for which `keep` holds, less those reduced.
    fn output_local(&self, emit: &mut dyn FnMut(&[u64]), keep: &dyn Fn(&[u64]) -> bool) {
        let rw = self.slice.rec_words;
        let local = &self.slice[..self.count * rw];
        emit_runs(local, rw, emit, |i, w| self.shared.get(i) != Some(&true) && keep(w));
    }

    /// This module makes at their first use records it used to make at
    /// start-up: it takes DARSHAN_MODMEM's first chunk now, as it did by
    /// making them (else a module that records first could take it all,
    /// and a later `printf` found no room for `<STDOUT>`), and the
    /// crash-safe file gives its area storage when it is made.
    ///
    /// Their `n` places are kept for them from now on, made or not:
    /// Darshan's STDIO module makes the standard streams' three records
    /// when it is set up, so they take 3 of its MAX_RECORDS whether a
    /// stream is ever used (at the limit, C's log has 1,021 files).
    pub fn expect_early_records(&mut self, n: usize) {
        self.early = n;
        crate::store::logmap::expect_early(self.module);
        if let (Some(ledger), None) = (self.env.map(|e| e.ledger), self.granted) {
            self.grant_more(ledger);
        }
        if let Some(ledger) = self.env.map(|e| e.ledger).filter(|_| n >= self.slice.capacity) {
            ledger.set_full(self.module);
        }
    }

    /// As [`RecordSet::output`], but the records of the ids `first` come
    /// first, in that order: records a module makes at their first use
    /// keep the place in the log they had when it made them at start-up.
    pub fn output_first(&self, first: &[u64], emit: &mut dyn FnMut(&[u64]), keep: impl Fn(&[u64]) -> bool) {
        // No look-up in an empty set: its index's pages were never touched.
        for &id in first.iter().filter(|_| self.count > 0) {
            let Some(i) = self.find(id) else { continue };
            if self.shared.get(i) != Some(&true) && keep(self.slice.record(i)) {
                emit(self.slice.record(i));
            }
        }
        self.output_local(emit, &|w| !first.contains(&w[0]) && keep(w));
        emit_runs(&self.reduced, self.slice.rec_words, emit, |_, w| keep(w));
    }

    /// MPI shutdown, on every rank: combine the records of the `shared`
    /// ids (the same list on every rank) into rank -1 records on rank 0
    /// with `rules`; the local copies are then not written. Returns false
    /// if MPI refused (the local records are then written unreduced).
    pub fn reduce_shared(&mut self, shared: &[u64], comm: &dyn Comm, rules: &dyn Reducer) -> bool {
        let rw = self.slice.rec_words;
        let n = shared.len();
        let mut send = vec![0u64; n * rw];
        let mut spread = Vec::with_capacity(n);
        for (k, &id) in shared.iter().enumerate() {
            let dst = &mut send[k * rw..(k + 1) * rw];
            // Every rank has every shared record; a missing one (which the
            // id exchange rules out) still takes its place as zeros.
            match self.find(id) {
                Some(i) => dst.copy_from_slice(self.slice.record(i)),
                None => dst[0] = id,
            }
            spread.push(prepare_shared(dst, rules));
        }
        let root = comm.rank() == 0;
        let mut recv = vec![0u64; if root { n * rw } else { 0 }];
        if !comm.reduce_elems(&send, &mut recv, rw, &|a, b| {
            for (x, y) in a.chunks_exact(rw).zip(b.chunks_exact_mut(rw)) {
                rules.combine(x, y);
            }
        }) {
            return false;
        }
        if spread.iter().all(|s| s.is_some()) {
            let mut var = [vec![0u64; n * 3], vec![0u64; n * 3]];
            let mut out = [vec![0u64; if root { n * 3 } else { 0 }], vec![0u64; if root { n * 3 } else { 0 }]];
            for (k, s) in spread.iter().enumerate() {
                let (t, b) = s.unwrap_or_default();
                var[0][k * 3..k * 3 + 3].copy_from_slice(&variance_elem(t));
                var[1][k * 3..k * 3 + 3].copy_from_slice(&variance_elem(b));
            }
            for j in 0..2 {
                comm.reduce_elems(&var[j], &mut out[j], 3, &variance_combine);
            }
            if root {
                for k in 0..n {
                    let (t, b) = (variance_of(&out[0][k * 3..]), variance_of(&out[1][k * 3..]));
                    rules.set_variance(&mut recv[k * rw..(k + 1) * rw], t, b);
                }
            }
        }
        self.shared = vec![false; self.count];
        for &id in shared {
            if let Some(i) = self.find(id) {
                self.shared[i] = true;
            }
        }
        self.reduced = recv;
        true
    }

    /// Apply `f` to every record's words (shutdown conversions).
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut [u64])) {
        for i in 0..self.count {
            f(self.slice.record_mut(i));
        }
    }
}

/// Hand `emit` the records of `words` (`rw` words each) for which `kept`
/// holds, as runs of consecutive records.
fn emit_runs(words: &[u64], rw: usize, emit: &mut dyn FnMut(&[u64]), kept: impl Fn(usize, &[u64]) -> bool) {
    let n = words.len().checked_div(rw).unwrap_or(0);
    let mut start = 0;
    for i in 0..=n {
        if i == n || !kept(i, &words[i * rw..(i + 1) * rw]) {
            if i > start {
                emit(&words[start * rw..i * rw]);
            }
            start = i + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, NameRule};
    use crate::store::arena::RecordArena;
    use darshan_log::modules::{H5D, POSIX};

    /// H5D made records for datasets of files under /dev/ and for names a
    /// NAME_EXCLUDE rule for H5D matched: the exclusion was each module's
    /// own call, and H5D had none. Asked by find_or_create now, for every
    /// module (as Darshan's register_record asks).
    #[test]
    fn a_module_that_did_not_ask_whether_a_name_was_excluded_still_made_its_record() {
        let rule = NameRule {
            pattern: "^/data/skip".into(),
            regex: crate::config::name_pattern("^/data/skip").unwrap(),
            modules: 1 << H5D,
        };
        let env = Env::for_config(Config { name_exclude: vec![rule], ..Config::default() });
        let mut arena = RecordArena::new(1 << 16).unwrap();
        let mut h5d: RecordSet<()> = RecordSet::new(H5D);
        h5d.attach(arena.reserve(8, 8), &env);
        let mut posix: RecordSet<()> = RecordSet::new(POSIX);
        posix.attach(arena.reserve(8, 8), &env);
        let made = |set: &mut RecordSet<()>, name: &[u8]| set.find_or_create(darshan_log::record_id(name), name);
        assert!(made(&mut h5d, b"/dev/shm/f.h5:/x").is_none(), "a default excluded prefix");
        assert!(made(&mut h5d, b"/data/skip.h5:/x").is_none(), "the rule, for H5D");
        assert!(made(&mut posix, b"/data/skip.h5").is_some(), "the rule is not POSIX's");
        assert!(made(&mut h5d, b"/data/keep.h5:/x").is_some());
        assert_eq!(h5d.len(), 1);
    }
}
