//! The HEATMAP module: one record per source module (POSIX, STDIO, ...)
//! with the bytes read and written in each time bin (docs/counter-rules.md §5).
//!
//! It owns the record memory (8 heatmaps, as Darshan reserves) and hands
//! one block to each module that names a heatmap (`Module::heat_name`) at
//! start-up (`runtime::connect_heatmaps`); the module updates its bins under
//! its own lock with the ticks it already has (no extra lock or clock read
//! per call), finishes them at shutdown, and this module writes them.
#![forbid(unsafe_code)]

use darshan_core::arena::Slice;
use darshan_core::heatmap::{HeatBins, HEAT_WORDS};
use darshan_core::ledger::Ledger;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{runtime, Env, Module, ModuleSpec};
use darshan_log::modules::HEATMAP as ID;

/// Heatmaps Darshan reserves room for.
pub const MAX_HEATMAPS: usize = 8;

pub struct State {
    blocks: Vec<&'static mut [u64]>,
    rank: i64,
    ledger: Option<&'static Ledger>,
}

pub struct Heatmap {
    st: Lock<State>,
}

pub static HEATMAP: Heatmap = Heatmap { st: Lock::new(State { blocks: Vec::new(), rank: 0, ledger: None }) };

impl Heatmap {
    fn lock(&self) -> LockGuard<'_, State> {
        self.st.lock()
    }

    /// A heatmap for the source named `name` (`heatmap:POSIX`) with bins
    /// of 2^shift ticks; None when the module is disabled or full.
    pub fn take(&self, name: &'static [u8], shift: u32) -> Option<HeatBins> {
        let mut st = self.lock();
        let ledger = st.ledger?;
        let block = st.blocks.pop()?;
        let id = darshan_log::record_id(name);
        if !ledger.register_name(ID, id, name) {
            return None;
        }
        HeatBins::new(block, name, st.rank, shift, ledger)
    }
}

const SPEC: ModuleSpec = ModuleSpec::new(ID, HEAT_WORDS).fixed_records(MAX_HEATMAPS);

impl Module for Heatmap {
    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    fn attach(&self, slice: Slice, env: &Env) {
        let mut st = self.lock();
        st.rank = env.rank;
        st.ledger = Some(env.ledger);
        // Backed whole now: the blocks are handed out as plain memory
        // (before the crash-safe file exists, the file is made with the
        // heatmap area given whole, logmap::LogMap::make_file).
        let mut slice = slice;
        let mut rest = if slice.back(slice.reserved_len()) { slice.into_backed() } else { &mut [] };
        let mut blocks = Vec::with_capacity(MAX_HEATMAPS);
        while rest.len() >= HEAT_WORDS {
            let (block, tail) = rest.split_at_mut(HEAT_WORDS);
            blocks.push(block);
            rest = tail;
        }
        blocks.reverse(); // `take` pops: the first source gets the first block
        st.blocks = blocks;
    }

    fn take_heat(&self, name: &'static [u8], shift: u32) -> Option<HeatBins> {
        self.take(name, shift)
    }

    /// Every module's heatmap, in id order (POSIX, MPI-IO, STDIO, ...).
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        for m in runtime::modules() {
            m.heat_record(emit);
        }
    }
}
