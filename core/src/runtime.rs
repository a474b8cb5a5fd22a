//! The core's process-wide state: the life cycle, configuration, record
//! memory and the module registry; it sets up the ledger below the record
//! sets (names, DARSHAN_MODMEM grants, partial flags: ledger.rs) and
//! re-exports it, so modules and ffi keep calling `runtime::...`.
//!
//! Locking: a module's own lock is always taken before the core's name
//! lock (`with_names`), never the other way round; the fork wrapper takes
//! them in the same order (`lock_all`).

use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

pub use crate::ledger::{Ledger, GRANT_CHUNK};

use crate::arena::RecordArena;
use crate::config::Config;
use crate::module::Module;
use crate::mounts::MountEntry;
use crate::names::NameArena;
use crate::platform::Platform;

/// Life cycle of the runtime.
pub const UNINIT: u8 = 0;
pub const RUNNING: u8 = 1;
pub const SHUTTING_DOWN: u8 = 2;
pub const FINALIZED: u8 = 3;
pub const DISABLED: u8 = 4;

static STATE: AtomicU8 = AtomicU8::new(UNINIT);

/// The process's ledger (ledger.rs): handed to each module at attach, in
/// its [`Env`](crate::module::Env); the wrappers and the shutdown read
/// names and flags from it here.
pub static LEDGER: Ledger = Ledger::new();

/// The process's heat maps (heatmap.rs): given memory by HEATMAP, bins
/// taken by the sources, both through their [`Env`](crate::module::Env).
pub static HEAT: crate::heatmap::Heatmaps = crate::heatmap::Heatmaps::new();

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

static SHARED: OnceLock<Shared> = OnceLock::new();
static TIMES: Mutex<JobTimes> = Mutex::new(JobTimes { start: (0, 0), pid: 0, fork_parent: 0, first_pid: 0, ppid: 0 });
static ARENA: Mutex<Option<RecordArena>> = Mutex::new(None);
static REGISTRY: Mutex<Vec<&'static dyn Module>> = Mutex::new(Vec::new());
/// Interposed calls made by a signal handler while the runtime was
/// recording another call on the same thread: passed through unrecorded
/// and counted (`lost_calls=` in the job metadata).
static LOST_CALLS: AtomicU64 = AtomicU64::new(0);

/// A call re-entered the runtime from a signal handler and was not recorded.
#[cold]
pub fn note_lost_call() {
    LOST_CALLS.fetch_add(1, Ordering::Relaxed);
}

pub fn lost_calls() -> u64 {
    LOST_CALLS.load(Ordering::Relaxed)
}
/// Records all registered modules can hold (sizes the name index).
static CAPACITY: AtomicUsize = AtomicUsize::new(0);
/// The line that says which modules ran out of DARSHAN_MODMEM, if any.
pub fn starved_message() -> Option<String> {
    let bits = LEDGER.starved_bits();
    if bits == 0 {
        return None;
    }
    let names: Vec<&str> = (0..64).filter(|m| bits & (1u64 << m) != 0).map(darshan_log::modules::module_name).collect();
    let mib = config().map_or(0, |c| c.mod_mem >> 20);
    Some(format!(
        "DARSHAN_MODMEM ({mib} MiB) ran out: {} kept the records that fit and {} marked incomplete in the log; \
         set DARSHAN_MODMEM higher (or MAX_RECORDS lower for the modules that need fewer)",
        names.join(", "),
        if names.len() == 1 { "is" } else { "are" }
    ))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[inline]
pub fn state() -> u8 {
    STATE.load(Ordering::Acquire)
}

pub fn set_state(s: u8) {
    STATE.store(s, Ordering::Release)
}

/// Move from `from` to `to` if the state is `from`.
pub fn transition(from: u8, to: u8) -> bool {
    STATE.compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire).is_ok()
}

pub fn shared() -> Option<&'static Shared> {
    SHARED.get()
}

