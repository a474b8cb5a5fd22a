//! AutoPerf's MPI module (APMPI, id 14, version 1): what a C Darshan
//! built with `--enable-apmpi-mod` records of each rank's MPI calls
//! (argonne-lcf/autoperf's `darshan-apmpi.c`, the commit Darshan 3.5.0
//! pins, with 3.5.0's patch). Per MPI operation: calls, bytes and a
//! histogram of message sizes (for those that move data), total, least
//! and most seconds per call, and for the blocking collectives, when
//! collectives are synchronised first (`--enable-apmpi-coll-sync`), the
//! seconds spent in that barrier. Off unless switched on
//! (`DARSHAN_MOD_ENABLE=APMPI`, or `install.sh --enable-apmpi-mod`).
//!
//! The records are made at this rank's first call the module sees after
//! MPI_Init, as C registers the module then: one of 654 words per rank
//! ("APMPI", its processor name) and a 6-word header ("darshan-apmpi-
//! header": magic, sync flag, and at shutdown the variance over the ranks
//! of their communication and sync times). Rank 0 writes the header
//! first, then its own record; the other ranks write theirs. Every rank
//! keeps a header in its crash-safe file, so that each file reads on its
//! own (C's other ranks' files start with a rank's record, which
//! AutoPerf's reader takes for a header).
//!
//! At an MPI shutdown, as C's `apmpi_mpi_redux` (which Darshan runs only
//! when every rank has the record and shared reductions are on): each
//! rank's total communication time (every operation's total time plus
//! its sync times) and sync time, and the header's two variances on rank
//! 0. Times are seconds as the calls return (C keeps doubles too), so a
//! crash-safe file holds them as a log does; at shutdown they are scaled
//! to the clock's rate measured over the whole run.
#![forbid(unsafe_code)]

mod layout;

use darshan_core::arena::Slice;
use darshan_core::collective::{variance_combine, variance_elem, variance_of, Comm};
use darshan_core::ledger::Ledger;
use darshan_core::records::Records;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::var_records::VarRecordSet;
use darshan_core::{Env, FinalizeCtx, LockedState, Module, ModuleSpec, ModuleState};
use darshan_log::counters::apmpi as f;
use darshan_log::modules::APMPI as ID;
use std::sync::atomic::{AtomicBool, Ordering};

pub use layout::{bucket, c_bytes, OpId, HEADER_ID, HEADER_NAME, HEADER_WORDS, PERF_ID, PERF_NAME, PERF_WORDS};
use layout::{record_len, COUNTERS_AT, F_GLOBAL_AT, F_SYNC_AT, F_TIME_AT, NODE_AT};

pub struct Apmpi {
    state: Lock<State>,
    /// Collectives are timed after a barrier on their communicator, whose
    /// time is their sync time (the header's sync flag).
    sync: AtomicBool,
}

struct State {
    set: VarRecordSet,
    /// Word offsets of this rank's header and own record, once made.
    header: Option<usize>,
    perf: Option<usize>,
    /// The records were asked for (made or refused): never again.
    tried: bool,
    /// This rank's processor name (MPI_Get_processor_name at MPI_Init).
    node: [u8; f::NAME_MAX],
    /// Seconds per clock tick.
    tick_secs: f64,
    /// Where the records' names go (given at attach).
    ledger: Option<&'static Ledger>,
}

pub static APMPI: Apmpi = Apmpi::new();

impl Default for Apmpi {
    fn default() -> Self {
        Apmpi::new()
    }
}

