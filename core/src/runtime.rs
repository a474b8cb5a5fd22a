//! The runtime as one value: [`Core`] holds what the process's runtime
//! keeps (set-up, ledger, times, record memory, module registry, heat maps,
//! lost calls), reached through one global default, [`core()`], as
//! tracing's `Dispatch` is; a test can build its own. Its protocols
//! (start, join MPI, fork, finish) are its methods, in protocols.rs.
//!
//! Locking: a module's own lock is always taken before the core's name
//! lock (`Ledger::lock_names`), never the other way round; fork takes them
//! in the same order (`Core::with_all_locked`), and so does the crash-safe
//! file's maker while records wait for it ([`after_record`]).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

pub use crate::store::ledger::{Ledger, GRANT_CHUNK};

use crate::config::Config;
use crate::contract::heatmap::Heatmaps;
use crate::contract::module::Module;
use crate::counting::mounts::MountEntry;
use crate::store::arena::RecordArena;
use crate::store::names::NameArena;
use crate::store::platform::Platform;

/// What does not change after start-up.
pub struct Shared {
    pub config: Config,
    pub mounts: Vec<MountEntry>,
    pub cmdline: String,
    pub platform: &'static dyn Platform,
    /// The bytes every module's MAX_RECORDS records take: the record
    /// memory is laid out for all of them (untouched until used), and
    /// DARSHAN_MODMEM is granted to the modules as they are first used.
    pub record_space: usize,
}

/// What changes: start time and pid change in a forked child.
#[derive(Clone, Copy, Default)]
pub struct JobTimes {
    pub start: (i64, i64),
    pub pid: i64,
    pub fork_parent: i64,
    /// Original pid (Darshan keeps the parent's for the job id after fork).
    pub first_pid: i64,
    /// The parent process: at start-up the one that started this
    /// program, in a forked child the process it was forked from.
    pub ppid: i64,
}

/// The process's runtime.
pub struct Core {
    /// Names, DARSHAN_MODMEM grants, partial flags, tick length (ledger.rs):
    /// handed to each module at attach, in its [`Env`](crate::contract::module::Env).
    pub ledger: Ledger,
    /// The heat maps (heatmap.rs): given memory by HEATMAP, bins taken by
    /// the sources, both through their `Env`.
    pub heat: Heatmaps,
    shared: OnceLock<Shared>,
    times: Mutex<JobTimes>,
    arena: Mutex<Option<RecordArena>>,
    registry: Mutex<Vec<&'static dyn Module>>,
    /// Interposed calls made by a signal handler while the runtime was
    /// recording another call on the same thread: passed through
    /// unrecorded and counted (`lost_calls=` in the job metadata).
    lost_calls: AtomicU64,
    /// Records all registered modules can hold (sizes the name index).
    capacity: AtomicUsize,
    /// What the runtime costs this process (cost.rs).
    pub cost: crate::cost::CostMeter,
}

/// The process's runtime: the one global default.
static CORE: Core = Core::new();

/// The runtime whose records the crash-safe file holds (the one that
/// registered its modules while the file was reserved): the file's maker
/// takes its locks ([`make_wanted_file`]).
static FILE_OWNER: OnceLock<&'static Core> = OnceLock::new();

/// At the end of every recorded call, holding none of the runtime's
/// locks: the crash-safe file, if a record waits for it with the
/// standard streams' (logmap::room), made with every lock taken in
/// fork's order (the waiting memory's writers kept out while it is
/// copied into the file and the file mapped under it). One load when
/// nothing waits.
#[inline(always)]
pub fn after_record() {
    if crate::store::logmap::file_wanted() {
        make_wanted_file();
    }
}