pub fn config() -> Option<&'static Config> {
    SHARED.get().map(|s| &s.config)
}

pub fn times() -> JobTimes {
    *lock(&TIMES)
}

/// The pid that stands for the job id when no job id variable is set: in
/// an MPI job rank 0's, so that every rank names the same job.
pub fn set_job_pid(pid: i64) {
    lock(&TIMES).first_pid = pid;
}

/// Start-up: keep the configuration and the mount table, reserve the name
/// and record memory — in the crash-safe file `mmap` if given, else on the
/// heap. An error line if that memory cannot be had (or the runtime was
/// already initialised): the caller then disables the runtime. Ok(Some)
/// is a warning: the crash-safe file could not be made, memory is used.
pub fn init(shared: Shared, start: (i64, i64), pid: i64, mmap: Option<String>) -> Result<Option<String>, String> {
    if SHARED.get().is_some() {
        return Err("already initialised".into());
    }
    let name_mem = shared.config.name_mem;
    // DXT's traces have memory of their own, after DARSHAN_MODMEM's.
    let dxt =
        [darshan_log::modules::DXT_POSIX, darshan_log::modules::DXT_MPIIO].map(|m| (m, shared.config.dxt_reserve(m)));
    let mod_mem = dxt.iter().fold(shared.config.mod_mem.max(shared.record_space), |n, (_, b)| n.saturating_add(*b));
    let mut warning = None;
    let mut mapped = None;
    if let Some(path) = mmap {
        match crate::arena::reserve_mapping(crate::logmap::file_len(name_mem, mod_mem)) {
            Some(mem) => {
                let (names, mods) = crate::logmap::install(mem, name_mem, path, shared.platform);
                mapped = crate::arena::as_words(mods)
                    .zip(NameArena::in_place(names))
                    .map(|(w, n)| (n, RecordArena::from_words(w)));
            }
            None => warning = Some("cannot reserve memory for the crash-safe log; records kept in memory".into()),
        }
    }
    let (names, mut arena) = match mapped {
        Some(m) => m,
        None => (
            NameArena::new(name_mem).ok_or(format!("cannot reserve DARSHAN_NAMEMEM ({} MiB)", name_mem >> 20))?,
            RecordArena::new(mod_mem).ok_or(format!("cannot reserve DARSHAN_MODMEM ({} MiB)", mod_mem >> 20))?,
        ),
    };
    for (m, bytes) in dxt.into_iter().filter(|(_, b)| *b > 0) {
        arena.set_aside(m, bytes);
    }
    LEDGER.set_budget(shared.config.mod_mem);
    LEDGER.set_enabled(&shared.config.mod_enabled);
    LEDGER.report_to_file();
    if SHARED.set(shared).is_err() {
        return Err("already initialised".into());
    }
    let ppid = i64::from(std::os::unix::process::parent_id());
    *lock(&TIMES) = JobTimes { start, pid, fork_parent: 0, first_pid: pid, ppid };
    LEDGER.install_names(names);
    *lock(&ARENA) = Some(arena);
    Ok(warning)
}

/// Register a module: reserve its records (MAX_RECORDS, or what is left
/// of the record memory) and hand them over; DARSHAN_MODMEM is granted
/// at its first record ([`grant`]). Disabled modules get nothing.
pub fn register(m: &'static dyn Module, rank: i64) {
    register_all(&[m], rank);
}