impl Apmpi {
    /// An empty, unattached instance: the process's is [`APMPI`]; a test
    /// builds its own.
    pub const fn new() -> Apmpi {
        Apmpi {
            state: Lock::new(State {
                set: VarRecordSet::new(ID, record_len, HEADER_WORDS),
                header: None,
                perf: None,
                tried: false,
                node: [0; f::NAME_MAX],
                tick_secs: 0.0,
                ledger: None,
            }),
            sync: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.state.lock()
    }

    /// At MPI_Init: this rank's processor name (cut at 128 bytes, as C's
    /// `strncpy`), and whether collectives are synchronised.
    pub fn start(&self, processor: &[u8], sync: bool) {
        let mut st = self.lock();
        let n = processor.len().min(f::NAME_MAX);
        st.node = [0; f::NAME_MAX];
        st.node[..n].copy_from_slice(&processor[..n]);
        self.sync.store(sync, Ordering::Relaxed);
    }

    /// Whether a blocking collective is to be timed after a barrier.
    #[inline]
    pub fn sync_collectives(&self) -> bool {
        self.sync.load(Ordering::Relaxed)
    }

    /// Operation `op` returned MPI_SUCCESS after `ticks`, having moved
    /// `bytes` (None for an operation that moves none), after `sync_ticks`
    /// in a barrier (the synchronised collectives).
    pub fn on_call(&self, op: OpId, bytes: Option<i64>, ticks: i64, sync_ticks: Option<i64>) {
        let mut st = self.lock();
        let Some(at) = st.records(self.sync_collectives()) else { return };
        let tick_secs = st.tick_secs;
        let secs = ticks as f64 * tick_secs;
        let w = st.set.record_mut(at);
        let k = op.get();
        add(&mut w[COUNTERS_AT + k.calls], 1);
        if let (Some(b), Some(bi)) = (bytes, k.bytes) {
            add(&mut w[COUNTERS_AT + bi], b);
            add(&mut w[COUNTERS_AT + bi + 1 + bucket(b)], 1);
        }
        let t = F_TIME_AT + 3 * op.index();
        let total = fget(w[t]) + secs;
        // C's MIN: a least time of 0 is none yet.
        let least = fget(w[t + 1]);
        let least = if least == 0.0 || secs < least { secs } else { least };
        let most = fget(w[t + 2]);
        let most = if most > secs { most } else { secs };
        (w[t], w[t + 1], w[t + 2]) = (total.to_bits(), least.to_bits(), most.to_bits());
        if let (Some(s), Some(si)) = (sync_ticks, op.sync_index()) {
            w[F_SYNC_AT + si] = (fget(w[F_SYNC_AT + si]) + s as f64 * tick_secs).to_bits();
        }
    }

    /// This rank's own record's words (tests).
    pub fn own_record(&self) -> Option<Vec<u64>> {
        let st = self.lock();
        st.perf.map(|at| st.set.record(at).to_vec())
    }
}

impl State {
    /// This rank's own record, made with the header (its sync flag
    /// `sync`) at the first call; None when the module is off, frozen or
    /// has no room.
    fn records(&mut self, sync: bool) -> Option<usize> {
        if !self.tried && !self.set.frozen() {
            self.tried = true;
            self.make_records(sync);
        }
        self.perf.filter(|_| !self.set.frozen())
    }

    fn make_records(&mut self, sync: bool) {
        let Some(ledger) = self.ledger else { return };
        let Some(h) = self.set.create(HEADER_ID, HEADER_WORDS, &[]) else { return };
        let w = self.set.record_mut(h);
        w[2] = f::MAGIC as u64;
        w[3] = sync as u64;
        let Some(p) = self.set.create(PERF_ID, PERF_WORDS, &[]) else { return };
        // As C registers them: the header's name, then the record's.
        if !ledger.register_name(ID, HEADER_ID, HEADER_NAME) || !ledger.register_name(ID, PERF_ID, PERF_NAME) {
            return;
        }
        let node = self.node;
        for (w, c) in self.set.record_mut(p)[NODE_AT..NODE_AT + f::NAME_MAX / 8].iter_mut().zip(node.chunks_exact(8)) {
            *w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        }
        (self.header, self.perf) = (Some(h), Some(p));
    }

