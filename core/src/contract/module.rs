//! The module contract. A module is a `'static` object implementing
//! [`Module`]; the runtime keeps one registry of them and drives every
//! module through this trait alone: start-up (its record memory), fork
//! (its lock held across the call, then a fresh start in the child), the
//! rank learnt at MPI_Init, shutdown (finalize, reduce, output). Every
//! hook but `spec` (the static facts: id, record size, tick words,
//! reduction rules, ...) has a default, so adding a hook breaks no module:
//! a module that keeps its records in a `RecordSet` (or `HandleRecords`,
//! `VarRecordSet`) behind a `Lock` hands that lock to `records`, and
//! attach, finalize, reduce, fork, rank, output and the live view need
//! nothing more: such a module is two methods long. See
//! `modules/null` for a complete example in one short file and
//! docs/new-module.md for the steps.

use std::sync::atomic::AtomicU64;

use crate::contract::records::{Records, Reducer};
use crate::counting::collective::Comm;
use crate::store::arena::Slice;
use crate::store::sync::Lock;

pub use crate::contract::env::Env;
pub use crate::contract::records::FinalizeCtx;

/// What [`Module::output_parts`] hands over.
pub enum Run<'a> {
    /// Whole records back to back in the log's layout, as `output`'s.
    Records(&'a [u64]),
    /// One record, written a range at a time.
    Long(&'a dyn LongRecord),
}

impl Run<'_> {
    /// Its words: a long record's laid out whole in `buf`.
    pub fn words<'b>(&'b self, buf: &'b mut Vec<u64>) -> &'b [u64] {
        match self {
            Run::Records(words) => words,
            Run::Long(rec) => {
                buf.clear();
                buf.resize(rec.len_words(), 0);
                rec.words_at(0, buf);
                buf
            }
        }
    }
}

/// A record the shutdown asks for a range at a time, from the threads
/// that compress it at once. It counts no calls (`darshan_log::cost`):
/// the shutdown counts it as one record.
pub trait LongRecord: Sync {
    /// Its length in the log's layout, in words.
    fn len_words(&self) -> usize;
    /// Words `from..from + out.len()` of it in the log's layout (within
    /// `len_words`).
    fn words_at(&self, from: usize, out: &mut [u64]);
}

/// What a module is, fixed when it is built: the runtime reads these and
/// never asks again.
#[derive(Clone, Copy)]
pub struct ModuleSpec {
    /// The module's id in the log format (`darshan_log::modules`).
    pub id: usize,
    /// Size of one record in 64-bit words, as written to the log.
    pub record_words: usize,
    /// How many records to reserve, if not MAX_RECORDS (HEATMAP: 8).
    pub fixed_records: Option<usize>,
    /// Only in MPI jobs (MPI-IO): registered at MPI_Init, never in a
    /// program that does not call it.
    pub mpi_only: bool,
    /// Record words that hold clock ticks until shutdown (turned into
    /// seconds by the default `finalize`); none by default.
    pub tick_words: (usize, usize),
    /// The rules that combine the records every rank has (used by the
    /// default `reduce`); none: the module's records are not reduced.
    pub reducer: Option<&'static dyn Reducer>,
}

impl ModuleSpec {
    pub const fn new(id: usize, record_words: usize) -> ModuleSpec {
        ModuleSpec { id, record_words, fixed_records: None, mpi_only: false, tick_words: (0, 0), reducer: None }
    }
    pub const fn fixed_records(self, n: usize) -> ModuleSpec {
        ModuleSpec { fixed_records: Some(n), ..self }
    }
    pub const fn mpi_only(self) -> ModuleSpec {
        ModuleSpec { mpi_only: true, ..self }
    }
    /// Words `ticks` hold clock ticks (usually the fcounters but the
    /// variance of bytes).
    pub const fn ticks(self, ticks: std::ops::Range<usize>) -> ModuleSpec {
        ModuleSpec { tick_words: (ticks.start, ticks.end), ..self }
    }
    /// An MPI job's shared records are combined with `rules`.
    pub const fn reduced_by(self, rules: &'static dyn Reducer) -> ModuleSpec {
        ModuleSpec { reducer: Some(rules), ..self }
    }
}

pub trait Module: Sync {
    /// The module's static facts.
    fn spec(&self) -> &ModuleSpec;

