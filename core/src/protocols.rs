//! The runtime's protocols, each written once, as methods of [`Core`]:
//! start, join MPI, fork (the whole lock order), finish and finish under
//! MPI. ffi calls each from one frame (the library constructor, MPI_Init,
//! fork, the destructor or `_exit`, MPI_Finalize) that keeps the life
//! cycle and the per-thread guard, and supplies what only the platform
//! knows through [`Platform`]: the clock, the mount table, the log
//! directory's check, the standard streams.

use crate::config::Config;
use crate::contract::module::Module;
use crate::counting::collective::Comm;
use crate::finish::pipeline::ShutdownError;
use crate::finish::shutdown::{self, Outcome};
use crate::runtime::{Core, Shared};
use crate::store::platform::Platform;

/// Where this process stands in its job, as start-up learns it.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// The MPI rank, or 0.
    pub rank: i64,
    pub nprocs: i64,
    /// Started in MPI_Init: an excluded rank is still set up (recording
    /// nothing) so that it takes part in the collective shutdown.
    pub mpi: bool,
    /// The random part of the crash-safe file's name (rank 0's in an MPI
    /// job).
    pub logmod: u64,
    /// The pid that stands for the job id when no job id variable is set
    /// (rank 0's in an MPI job).
    pub job_pid: i64,
    /// When this start-up began (the constructor's or MPI_Init's entry):
    /// the crash-safe file's job record states its cost so far.
    pub began: std::time::Instant,
}

#[derive(PartialEq, Eq, Debug, Clone, Copy)]
pub enum Started {
    /// Recording.
    Yes,
    /// Set up but not recording: this rank or program is excluded (an
    /// excluded MPI rank still takes part in the shutdown).
    Excluded,
    /// Not set up (an unusable log directory, no memory).
    No,
}

/// The clock at the end of the run, as the platform reads it.
#[derive(Clone, Copy, Debug)]
pub struct End {
    /// Seconds per tick, calibrated over the whole run.
    pub secs_per_tick: f64,
    pub tick: i64,
    /// Wall clock (seconds, nanoseconds).
    pub time: (i64, i64),
}

/// A panic where DARSHAN_RS_TEST_PANIC says (`start` or `shutdown`): how
/// the tests check that a panic inside the runtime is caught (the unwinder
/// is linked statically, see ffi/build.rs) and the program runs on
/// unharmed.
pub fn test_panic(at: &str) {
    if std::env::var_os("DARSHAN_RS_TEST_PANIC").is_some_and(|v| v == at) {
        panic!("DARSHAN_RS_TEST_PANIC={at}");
    }
}

/// Why no log was written, and where the records are kept instead.
/// Formatted on the stack: the reason may be that memory ran out.
fn say_not_written(p: &dyn Platform, why: &dyn std::fmt::Display, hint: Option<&dyn std::fmt::Display>) {
    match hint {
        Some(h) => p.say_fmt(format_args!("{why}; {h}")),
        None => p.say_fmt(format_args!("{why}")),
    }
}