/// Make the crash-safe file now, if it is still to be made, with
/// whatever waits for it. An MPI rank does so in MPI_Init, as C Darshan
/// does: a rank that only prints would otherwise make none (its standard
/// streams wait for another record), and a killed job's merge would lack
/// it. Tens of microseconds in a call of hundreds of milliseconds. The
/// caller holds none of the runtime's locks. The areas of `early` (an
/// MPI rank's POSIX and MPI-IO, which nearly every rank records with)
/// get their first storage with the file: else the rank's first I/O
/// opened the file again to give it (about 0.1 ms on ext4, where C's
/// first I/O pays nothing of its own).
pub fn make_crash_safe_file(early: &[usize]) {
    for &id in early {
        crate::store::logmap::expect_early(id);
    }
    crate::store::logmap::want_file();
    after_record();
}

/// An exec that removed the crash-safe file failed: the file again,
/// with what the mapping holds (logmap::exec_failed), the mapping's
/// writers kept out as for [`make_wanted_file`].
#[cold]
pub fn exec_failed() {
    if let Some(c) = FILE_OWNER.get() {
        c.with_all_locked(&mut crate::store::logmap::exec_failed);
    }
}

#[cold]
fn make_wanted_file() {
    if let Some(c) = FILE_OWNER.get() {
        c.with_all_locked(&mut crate::store::logmap::make_wanted_file);
    }
}

/// The process's runtime (see [`Core`]).
#[inline]
pub fn core() -> &'static Core {
    &CORE
}

