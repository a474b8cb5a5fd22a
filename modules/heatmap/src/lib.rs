//! The HEATMAP module: one record per source module (POSIX, MPI-IO,
//! STDIO) with the bytes read and written in each time bin
//! (docs/counter-rules.md §5).
//!
//! One way, as C Darshan does it: at attach it gives its record memory
//! (one heatmap per source) to the process's heat maps (its `Env`'s
//! `heat`); each source takes its bins from there in its own attach,
//! updates them under its own lock with the ticks it already has (no extra
//! lock or clock read per call), and leaves its finished record there at
//! shutdown; this module writes what was left. It knows no other module.
#![forbid(unsafe_code)]

use darshan_core::arena::Slice;
use darshan_core::heatmap::{Heatmaps, HEAT_WORDS};
use darshan_core::{Env, Module, ModuleSpec};
use darshan_log::modules::HEATMAP as ID;

/// One heatmap per source module (POSIX, MPI-IO, STDIO:
/// `darshan_log::modules::heat_name`). C Darshan reserves room for 8; the
/// other 5 were 16 KB of zeros written into every crash-safe file at its
/// creation, in every process's first I/O.
pub const MAX_HEATMAPS: usize = 3;

pub struct Heatmap {
    /// The heat maps this module's memory went to (none before attach).
    keeper: std::sync::OnceLock<&'static Heatmaps>,
}

impl Heatmap {
    pub const fn new() -> Heatmap {
        Heatmap { keeper: std::sync::OnceLock::new() }
    }
}

impl Default for Heatmap {
    fn default() -> Self {
        Heatmap::new()
    }
}

pub static HEATMAP: Heatmap = Heatmap::new();

const SPEC: ModuleSpec = ModuleSpec::new(ID, HEAT_WORDS).fixed_records(MAX_HEATMAPS);

impl Module for Heatmap {
    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    fn attach(&self, slice: Slice, env: &Env) {
        // Backed whole now: the blocks are handed out as plain memory
        // (before the crash-safe file exists, the file is made with the
        // heatmap area given whole, logmap::LogMap::make_file).
        let mut slice = slice;
        let words: &'static mut [u64] = if slice.back(slice.reserved_len()) { slice.into_backed() } else { &mut [] };
        env.heat.provide(words, env.ledger);
        let _ = self.keeper.set(env.heat);
    }

    /// The sources' finished heat maps, in id order (POSIX, MPI-IO, STDIO).
    fn output(&self, emit: &mut dyn FnMut(&[u64])) {
        if let Some(keeper) = self.keeper.get() {
            keeper.output(emit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_core::arena::RecordArena;
    use darshan_core::config::Config;
    use darshan_core::records::{FinalizeCtx, RecordSet};

    /// The one-way heat map, end to end with no process-wide runtime: a
    /// HEATMAP and a POSIX record set attached with one `Env`; the source
    /// takes its bins in its attach, counts, finishes at shutdown, and
    /// HEATMAP writes the record named `heatmap:POSIX` with the bytes.
    #[test]
    fn a_source_takes_its_bins_at_attach_and_heatmap_writes_them() {
        let mut cfg = Config::default();
        cfg.mod_enabled[ID] = true;
        cfg.mod_enabled[darshan_log::modules::POSIX] = true;
        let env = Env::for_config(cfg);
        let arena: &'static mut RecordArena = Box::leak(Box::new(RecordArena::new(1 << 20).unwrap()));
        let heat = Heatmap::new();
        heat.attach(arena.reserve_for(ID, HEAT_WORDS, MAX_HEATMAPS), &env);
        let mut posix: RecordSet<()> = RecordSet::new(darshan_log::modules::POSIX);
        posix.attach(arena.reserve_for(darshan_log::modules::POSIX, 4, 4), &env);
        posix.heat_add(true, 4096, 0, 1);
        posix.finalize(&FinalizeCtx::one_process(1.0, 10), 0..0);
        let mut recs = Vec::new();
        heat.output(&mut |r| recs.push(r.to_vec()));
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0][0], darshan_log::record_id(b"heatmap:POSIX"));
        let written: i64 = recs[0][6..6 + recs[0][3] as usize].iter().map(|w| *w as i64).sum();
        assert_eq!(written, 4096);
    }
}