    /// C's `apmpi_mpi_redux` totals (`counters::apmpi::rank_totals`),
    /// written into the record.
    fn totals(&mut self) -> Option<(f64, f64)> {
        let w = self.set.record_mut(self.perf?);
        let (comm, sync) = f::rank_totals(fget(w[F_GLOBAL_AT]), |i| fget(w[F_TIME_AT + i]), |i| fget(w[F_SYNC_AT + i]));
        w[F_GLOBAL_AT] = comm.to_bits();
        w[F_GLOBAL_AT + 1] = sync.to_bits();
        Some((comm, sync))
    }
}

fn fget(w: u64) -> f64 {
    f64::from_bits(w)
}

/// C's `+=` on a `int64_t` counter, which wraps.
fn add(w: &mut u64, v: i64) {
    *w = (*w as i64).wrapping_add(v) as u64;
}

const SPEC: ModuleSpec = ModuleSpec::new(ID, PERF_WORDS).fixed_records(2).mpi_only();

impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
}

impl Module for Apmpi {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.state)
    }
    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }
    fn version(&self) -> u32 {
        f::VERSION
    }
    fn record_len(&self, rec: &[u64]) -> usize {
        record_len(rec)
    }
    fn attach(&self, slice: Slice, env: &Env) {
        let mut st = self.lock();
        st.set.attach(slice, env);
        st.tick_secs = env.ledger.tick_secs();
        st.ledger = Some(env.ledger);
        (st.header, st.perf, st.tried) = (None, None, false);
    }
    /// Frozen, and the times made exact: they were made seconds at each
    /// call with the clock's rate as known at attach, the shutdown knows
    /// it over the whole run (what the other modules' ticks are turned
    /// into seconds with).
    fn finalize(&self, ctx: &FinalizeCtx) {
        let mut st = self.lock();
        st.set.freeze();
        if st.set.rank() != ctx.rank {
            st.set.set_rank(ctx.rank);
        }
        let scale = ctx.secs_per_tick / st.tick_secs;
        if let (Some(p), true) = (st.perf, scale.is_finite() && scale > 0.0) {
            for w in &mut st.set.record_mut(p)[F_TIME_AT..F_GLOBAL_AT] {
                *w = (fget(*w) * scale).to_bits();
            }
        }
    }
    /// Collective over the ranks that share the record (all of them):
    /// the totals, and the variances onto rank 0's header.
    fn reduce(&self, shared: &[u64], comm: &dyn Comm) {
        if !shared.contains(&PERF_ID) {
            return;
        }
        let mut st = self.lock();
        let Some((time, sync)) = st.totals() else { return };
        let send = [variance_elem(time), variance_elem(sync)].concat();
        let mut out = [0u64; 6];
        let ok = comm.reduce_elems(&send, &mut out, 3, &variance_combine);
        if let (true, 0, Some(h)) = (ok, comm.rank(), st.header) {
            let w = st.set.record_mut(h);
            w[4] = variance_of(&out[..3]).to_bits();
            w[5] = variance_of(&out[3..]).to_bits();
        }
    }
    /// Rank 0: the header, then its own record; another rank: its own.
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        let st = self.lock();
        if let (0, Some(h)) = (st.set.rank(), st.header) {
            emit(st.set.record(h));
        }
        if let Some(p) = st.perf {
            emit(st.set.record(p));
        }
    }
    /// The ids the ranks agree on: every rank's own record, and rank 0's
    /// header (C registers it there only), so that only the record is
    /// shared and the log's name table is C's.
    fn record_ids(&self, f: &mut dyn FnMut(u64)) {
        let st = self.lock();
        if let (0, Some(_)) = (st.set.rank(), st.header) {
            f(HEADER_ID);
        }
        if st.perf.is_some() {
            f(PERF_ID);
        }
    }
    fn fork_child(&self) {
        let mut st = self.lock();
        st.set.clear();
        (st.header, st.perf, st.tried) = (None, None, false);
    }
}

#[cfg(test)]
mod tests;
