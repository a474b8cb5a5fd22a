//! The BG/Q module (BG/Q version 2): one record per job describing the
//! Blue Gene/Q partition it ran on, as darshan-bgq.c makes it: the control
//! system's job id, compute nodes, ranks per node, memory per node, the
//! torus dimensions and which of them wrap around, and the number of
//! distinct I/O nodes serving the job's ranks.
//!
//! It intercepts nothing. At start-up the runtime asks a [`BgqPlatform`]
//! for this process's node ([`Node`]) and, if there is one, the record is
//! made from it ([`Bgq::capture`]). The platform is the BG/Q kernel on a
//! BG/Q (`ffi`, built only for BG/Q targets), a recorded personality for
//! tests ([`Recorded`], `DARSHAN_BGQ_PERSONALITY`), and nothing
//! everywhere else: no node, no record, no cost.
//!
//! At an MPI shutdown rank 0's record becomes the job's (rank -1) and its
//! INODES, until then this rank's I/O node id, becomes the number of
//! distinct I/O node ids over the ranks; every other rank writes none.
//! A program without MPI keeps its record as captured (rank 0, INODES the
//! I/O node id), as the C module does.
#![forbid(unsafe_code)]

mod recorded;

use darshan_core::arena::Slice;
use darshan_core::collective::Comm;
use darshan_core::common::Tick;
use darshan_core::records::{RecordSet, Records};
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{Env, FinalizeCtx, Module, ModuleSpec};
use darshan_core::{LockedState, ModuleState};
use darshan_log::counters::bgq::typed as c;
use darshan_log::modules::BGQ as ID;

pub use recorded::Recorded;

/// The record's name, hashed into its id (the record itself is registered
/// with no name, as darshan-bgq.c registers it; darshan-parser prints this
/// name for it).
pub const RECORD_NAME: &[u8] = b"darshan-bgq-record";

/// What the BG/Q kernel says about this process's node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// The control system's job id (Kernel_GetJobID).
    pub job_id: i64,
    /// Processes on this node (Kernel_ProcessCount).
    pub ranks_per_node: i64,
    /// The I/O node serving this node (MPIX_IO_node_id).
    pub io_node_id: i64,
    /// The personality (Kernel_GetPersonality); None where the kernel
    /// refused it, which leaves those counters zero as in C.
    pub personality: Option<Personality>,
}

/// The partition, from the node's personality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Personality {
    /// Compute nodes of the partition (ND_TORUS_SIZE).
    pub nodes: i64,
    /// The torus's A, B, C, D and E dimensions.
    pub dims: [i64; 5],
    /// Whether each dimension wraps around (a torus, not a mesh).
    pub torus: [bool; 5],
    /// DDR memory per node, MiB.
    pub ddr_mb: i64,
}

/// Where the node description comes from: the hardware on a BG/Q, a
/// recording in tests.
pub trait BgqPlatform {
    /// This process's node (MPI rank `rank`, 0 without MPI); None where
    /// there is no BG/Q.
    fn node(&self, rank: i64) -> Option<Node>;
}

/// The counters of a node, as darshan-bgq.c's `capture` sets them.
pub fn counters(node: &Node) -> [i64; c::NUM_INDICES] {
    let mut k = [0i64; c::NUM_INDICES];
    k[c::CSJOBID.index()] = node.job_id;
    k[c::RANKSPERNODE.index()] = node.ranks_per_node;
    k[c::INODES.index()] = node.io_node_id;
    if let Some(p) = &node.personality {
        k[c::NNODES.index()] = p.nodes;
        k[c::ANODES.index()..=c::ENODES.index()].copy_from_slice(&p.dims);
        k[c::TORUSENABLED.index()] = p.torus.iter().enumerate().map(|(i, &on)| (on as i64) << i).sum();
        k[c::DDRPERNODE.index()] = p.ddr_mb;
    }
    k
}

