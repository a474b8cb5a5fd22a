//! The module contract. A module is a `'static` object implementing
//! [`Module`]; the core calls it at start-up (to hand over its record
//! memory), at shutdown (finalize, reduce, output) and after fork. Every
//! hook but `id`, `record_words`, `attach` and `output` has a no-op default,
//! so adding a hook breaks no module. See `modules/null` for a complete
//! example in one short file.

use crate::arena::Slice;
use crate::collective::Comm;

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
    pub rank: i64,
    pub nprocs: i64,
}

pub trait Module: Sync {
    /// The module's id in the log format (`darshan_log::modules`).
    fn id(&self) -> usize;

    /// Size of one record in 64-bit words, as written to the log.
    fn record_words(&self) -> usize;

    /// How many records to reserve, if not MAX_RECORDS (HEATMAP: 8).
    fn fixed_records(&self) -> Option<usize> {
        None
    }

    /// Start-up: the record memory reserved for this module (possibly
    /// empty when DARSHAN_MODMEM is exhausted) and the run's rank.
    fn attach(&self, slice: Slice, rank: i64);

    /// Shutdown, first step: stop recording, turn ticks into seconds,
    /// drop records that must not be written.
    fn finalize(&self, _ctx: &FinalizeCtx) {}

    /// Shutdown, MPI only, after `finalize`: combine the records every
    /// rank has (`shared` ids, the same list on every rank) into rank -1
    /// records, usually with `RecordSet::reduce_shared`. Called on every
    /// rank (collectively) when `shared` is not empty, unless
    /// DARSHAN_DISABLE_SHARED_REDUCTION. Non-MPI runs never call it.
    fn reduce(&self, _shared: &[u64], _comm: &dyn Comm) {}

    /// Hand the records to write, as runs of record words in the log's
    /// layout, to `emit` (called while the module holds its lock).
    fn output(&self, emit: &mut dyn FnMut(&[u64]));

    /// After shutdown: release what the module holds.
    fn cleanup(&self) {}

    /// In a forked child: forget the parent's records and start afresh.
    fn fork_child(&self) {}

    /// A process recording since its constructor learnt its MPI rank (in
    /// MPI_Init): its records, existing and future, carry it.
    fn set_rank(&self, _rank: i64) {}
}
