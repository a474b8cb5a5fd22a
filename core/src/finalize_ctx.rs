//! What the shutdown tells every module (and its record set) when it
//! finalizes: below both the module contract (module.rs) and the record
//! sets (records.rs), which take it.

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
