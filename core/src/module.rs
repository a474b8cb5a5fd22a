//! The module contract. A module is a `'static` object implementing
//! [`Module`]; the runtime keeps one registry of them and drives every
//! module through this trait alone: start-up (its record memory, its
//! heatmap), fork (its lock held across the call, then a fresh start in
//! the child), the rank learnt at MPI_Init, shutdown (finalize, reduce,
//! output). Every hook but `spec` (the static facts: id, record size, tick
//! words, reduction rules, ...) has a default, so adding a hook breaks no
//! module: a module that keeps its records in a `RecordSet` (or
//! `HandleRecords`, `VarRecordSet`) gives them to `with_records`, and
//! attach, finalize, reduce, fork, heatmap, rank and output need nothing
//! more: such a module is two methods long. See
//! `modules/null` for a complete example in one short file and
//! docs/new-module.md for the steps.

use crate::arena::Slice;
use crate::collective::Comm;
use crate::heatmap::HeatBins;
use crate::records::{Records, Reducer};

pub use crate::env::Env;
pub use crate::records::FinalizeCtx;

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
    /// The heatmap record this module feeds (`heatmap:POSIX`), if any.
    pub heat_name: Option<&'static [u8]>,
    /// Record words that hold clock ticks until shutdown (turned into
    /// seconds by the default `finalize`); none by default.
    pub tick_words: (usize, usize),
    /// The rules that combine the records every rank has (used by the
    /// default `reduce`); none: the module's records are not reduced.
    pub reducer: Option<&'static dyn Reducer>,
}

impl ModuleSpec {
    pub const fn new(id: usize, record_words: usize) -> ModuleSpec {
        ModuleSpec {
            id,
            record_words,
            fixed_records: None,
            mpi_only: false,
            heat_name: None,
            tick_words: (0, 0),
            reducer: None,
        }
    }
    pub const fn fixed_records(self, n: usize) -> ModuleSpec {
        ModuleSpec { fixed_records: Some(n), ..self }
    }
    pub const fn mpi_only(self) -> ModuleSpec {
        ModuleSpec { mpi_only: true, ..self }
    }
    pub const fn heat(self, name: &'static [u8]) -> ModuleSpec {
        ModuleSpec { heat_name: Some(name), ..self }
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

    /// The lock the module's records are behind, for the live view: the
    /// runtime publishes it to the module's sequence word in the
    /// crash-safe file (crate::sync, docs/live.md). None by default (a
    /// reader then copies the module's records without that guarantee).
    fn live_lock(&self) -> Option<&dyn crate::sync::Publish> {
        None
    }

    /// Run `f` on this module's records while holding the module's lock.
    /// A module that keeps a `RecordSet` implements this one hook (`f(&mut
    /// self.lock().set)`), and the defaults of `set_heat`, `heat_record`,
    /// `set_rank`, `output` and `while_locked` work through it; a module
    /// without records leaves it, and those do nothing (`while_locked`
    /// just runs its function).
    fn with_records(&self, _f: &mut dyn FnMut(&mut dyn Records)) {}

    /// Start-up, after every module registered: this module's heatmap
    /// bins (when HEATMAP is enabled and has room).
    fn set_heat(&self, bins: HeatBins) {
        let mut bins = Some(bins);
        self.with_records(&mut |r| {
            if let Some(b) = bins.take() {
                r.set_heat(b)
            }
        });
    }

    /// Shutdown: hand the finished heatmap record (if it saw data) to
    /// `emit`; the HEATMAP module writes every module's.
    fn heat_record(&self, emit: &mut dyn FnMut(&[u64])) {
        self.with_records(&mut |r| r.heat_record(emit));
    }

    /// The HEATMAP module only: bins for the record `name` with bins of
    /// 2^shift ticks, if it has room left.
    fn take_heat(&self, _name: &'static [u8], _shift: u32) -> Option<HeatBins> {
        None
    }

    /// fork(): run `f` (the fork itself, with the other modules' locks)
    /// while holding this module's lock, so that the child never inherits
    /// a lock another thread held mid-update; the child then gets
    /// `fork_child`. By default under `with_records`' lock.
    fn while_locked(&self, f: &mut dyn FnMut()) {
        let mut ran = false;
        self.with_records(&mut |_| {
            ran = true;
            f()
        });
        if !ran {
            f()
        }
    }

    /// Start-up: the record memory reserved for this module (possibly
    /// empty when DARSHAN_MODMEM is exhausted) and what it may know of
    /// the runtime (rank, ledger, configuration, mounts, platform). By
    /// default given to `with_records`' records.
    fn attach(&self, slice: Slice, env: &Env) {
        let mut slice = Some(slice);
        self.with_records(&mut |r| {
            if let Some(s) = slice.take() {
                r.attach(s, env)
            }
        });
    }

    /// Shutdown, first step: stop recording, turn ticks into seconds,
    /// drop records that must not be written. By default `with_records`'
    /// records are frozen and their `spec().tick_words` made seconds.
    fn finalize(&self, ctx: &FinalizeCtx) {
        let (from, to) = self.spec().tick_words;
        self.with_records(&mut |r| r.finalize(ctx, from..to));
    }

    /// Shutdown, MPI only, after `finalize`: combine the records every
    /// rank has (`shared` ids, the same list on every rank) into rank -1
    /// records; by default with `spec().reducer` (none: nothing). Called
    /// on every rank (collectively) when `shared` is not empty, unless
    /// DARSHAN_DISABLE_SHARED_REDUCTION. Non-MPI runs never call it.
    fn reduce(&self, shared: &[u64], comm: &dyn Comm) {
        if let Some(rules) = self.spec().reducer {
            self.with_records(&mut |r| r.reduce(shared, comm, rules));
        }
    }

    /// Hand the records to write, as runs of record words in the log's
    /// layout, to `emit` (called while the module holds its lock). By
    /// default every record of `with_records`.
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        self.with_records(&mut |r| r.output_all(emit));
    }

    /// Shutdown, MPI only, before `reduce`: the id of every record this
    /// rank has, for the ranks to agree on which records they share. By
    /// default those of `output`; a module that writes fewer records than
    /// it reduces (BG/Q: only rank 0 writes) names them all.
    fn record_ids(&self, f: &mut dyn FnMut(u64)) {
        self.output(&mut |run: &[u64]| {
            for rec in crate::var_records::split(run, |r| self.record_len(r)) {
                f(rec[0]);
            }
        });
    }

    /// In a forked child: forget the parent's records and start afresh
    /// (by default `with_records`' records).
    fn fork_child(&self) {
        self.with_records(&mut |r| r.fork_child());
    }

    /// A process recording since its constructor learnt its MPI rank (in
    /// MPI_Init): its records, existing and future, carry it.
    fn set_rank(&self, rank: i64) {
        self.with_records(&mut |r| r.set_rank(rank));
    }
}

/// `m` finalized with `ctx` and its records as it writes them, one vector
/// per record: what the modules' unit tests check their counting rules on
/// (the shutdown itself writes runs, not records).
pub fn finalized_records(m: &dyn Module, ctx: &FinalizeCtx) -> Vec<Vec<u64>> {
    m.finalize(ctx);
    let mut out = Vec::new();
    m.output(&mut |run: &[u64]| out.extend(crate::var_records::split(run, |r| m.record_len(r)).map(<[u64]>::to_vec)));
    out
}