impl Core {
    /// Start-up of this process, `at` its place in the job, with the
    /// library's `modules` (MPI-only ones only when `at.mpi`). The caller
    /// has claimed the start (its life cycle left "not started").
    pub fn start(
        &'static self,
        cfg: Config,
        cmdline: String,
        modules: &[&'static dyn Module],
        at: Placement,
        platform: &'static dyn Platform,
    ) -> Started {
        let excluded = match admit(&cfg, &cmdline, at, platform) {
            Ok(excluded) => excluded,
            Err(refused) => return refused,
        };
        platform.start_clock();
        self.cost.calibrate(platform.clock_read_ns());
        let start = platform.realtime();
        let mmap = cfg.mmap_logs.then(|| shutdown::mmap_path(&cfg, &cmdline, at.job_pid, at.rank, at.logmod));
        let mounts = crate::counting::mounts::parse(&String::from_utf8_lossy(&platform.mount_table()));
        // After the mount table: the longer the clock has run, the better
        // the provisional tick length (and the less there is to wait for).
        self.ledger.set_tick_secs(platform.secs_per_tick(mmap.is_some()));
        platform.recording_starts(self.ledger.tick_secs());
        let dump = (cfg.dump_config && at.rank == 0).then(|| cfg.dump());
        let record_space = record_space(&cfg, modules);
        let shared = Shared { config: cfg, mounts, cmdline, platform, record_space };
        match self.init(shared, start, platform.pid(), mmap) {
            Ok(warning) => {
                self.set_job_pid(at.job_pid);
                if let Some(w) = warning {
                    platform.say(&w)
                }
            }
            Err(e) => {
                platform.say(&format!("{e}; this run is not instrumented"));
                return Started::No;
            }
        }
        platform.before_modules();
        let mods: Vec<_> = modules.iter().copied().filter(|m| at.mpi || !m.spec().mpi_only).collect();
        self.register_all(&mods, at.rank);
        shutdown::map_job((0, 0), at.nprocs, Some(self.ledger.tick_secs()), at.mpi, &self.cost.so_far(at.began));
        crate::store::logmap::arm();
        // The job's BG/Q record, on excluded ranks too: it describes the
        // job, and every rank takes part in its reduction.
        platform.after_modules(at.rank);
        if excluded {
            return Started::Excluded;
        }
        if let Some(text) = dump {
            platform.stderr(text.as_bytes());
        }
        Started::Yes
    }

    /// A process that started recording in its constructor
    /// (DARSHAN_ENABLE_NONMPI) and then called MPI_Init: the MPI-only
    /// modules of `modules` record from now on, every record carries the
    /// rank, and the crash-safe file names the job as the other ranks' do.
    pub fn join_mpi(&'static self, modules: &[&'static dyn Module], at: Placement) {
        let mods: Vec<_> = modules.iter().copied().filter(|m| m.spec().mpi_only).collect();
        self.register_all(&mods, at.rank);
        for m in self.modules() {
            m.set_rank(at.rank);
        }
        self.set_job_pid(at.job_pid);
        shutdown::map_job((0, 0), at.nprocs, Some(self.ledger.tick_secs()), true, &self.cost.so_far(at.began));
    }

    /// fork(): `real_fork` runs with every module's lock held (in the
    /// registry's order), then the core's, so that the child never
    /// inherits a lock another thread held mid-update. Before those locks
    /// are released in the child, its lock guards stop writing the live
    /// sequence words: they are still its parent's file. The child then
    /// calls [`Core::start_forked_child`].
    pub fn fork(&self, real_fork: &mut dyn FnMut() -> i32) -> i32 {
        let mut pid = -1;
        self.with_all_locked(&mut || {
            pid = real_fork();
            if pid == 0 {
                crate::store::sync::forked_child(true);
            }
        });
        pid
    }

    /// In a forked child, the locks released: its own clock, records and
    /// crash-safe file. Err: it could not let go of its parent's
    /// crash-safe file, and must not record (it would write into it).
    pub fn start_forked_child(&'static self, platform: &'static dyn Platform) -> Result<(), String> {
        let began = std::time::Instant::now();
        self.cost.forked_child();
        platform.start_clock();
        platform.recording_starts(self.ledger.tick_secs());
        let mmap = self
            .config()
            .filter(|c| c.mmap_logs && crate::store::logmap::reserved())
            .zip(self.shared())
            .map(|(c, sh)| shutdown::mmap_path(c, &sh.cmdline, platform.pid(), 0, platform.new_logmod()));
        if let Some(w) = self.fork_child(platform.realtime(), platform.pid(), mmap) {
            return Err(w);
        }
        shutdown::map_job((0, 0), 1, Some(self.ledger.tick_secs()), false, &self.cost.so_far(began));
        // Its own crash-safe file now lies under the same addresses.
        crate::store::sync::forked_child(false);
        self.cost.add_startup(began.elapsed());
        Ok(())
    }