    /// The module's lock over its state: the one hook through which the
    /// defaults below reach its records (attach, finalize, reduce, output,
    /// fork, rank), the runtime holds it across fork(), and the live view
    /// publishes it (crate::store::sync, docs/live.md). A module that keeps a
    /// `RecordSet` (or `HandleRecords`, `VarRecordSet`) behind a `Lock`
    /// returns `Some(&self.lock)`; None by default (no records: the
    /// defaults do nothing).
    fn records(&self) -> Option<&dyn LockedState> {
        None
    }

    /// The version of this module's records in the log header.
    fn version(&self) -> u32 {
        darshan_log::modules::write_version(self.spec().id)
    }

    /// The version of its records as they lie in the crash-safe file
    /// while the program runs: `version` unless they are kept in another
    /// layout there (DXT: `darshan_log::dxt_mapped`).
    fn mapped_version(&self) -> u32 {
        self.version()
    }

    /// Words of the record that starts `rec` (in `output`'s runs): the
    /// fixed `record_words` unless the module's records vary in length
    /// (LUSTRE; see `var_records`).
    fn record_len(&self, _rec: &[u64]) -> usize {
        self.spec().record_words
    }

    /// Counts for the job's metadata, written as `key=value` lines when
    /// not zero (summed over the ranks of an MPI job): what the module
    /// could not record and why (LUSTRE: layouts it could not decode).
    fn metadata_counts(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }

    /// Start-up: the record memory reserved for this module (possibly
    /// empty when DARSHAN_MODMEM is exhausted) and what it may know of
    /// the runtime (rank, ledger, configuration, mounts, platform, heat
    /// maps). By default the state's own part is sized for the records
    /// (`ModuleState::attach_own`) and the records take the memory.
    fn attach(&self, slice: Slice, env: &Env) {
        let mut slice = Some(slice);
        with_state(self, &mut |st| {
            if let Some(s) = slice.take() {
                st.attach_own(s.capacity);
                if let Some(r) = st.records() {
                    r.attach(s, env)
                }
            }
        });
    }

    /// Shutdown, first step: stop recording, turn ticks into seconds,
    /// drop records that must not be written. By default the records are
    /// frozen and their `spec().tick_words` made seconds.
    fn finalize(&self, ctx: &FinalizeCtx) {
        let (from, to) = self.spec().tick_words;
        with_records(self, &mut |r| r.finalize(ctx, from..to));
    }

    /// Shutdown, MPI only, after `finalize`: combine the records every
    /// rank has (`shared` ids, the same list on every rank) into rank -1
    /// records; by default with `spec().reducer` (none: nothing). Called
    /// on every rank (collectively) when `shared` is not empty, unless
    /// DARSHAN_DISABLE_SHARED_REDUCTION. Non-MPI runs never call it.
    fn reduce(&self, shared: &[u64], comm: &dyn Comm) {
        if let Some(rules) = self.spec().reducer {
            with_records(self, &mut |r| r.reduce(shared, comm, rules));
        }
    }

    /// Hand the records to write, as runs of record words in the log's
    /// layout, to `emit` (called while the module holds its lock). By
    /// default every record.
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        with_records(self, &mut |r| r.output_all(emit));
    }

    /// As `output`, for the shutdown's compression, which alone asks:
    /// a record may come as a [`Run::Long`], laid out a range at a time
    /// as it is compressed (DXT's traces, tens of megabytes, are then
    /// never copied whole beside the memory that holds them). By default
    /// `output`'s runs.
    fn output_parts(&self, emit: &mut dyn FnMut(Run<'_>)) {
        self.output(&mut |words| emit(Run::Records(words)))
    }

    /// Bytes of records this module holds outside DARSHAN_MODMEM (DXT's
    /// traces), which the shutdown copies: the shutdown asks for its
    /// memory from them before it allocates (finish::memory). None by
    /// default: records in the ledger's grants are counted there.
    fn own_bytes(&self) -> usize {
        0
    }

    /// How many runs `output` would hand over; by default counted by
    /// calling it (a module whose runs are built, not lent, says it
    /// without building them).
    fn output_runs(&self) -> usize {
        let mut runs = 0;
        self.output(&mut |_| runs += 1);
        runs
    }

    /// Shutdown, MPI only, before `reduce`: the id of every record this
    /// rank has, for the ranks to agree on which records they share. By
    /// default those of `output`; a module that writes fewer records than
    /// it reduces (BG/Q: only rank 0 writes) names them all.
    fn record_ids(&self, f: &mut dyn FnMut(u64)) {
        self.output(&mut |run: &[u64]| {
            for rec in crate::contract::var_records::split(run, |r| self.record_len(r)) {
                f(rec[0]);
            }
        });
    }

    /// Shutdown, MPI only, before `reduce`: the ids this rank offers for
    /// the ranks' agreement on which records they share. By default
    /// `record_ids`; a module that drops some records at output only after
    /// Darshan's agreement (STDIO: the unused standard streams) offers
    /// them too.
    fn held_ids(&self, f: &mut dyn FnMut(u64)) {
        self.record_ids(f)
    }

    /// In a forked child: forget the parent's records and start afresh;
    /// by default the records are cleared, then the state's own part
    /// (`ModuleState::fork_own`).
    fn fork_child(&self) {
        with_state(self, &mut |st| {
            if let Some(r) = st.records() {
                r.fork_child()
            }
            st.fork_own()
        });
    }

    /// A process recording since its constructor learnt its MPI rank (in
    /// MPI_Init): its records, existing and future, carry it.
    fn set_rank(&self, rank: i64) {
        with_records(self, &mut |r| r.set_rank(rank));
    }
}