/// Register modules together: each reserves its records, then the name
/// index is sized once for all of them (not rebuilt per module, a fresh
/// page or two each time), then each attaches.
pub fn register_all(ms: &[&'static dyn Module], rank: i64) {
    let Some(shared) = shared() else { return };
    let cfg = &shared.config;
    let env = crate::module::Env {
        rank,
        ledger: &LEDGER,
        config: cfg,
        mounts: &shared.mounts,
        platform: shared.platform,
        heat: &HEAT,
    };
    let slices: Vec<crate::arena::Slice> = ms
        .iter()
        .map(|m| match lock(&ARENA).as_mut() {
            Some(a) if cfg.mod_enabled.get(m.spec().id).copied().unwrap_or(false) => a
                .reserve_for(
                    m.spec().id,
                    m.spec().record_words,
                    m.spec().fixed_records.unwrap_or(cfg.max_records[m.spec().id]),
                )
                .backed_by(crate::logmap::room, m.spec().id),
            _ => crate::arena::Slice::empty(m.spec().record_words),
        })
        .collect();
    let added: usize = slices.iter().map(|s| s.capacity).sum();
    let total = CAPACITY.fetch_add(added, Ordering::Relaxed) + added;
    LEDGER.expect_names(total);
    // HEATMAP first: the sources' record sets take their bins from the
    // memory it gives the process's heat maps in its attach.
    let mut order: Vec<(&&'static dyn Module, crate::arena::Slice)> = ms.iter().zip(slices).collect();
    order.sort_by_key(|(m, _)| m.spec().id != darshan_log::modules::HEATMAP);
    for (m, slice) in order {
        let (addr, bytes) = slice.span();
        if bytes > 0 {
            crate::logmap::module_registered(m.spec().id, addr, bytes, m.mapped_version());
        }
        m.attach(slice, &env);
        if let (Some(lock), Some(word)) = (m.records(), crate::logmap::live_word(m.spec().id)) {
            lock.publish(word);
        }
        let mut reg = lock(&REGISTRY);
        reg.push(*m);
        reg.sort_by_key(|m| m.spec().id);
    }
}

/// The version written in the log header for module `id`: the registered
/// module's (DXT's depends on the configuration), else this library's.
pub fn module_version(id: usize) -> u32 {
    match lock(&REGISTRY).iter().find(|m| m.spec().id == id) {
        Some(m) => m.version(),
        None => darshan_log::modules::write_version(id),
    }
}

pub fn modules() -> Vec<&'static dyn Module> {
    lock(&REGISTRY).clone()
}

/// fork(): run `f` (the fork) with every module's lock held (in the
/// registry's order), then the core's, so that the child inherits no lock
/// that another thread held. No allocation: the registry stays locked
/// across the call too.
pub fn with_all_locked(f: &mut dyn FnMut()) {
    fn nest(mods: &[&'static dyn Module], f: &mut dyn FnMut()) {
        match mods.split_first() {
            None => {
                let _core = lock_all();
                f()
            }
            Some((m, rest)) => crate::module::while_locked(*m, &mut || nest(rest, f)),
        }
    }
    let reg = lock(&REGISTRY);
    nest(&reg, f);
}

/// Hold the core's locks across fork(); modules' locks must be taken first.
pub struct CoreLocks {
    _names: crate::ledger::NamesGuard<'static>,
    _times: MutexGuard<'static, JobTimes>,
}

pub fn lock_all() -> CoreLocks {
    CoreLocks { _names: LEDGER.lock_names(), _times: lock(&TIMES) }
}

/// In a forked child, with the locks released: a fresh record set.
/// `mmap`: the child's own crash-safe file (made before anything is
/// cleared, so the parent's file is never written by the child).
pub fn fork_child(start: (i64, i64), pid: i64, mmap: Option<String>) -> Option<String> {
    {
        let mut t = lock(&TIMES);
        t.fork_parent = t.pid;
        t.ppid = t.pid;
        t.pid = pid;
        t.start = start;
    }
    let warning = match mmap {
        Some(p) if crate::logmap::reserved() => crate::logmap::fork_child(p).err().map(|e| e.to_string()),
        _ => None,
    };
    LEDGER.fork_child();
    LOST_CALLS.store(0, Ordering::Relaxed);
    for m in modules() {
        m.fork_child();
    }
    crate::logmap::arm();
    warning
}