/// How many distinct I/O node ids the ranks reported (BGQ_INODES of the
/// job's record).
pub fn distinct_io_nodes(ids: &[u64]) -> i64 {
    let mut v = ids.to_vec();
    v.sort_unstable();
    v.dedup();
    v.len() as i64
}

pub struct Bgq {
    state: Lock<State>,
}

struct State {
    set: RecordSet<()>,
    /// Rank 0's record made the job's by `reduce`: kept apart, so that the
    /// crash-safe file keeps the record as captured (darshan-merge makes
    /// the job's from the ranks' own if the log is never written).
    job: Option<[u64; c::RECORD_WORDS]>,
}

pub static BGQ: Bgq = Bgq::new();

impl Default for Bgq {
    fn default() -> Self {
        Bgq::new()
    }
}

impl Bgq {
    /// An empty, unattached instance: the process's is [`BGQ`]; a test
    /// builds its own.
    pub const fn new() -> Bgq {
        Bgq { state: Lock::new(State { set: RecordSet::new(ID), job: None }) }
    }

    fn lock(&self) -> LockGuard<'_, State> {
        self.state.lock()
    }

    /// Start-up: make the job's record from `node`, at clock tick `now`.
    /// False if the module has no room for it (switched off, or no memory
    /// left: then the module is marked partial).
    pub fn capture(&self, node: &Node, now: Tick) -> bool {
        let mut st = self.lock();
        let Some(i) = st.set.find_or_create(darshan_log::record_id(RECORD_NAME), b"") else { return false };
        let w = st.set.words(i);
        for (k, v) in c::Counter::all().zip(counters(node)) {
            w[c::word(k)] = v as u64;
        }
        w[c::fword(c::F_TIMESTAMP)] = now as u64;
        true
    }
}

const SPEC: ModuleSpec = ModuleSpec::new(ID, c::RECORD_WORDS).fixed_records(1);

impl ModuleState for State {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
}

impl Module for Bgq {
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.state)
    }

    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    fn attach(&self, slice: Slice, env: &Env) {
        let mut st = self.lock();
        st.set.attach(slice, env);
        st.job = None;
    }
    fn finalize(&self, ctx: &FinalizeCtx) {
        // The timestamp from ticks to seconds since start-up.
        self.lock().set.finalize(ctx, c::FCOUNTERS_AT..c::RECORD_WORDS);
    }
    /// Collective: every rank with the record (all of them, its id being
    /// shared) sends its I/O node id to rank 0, whose record becomes the
    /// job's.
    fn reduce(&self, shared: &[u64], comm: &dyn Comm) {
        let id = darshan_log::record_id(RECORD_NAME);
        if !shared.contains(&id) {
            return;
        }
        let mut st = self.lock();
        let Some(i) = st.set.find(id) else { return };
        let mut job = [0u64; c::RECORD_WORDS];
        job.copy_from_slice(st.set.record(i));
        let ids = comm.gather_u64s(&[job[c::word(c::INODES)]]);
        if comm.rank() == 0 {
            job[1] = -1i64 as u64;
            // -1 where MPI failed, as C's where its buffer could not be had.
            let n = if ids.is_empty() { -1 } else { distinct_io_nodes(&ids) };
            job[c::word(c::INODES)] = n as u64;
            st.job = Some(job);
        }
    }
    /// Rank 0's record only (the job's after `reduce`): the other ranks'
    /// describe the same partition.
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        let st = self.lock();
        match &st.job {
            Some(job) => emit(job),
            None if st.set.rank() == 0 => st.set.output_all(emit),
            None => {}
        }
    }
    /// Every rank's record takes part in the reduction, though only rank
    /// 0 writes one.
    fn record_ids(&self, f: &mut dyn FnMut(u64)) {
        let st = self.lock();
        (0..st.set.len()).for_each(|i| f(st.set.record(i)[0]));
    }
    /// A forked child describes no job of its own (and BG/Q's kernel has
    /// no fork).
    fn fork_child(&self) {
        let mut st = self.lock();
        st.set.clear();
        st.job = None;
    }
}

#[cfg(test)]
mod tests;