/// What a module keeps behind its lock: the records the defaults work on,
/// and any state of its own (handle tables, pools) they size and reset.
pub trait ModuleState: Send {
    /// The module's records; None for a module that keeps them otherwise
    /// (DXT's traces), whose hooks are its own.
    fn records(&mut self) -> Option<&mut dyn Records>;
    /// Start-up, before the records attach: size the module's own state
    /// for `capacity` records, so that no later call allocates.
    fn attach_own(&mut self, _capacity: usize) {}
    /// In a forked child, after the records were cleared: forget the
    /// parent's part of the module's own state.
    fn fork_own(&mut self) {}
}

impl<R: crate::contract::records::RecordRt + Send> ModuleState for crate::contract::records::RecordSet<R> {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(self)
    }
}

impl ModuleState for crate::contract::var_records::VarRecordSet {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(self)
    }
}

/// A module's lock over its [`ModuleState`], as `Module::records` hands
/// it: taken for the defaults, held across fork(), published to the
/// module's sequence word in the crash-safe file.
pub trait LockedState: Sync {
    /// Run `f` on the state, under the lock.
    fn with(&self, f: &mut dyn FnMut(&mut dyn ModuleState));
    /// From now on, the lock says in `word` when it is held (docs/live.md).
    fn publish(&self, word: &'static AtomicU64);
}

impl<T: ModuleState> LockedState for Lock<T> {
    fn with(&self, f: &mut dyn FnMut(&mut dyn ModuleState)) {
        f(&mut *self.lock())
    }
    fn publish(&self, word: &'static AtomicU64) {
        Lock::publish(self, word)
    }
}

/// `f` on `m`'s state under its lock (nothing for a module without one).
fn with_state<M: Module + ?Sized>(m: &M, f: &mut dyn FnMut(&mut dyn ModuleState)) {
    if let Some(l) = m.records() {
        l.with(f)
    }
}

/// `f` on `m`'s records under its lock (nothing without records).
fn with_records<M: Module + ?Sized>(m: &M, f: &mut dyn FnMut(&mut dyn Records)) {
    with_state(m, &mut |st| {
        if let Some(r) = st.records() {
            f(r)
        }
    });
}

/// fork(): run `f` (the fork itself, with the other modules' locks held)
/// while holding `m`'s lock, so that the child never inherits a lock
/// another thread held mid-update.
pub fn while_locked(m: &dyn Module, f: &mut dyn FnMut()) {
    match m.records() {
        Some(l) => l.with(&mut |_| f()),
        None => f(),
    }
}

/// `m` finalized with `ctx` and its records as it writes them, one vector
/// per record: what the modules' unit tests check their counting rules on
/// (the shutdown itself writes runs, not records).
pub fn finalized_records(m: &dyn Module, ctx: &FinalizeCtx) -> Vec<Vec<u64>> {
    m.finalize(ctx);
    let mut out = Vec::new();
    m.output(&mut |run: &[u64]| {
        out.extend(crate::contract::var_records::split(run, |r| m.record_len(r)).map(<[u64]>::to_vec))
    });
    out
}
