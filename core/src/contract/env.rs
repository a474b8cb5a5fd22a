//! What a module is given at attach besides its record memory: the run's
//! rank, the ledger its records report to, the configuration, the mount
//! table and the platform — all a module may know of the runtime. Its own
//! file, below both the module contract (module.rs) and the record sets
//! (records.rs), which both take it.

use crate::config::Config;
use crate::contract::heatmap::{HeatBins, Heatmaps};
use crate::counting::mounts::MountEntry;
use crate::store::ledger::Ledger;
use crate::store::platform::Platform;

/// What a module is given at attach, besides its record memory: all it
/// may know of the runtime. The runtime passes the process's; a unit test
/// builds its own ([`Env::for_tests`]), so a module's counting rules run
/// without a process-wide runtime, any number per test binary.
#[derive(Clone, Copy)]
pub struct Env {
    /// The run's rank (0 until MPI_Init says otherwise: `set_rank`).
    pub rank: i64,
    /// Budget, names and flags every module's records report to.
    pub ledger: &'static Ledger,
    pub config: &'static Config,
    /// The mount table (a record's FILE_ALIGNMENT comes from it).
    pub mounts: &'static [MountEntry],
    pub platform: &'static dyn Platform,
    /// The process's heat maps: HEATMAP gives them memory, the sources
    /// take their bins from them ([`Env::heat_bins`]).
    pub heat: &'static Heatmaps,
}

impl Env {
    /// A test's own, with the default configuration: see [`Env::for_config`].
    pub fn for_tests() -> Env {
        Env::for_config(Config::default())
    }

    /// A test's own: a fresh ledger (1 MiB of names, the modules `config`
    /// switches on, no DARSHAN_MODMEM limit: the test's slices bound the
    /// records), no mounts, a fake platform, rank 0.
    pub fn for_config(config: Config) -> Env {
        let config: &'static Config = Box::leak(Box::new(config));
        Env {
            rank: 0,
            ledger: Ledger::for_tests(1 << 20, &config.mod_enabled),
            config,
            mounts: &[],
            platform: Box::leak(Box::<crate::store::platform::FakePlatform>::default()),
            heat: Box::leak(Box::default()),
        }
    }

    pub fn with_rank(self, rank: i64) -> Env {
        Env { rank, ..self }
    }

    pub fn with_mounts(self, mounts: Vec<MountEntry>) -> Env {
        Env { mounts: mounts.leak(), ..self }
    }

    /// The heat-map bins of `module`, if the format gives it a heat map
    /// (`darshan_log::modules::heat_name`) and HEATMAP has room; bins as
    /// wide as the platform's clock makes about 0.1 s.
    pub fn heat_bins(&self, module: usize) -> Option<HeatBins> {
        let name = darshan_log::modules::heat_name(module)?;
        let shift = crate::contract::heatmap::shift_for(self.platform.ticks_per_sec_now());
        self.heat.take(module, name, self.rank, shift)
    }

    /// File alignment of a record name from the mount table (-1 if none):
    /// its mount's block size, asked of the file system (statfs) the first
    /// time. Not under a module's lock: statfs of a Lustre mount asks every
    /// server, and one that is down holds it up.
    pub fn alignment_of(&self, name: &[u8]) -> i64 {
        crate::counting::mounts::alignment_of(self.mounts, name, self.platform)
    }

    /// `alignment_of` if known without asking the file system.
    pub fn known_alignment_of(&self, name: &[u8]) -> Option<i64> {
        crate::counting::mounts::known_alignment_of(self.mounts, name)
    }
}