impl Default for Core {
    fn default() -> Self {
        Core::new()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Core {
    pub const fn new() -> Core {
        Core {
            ledger: Ledger::new(),
            heat: Heatmaps::new(),
            shared: OnceLock::new(),
            times: Mutex::new(JobTimes { start: (0, 0), pid: 0, fork_parent: 0, first_pid: 0, ppid: 0 }),
            arena: Mutex::new(None),
            registry: Mutex::new(Vec::new()),
            lost_calls: AtomicU64::new(0),
            capacity: AtomicUsize::new(0),
            cost: crate::cost::CostMeter::new(),
        }
    }

    /// A call re-entered the runtime from a signal handler and was not recorded.
    #[cold]
    pub fn note_lost_call(&self) {
        self.lost_calls.fetch_add(1, Ordering::Relaxed);
    }

    pub fn lost_calls(&self) -> u64 {
        self.lost_calls.load(Ordering::Relaxed)
    }

    /// The line that says which modules ran out of DARSHAN_MODMEM, if any.
    pub fn starved_message(&self) -> Option<String> {
        let bits = self.ledger.starved_bits();
        if bits == 0 {
            return None;
        }
        let names: Vec<&str> =
            (0..64).filter(|m| bits & (1u64 << m) != 0).map(darshan_log::modules::module_name).collect();
        let mib = self.config().map_or(0, |c| c.mod_mem >> 20);
        Some(format!(
            "DARSHAN_MODMEM ({mib} MiB) ran out: {} kept the records that fit and {} marked incomplete in the log; \
             set DARSHAN_MODMEM higher (or MAX_RECORDS lower for the modules that need fewer)",
            names.join(", "),
            if names.len() == 1 { "is" } else { "are" }
        ))
    }

    pub fn shared(&self) -> Option<&Shared> {
        self.shared.get()
    }

    pub fn config(&self) -> Option<&Config> {
        self.shared.get().map(|s| &s.config)
    }

    pub fn times(&self) -> JobTimes {
        *lock(&self.times)
    }

    /// The pid that stands for the job id when no job id variable is set:
    /// in an MPI job rank 0's, so that every rank names the same job.
    pub fn set_job_pid(&self, pid: i64) {
        lock(&self.times).first_pid = pid;
    }

    /// Start-up: keep the configuration and the mount table, reserve the
    /// name and record memory — in the crash-safe file `mmap` if given,
    /// else on the heap. An error line if that memory cannot be had (or
    /// the runtime was already initialised): the caller then disables the
    /// runtime. Ok(Some) is a warning: the crash-safe file could not be
    /// made, memory is used.
    pub fn init(
        &self,
        shared: Shared,
        start: (i64, i64),
        pid: i64,
        mmap: Option<String>,
    ) -> Result<Option<String>, String> {
        if self.shared.get().is_some() {
            return Err("already initialised".into());
        }
        let name_mem = shared.config.name_mem;
        // DXT's traces have memory of their own, after DARSHAN_MODMEM's.
        use darshan_log::modules::{DXT_IO_URING, DXT_MPIIO, DXT_POSIX};
        let dxt = [DXT_POSIX, DXT_MPIIO, DXT_IO_URING].map(|m| (m, shared.config.dxt_reserve(m)));
        let mod_mem = dxt.iter().fold(shared.config.mod_mem.max(shared.record_space), |n, (_, b)| n.saturating_add(*b));
        let (names, mut arena, warning) = reserve_memory(name_mem, mod_mem, mmap, shared.platform)?;
        for (m, bytes) in dxt.into_iter().filter(|(_, b)| *b > 0) {
            arena.set_aside(m, bytes);
        }
        self.ledger.set_budget(shared.config.mod_mem);
        self.ledger.set_enabled(&shared.config.mod_enabled);
        self.ledger.report_to_file();
        if self.shared.set(shared).is_err() {
            return Err("already initialised".into());
        }
        let ppid = i64::from(std::os::unix::process::parent_id());
        *lock(&self.times) = JobTimes { start, pid, fork_parent: 0, first_pid: pid, ppid };
        self.ledger.install_names(names);
        *lock(&self.arena) = Some(arena);
        Ok(warning)
    }

    /// Register modules together: each reserves its records (MAX_RECORDS,
    /// or what is left of the record memory; nothing for a module the
    /// ledger has off), then the name index is sized once for all of them
    /// (not rebuilt per module, a fresh page or two each time), then each
    /// attaches. DARSHAN_MODMEM is granted at a module's first record.
    pub fn register_all(&'static self, ms: &[&'static dyn Module], rank: i64) {
        let Some(shared) = self.shared() else { return };
        if crate::store::logmap::reserved() {
            let _ = FILE_OWNER.set(self);
        }
        let cfg = &shared.config;
        let env = crate::contract::module::Env {
            rank,
            ledger: &self.ledger,
            config: cfg,
            mounts: &shared.mounts,
            platform: shared.platform,
            heat: &self.heat,
        };
        let slices: Vec<crate::store::arena::Slice> = ms
            .iter()
            .map(|m| {
                let s = m.spec();
                match lock(&self.arena).as_mut() {
                    Some(a) if self.ledger.enabled(s.id) => a
                        .reserve_for(s.id, s.record_words, s.fixed_records.unwrap_or(cfg.max_records[s.id]))
                        .backed_by(crate::store::logmap::room, s.id),
                    _ => crate::store::arena::Slice::empty(s.record_words),
                }
            })
            .collect();
        let added: usize = slices.iter().map(|s| s.capacity).sum();
        let total = self.capacity.fetch_add(added, Ordering::Relaxed) + added;
        self.ledger.expect_names(total);
        // HEATMAP first: the sources' record sets take their bins from the
        // memory it gives the process's heat maps in its attach.
        let mut order: Vec<(&&'static dyn Module, crate::store::arena::Slice)> = ms.iter().zip(slices).collect();
        order.sort_by_key(|(m, _)| m.spec().id != darshan_log::modules::HEATMAP);
        for (m, slice) in order {
            let (addr, bytes) = slice.span();
            if bytes > 0 {
                crate::store::logmap::module_registered(m.spec().id, addr, bytes, m.mapped_version());
            }
            m.attach(slice, &env);
            if let (Some(lock), Some(word)) = (m.records(), crate::store::logmap::live_word(m.spec().id)) {
                lock.publish(word);
            }
            let mut reg = lock(&self.registry);
            reg.push(*m);
            reg.sort_by_key(|m| m.spec().id);
        }
    }

    /// The version written in the log header for module `id`: the
    /// registered module's (DXT's depends on the configuration), else this
    /// library's.
    pub fn module_version(&self, id: usize) -> u32 {
        match lock(&self.registry).iter().find(|m| m.spec().id == id) {
            Some(m) => m.version(),
            None => darshan_log::modules::write_version(id),
        }
    }

    pub fn modules(&self) -> Vec<&'static dyn Module> {
        lock(&self.registry).clone()
    }

    /// `f` of every registered module, without a copy of the list (the
    /// shutdown asks about them before it may allocate).
    pub fn each_module(&self, f: &mut dyn FnMut(&'static dyn Module)) {
        lock(&self.registry).iter().for_each(|m| f(*m));
    }

    /// fork(): run `f` (the fork) with every module's lock held (in the
    /// registry's order), then the core's (names, times), so that the
    /// child inherits no lock that another thread held. No allocation: the
    /// registry stays locked across the call too.
    pub fn with_all_locked(&self, f: &mut dyn FnMut()) {
        fn nest(core: &Core, mods: &[&'static dyn Module], f: &mut dyn FnMut()) {
            match mods.split_first() {
                None => {
                    let _names = core.ledger.lock_names();
                    let _times = lock(&core.times);
                    f()
                }
                Some((m, rest)) => crate::contract::module::while_locked(*m, &mut || nest(core, rest, f)),
            }
        }
        let reg = lock(&self.registry);
        nest(self, &reg, f);
    }

    /// In a forked child, with the locks released: a fresh record set.
    /// `mmap`: the child's own crash-safe file (made before anything is
    /// cleared, so the parent's file is never written by the child).
    pub fn fork_child(&self, start: (i64, i64), pid: i64, mmap: Option<String>) -> Option<String> {
        {
            let mut t = lock(&self.times);
            t.fork_parent = t.pid;
            t.ppid = t.pid;
            t.pid = pid;
            t.start = start;
        }
        if let Some(p) = mmap.filter(|_| crate::store::logmap::reserved()) {
            if let Err(e) = crate::store::logmap::fork_child(p) {
                // Still its parent's file under the records: clearing them
                // would write zeros into the parent's live records. The
                // child records nothing (the caller disables it).
                return Some(e.to_string());
            }
        }
        self.ledger.fork_child();
        self.lost_calls.store(0, Ordering::Relaxed);
        for m in self.modules() {
            m.fork_child();
        }
        crate::store::logmap::arm();
        None
    }
}

/// The name and record memory: in the crash-safe file's reserved mapping
/// when `mmap` names one (a warning when it cannot be had), else on the
/// heap (an error when that cannot be had either).
fn reserve_memory(
    name_mem: usize,
    mod_mem: usize,
    mmap: Option<String>,
    platform: &'static dyn Platform,
) -> Result<(NameArena, RecordArena, Option<String>), String> {
    let mut warning = None;
    if let Some(path) = mmap {
        match crate::store::arena::reserve_mapping(crate::store::logmap::file_len(name_mem, mod_mem)) {
            Some(mem) => {
                let (names, mods) = crate::store::logmap::install(mem, name_mem, path, platform);
                if let Some((w, n)) = crate::store::arena::as_words(mods).zip(NameArena::in_place(names)) {
                    return Ok((n, RecordArena::from_words(w), None));
                }
            }
            None => warning = Some("cannot reserve memory for the crash-safe log; records kept in memory".into()),
        }
    }
    let names = NameArena::new(name_mem).ok_or(format!("cannot reserve DARSHAN_NAMEMEM ({} MiB)", name_mem >> 20))?;
    let arena = RecordArena::new(mod_mem).ok_or(format!("cannot reserve DARSHAN_MODMEM ({} MiB)", mod_mem >> 20))?;
    Ok((names, arena, warning))
}