    /// The end of a process on its own: its log written, and said if it
    /// could not be (with where the records are kept instead); DARSHAN_
    /// MODMEM's shortage and DARSHAN_INTERNAL_TIMING said.
    pub fn finish(&self, end: End) {
        let Some(platform) = self.shared().map(|s| s.platform) else { return };
        let timing = self.config().is_some_and(|c| c.internal_timing);
        let r = std::panic::catch_unwind(|| {
            test_panic("shutdown");
            shutdown::write_log(end.secs_per_tick, end.time, end.tick)
        });
        if let Some(m) = self.starved_message() {
            platform.say(&m);
        }
        match r {
            Ok(Ok(o)) if timing => platform.stderr(o.timing.lines(1, false).as_bytes()),
            Ok(Ok(_)) => {}
            Ok(Err(e)) => say_not_written(platform, &e, shutdown::recovery_hint().as_ref().map(|h| h as _)),
            Err(_) => {
                let why = "internal error while writing the log";
                say_not_written(platform, &why, shutdown::recovery_hint().as_ref().map(|h| h as _))
            }
        }
    }

    /// The end of an MPI job's rank, collectively in MPI_Finalize: the
    /// job's log written (shutdown_mpi.rs), its failure said once, by rank
    /// 0, as are DARSHAN_MODMEM's shortage and DARSHAN_INTERNAL_TIMING
    /// (the slowest rank's time of each step, as Darshan reports).
    pub fn finish_mpi(&self, comm: &dyn Comm, end: End) {
        let Some(platform) = self.shared().map(|s| s.platform) else { return };
        let timing = self.config().is_some_and(|c| c.internal_timing);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::finish::shutdown_mpi::write_log_mpi(comm, end.secs_per_tick, end.time, end.tick)
        }));
        let rank = comm.rank();
        // Rank 0's records speak for the job (ranks run the same program).
        if rank == 0 {
            if let Some(m) = self.starved_message() {
                platform.say(&m);
            }
        }
        match r {
            Ok(Ok(mut o)) if timing => say_mpi_timing(platform, comm, &mut o),
            Ok(Ok(_)) => {}
            // Rank 0 reports the job's failure, once.
            Ok(Err(ShutdownError::OtherRank)) => {}
            Ok(Err(e)) => say_not_written(platform, &e, shutdown::recovery_hint_mpi().as_ref().map(|h| h as _)),
            Err(_) => {
                let why = "internal error while writing the log";
                say_not_written(platform, &why, shutdown::recovery_hint_mpi().as_ref().map(|h| h as _))
            }
        }
    }
}

/// Whether this process is set up at all (Err: how start ends), and if
/// so whether it is excluded (set up, recording nothing: an MPI rank).
fn admit(cfg: &Config, cmdline: &str, at: Placement, platform: &dyn Platform) -> Result<bool, Started> {
    let exe = cmdline.split(' ').next().unwrap_or("");
    let excluded = cfg.app_excluded(exe) || cfg.rank_excluded(at.rank);
    if excluded && !at.mpi {
        return Err(Started::Excluded);
    }
    // A log directory that cannot take a log is said at once, and the run
    // goes uninstrumented: recording would only leave a crash-safe file in
    // DARSHAN_MMAP_LOGPATH (/tmp) per process, filling every node's /tmp
    // on a cluster with a mistyped path.
    if let Some(why) = shutdown::log_root(cfg).and_then(|d| platform.dir_unusable(&d)) {
        if at.rank == 0 {
            platform.say(&format!("{why}; this run is not instrumented"));
        }
        return Err(Started::No);
    }
    Ok(excluded)
}

/// The bytes every enabled module's records take at their limits, MPI-only
/// ones too (a process that starts recording before MPI_Init adds MPI-IO
/// later).
fn record_space(cfg: &Config, modules: &[&'static dyn Module]) -> usize {
    modules
        .iter()
        .map(|m| m.spec())
        .filter(|s| cfg.mod_enabled.get(s.id).copied().unwrap_or(false))
        .map(|s| s.record_words.saturating_mul(8).saturating_mul(s.fixed_records.unwrap_or(cfg.max_records[s.id])))
        .fold(0usize, usize::saturating_add)
}

fn say_mpi_timing(platform: &dyn Platform, comm: &dyn Comm, o: &mut Outcome) {
    o.timing.slowest(comm);
    if comm.rank() == 0 {
        platform.stderr(o.timing.lines(comm.size(), true).as_bytes());
    }
}
