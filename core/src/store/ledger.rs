//! The ledger below the records: what every module's records draw on
//! and report to, in one value — the DARSHAN_MODMEM budget granted a
//! chunk at a time, the modules switched on, the partial and starved
//! flags, the name table, and the clock's tick length. The runtime owns
//! the process's ledger (`runtime::core().ledger`) and hands a reference to each
//! module at attach (`module::Env`); a unit test builds one of its own
//! (`Ledger::new()`), so record sets exist without a process-wide
//! runtime. It reaches up into nothing: what it needs is passed in.
//!
//! Locking: a module's own lock is always taken before the name lock
//! (`with_names`), never the other way round.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::store::names::{Insert, NameArena};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records granted at a time: a module takes DARSHAN_MODMEM as it makes
/// records, a chunk at a time, not its whole MAX_RECORDS at its first
/// record. Granting all of it at once let `MAX_RECORDS 20000 STDIO` (whose
/// standard streams are recorded from start-up) take all 4 MiB before
/// POSIX made its first record: 0 of 3,000 files recorded, and no word.
pub const GRANT_CHUNK: usize = 64;

/// The name lock, held across fork() (modules' locks first).
pub type NamesGuard<'a> = MutexGuard<'a, Option<NameArena>>;

pub struct Ledger {
    /// Seconds per clock tick as estimated at start-up (f64 bits).
    tick_secs: AtomicU64,
    /// DARSHAN_MODMEM not yet granted to a module; usize::MAX until set
    /// (a test's ledger grants whatever its records' slices hold).
    budget: AtomicUsize,
    /// Modules that wanted DARSHAN_MODMEM when none was left (bit per id).
    starved: AtomicU64,
    /// Modules switched on (bit per id); none until set. A module
    /// switched off keeps no records and is never marked partial.
    enabled: AtomicU64,
    partial: AtomicU64,
    /// Modules with no room for another record (bit per id): a name the
    /// configuration leaves out still marks such a module partial, as
    /// Darshan's register_record looks for room before it looks at the
    /// exclusions.
    full: AtomicU64,
    names: Mutex<Option<NameArena>>,
    /// Whether this is the process's ledger, whose counts and flags go
    /// into the crash-safe file's header too (logmap).
    reports_to_file: AtomicBool,
}

impl Default for Ledger {
    fn default() -> Self {
        Ledger::new()
    }
}

impl Ledger {
    /// An empty ledger: no budget limit, no module switched on, no names
    /// until `install_names`.
    pub const fn new() -> Ledger {
        Ledger {
            tick_secs: AtomicU64::new(0),
            budget: AtomicUsize::new(usize::MAX),
            starved: AtomicU64::new(0),
            enabled: AtomicU64::new(0),
            partial: AtomicU64::new(0),
            full: AtomicU64::new(0),
            names: Mutex::new(None),
            reports_to_file: AtomicBool::new(false),
        }
    }

    /// A test's ledger with a name table of `name_bytes` and the modules
    /// `enabled` (by id) switched on, no budget limit (leaked: modules
    /// keep `&'static Ledger`).
    pub fn for_tests(name_bytes: usize, enabled: &[bool]) -> &'static Ledger {
        let l: &'static Ledger = Box::leak(Box::default());
        if let Some(n) = NameArena::new(name_bytes) {
            l.install_names(n);
        }
        l.set_enabled(enabled);
        l
    }

    /// The process's ledger: its changes are mirrored in the crash-safe
    /// file's header.
    pub fn report_to_file(&self) {
        self.reports_to_file.store(true, Ordering::Relaxed);
    }

    fn file(&self) -> bool {
        self.reports_to_file.load(Ordering::Relaxed)
    }

    pub fn set_tick_secs(&self, s: f64) {
        self.tick_secs.store(s.to_bits(), Ordering::Relaxed);
    }

    pub fn tick_secs(&self) -> f64 {
        f64::from_bits(self.tick_secs.load(Ordering::Relaxed))
    }

    /// A module's share of DARSHAN_MODMEM, asked for as it makes records,
    /// as Darshan grants a module its memory when it registers at its
    /// first call: up to `want` records of `rec_bytes`, fewer (maybe none)
    /// when less is left. A module never used takes none of it, whatever
    /// its place in the list of modules, so a job's modules get their
    /// memory in the order the job first uses them.
    pub fn grant(&self, rec_bytes: usize, want: usize) -> usize {
        let mut n = 0;
        let _ = self.budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            n = left.checked_div(rec_bytes).map_or(want, |fit| want.min(fit));
            Some(left.saturating_sub(n.saturating_mul(rec_bytes)))
        });
        n
    }

    /// Start-up: DARSHAN_MODMEM, all of it still to be granted.
    pub fn set_budget(&self, bytes: usize) {
        self.budget.store(bytes, Ordering::Relaxed);
    }

    /// DARSHAN_MODMEM not yet granted (what was granted bounds the
    /// records' bytes, for the shutdown's memory).
    pub fn budget_left(&self) -> usize {
        self.budget.load(Ordering::Relaxed)
    }

    /// A module asked for more record memory and got none.
    pub fn set_starved(&self, module: usize) {
        self.starved.fetch_or(1 << module, Ordering::Relaxed);
        self.set_partial(module);
    }

    /// Which modules ran out of DARSHAN_MODMEM (bit per id).
    pub fn starved_bits(&self) -> u64 {
        self.starved.load(Ordering::Relaxed)
    }

    /// Start-up: the modules the configuration switched on.
    pub fn set_enabled(&self, on: &[bool]) {
        let bits = on.iter().enumerate().take(64).filter(|(_, &b)| b).fold(0u64, |a, (i, _)| a | 1 << i);
        self.enabled.store(bits, Ordering::Relaxed);
    }

    /// Whether the configuration switched `module` on.
    pub fn enabled(&self, module: usize) -> bool {
        module < 64 && self.enabled.load(Ordering::Relaxed) & (1 << module) != 0
    }

    /// Mark `module`'s data as incomplete in the log.
    pub fn set_partial(&self, module: usize) {
        let old = self.partial.fetch_or(1 << module, Ordering::Relaxed);
        if old & (1 << module) == 0 && self.file() {
            crate::store::logmap::partial(old | 1 << module);
        }
    }

    /// A module created a record of `bytes` (the crash-safe file's header
    /// counts it).
    pub fn record_added(&self, module: usize, bytes: usize) {
        if self.file() {
            crate::store::logmap::record_added(module, bytes);
        }
    }

    pub fn partial_flags(&self) -> u64 {
        self.partial.load(Ordering::Relaxed)
    }

    /// Start-up: the name table (in the crash-safe file's memory or the heap).
    pub fn install_names(&self, names: NameArena) {
        *lock(&self.names) = Some(names);
    }

    /// The name index sized for `records` records in all.
    pub fn expect_names(&self, records: usize) {
        if let Some(n) = lock(&self.names).as_mut() {
            n.expect(records);
        }
    }

    pub fn lock_names(&self) -> NamesGuard<'_> {
        lock(&self.names)
    }

    /// In a forked child: no names, nothing partial.
    pub fn fork_child(&self) {
        if let Some(n) = lock(&self.names).as_mut() {
            n.clear();
        }
        self.partial.store(0, Ordering::Relaxed);
        self.full.store(0, Ordering::Relaxed);
    }

    /// `module` has no room for another record.
    pub fn set_full(&self, module: usize) {
        self.full.fetch_or(1 << module, Ordering::Relaxed);
    }

    /// A record of `module` was not made because the configuration leaves
    /// its name out: if the module has no room, it is marked partial, as
    /// in Darshan (one load when it has room).
    #[inline]
    pub fn name_left_out(&self, module: usize) {
        if self.full.load(Ordering::Relaxed) & (1 << module) != 0 && self.enabled(module) {
            self.set_partial(module);
        }
    }

    /// Record `name` for `id`. False (and the module marked partial) when
    /// the name memory is full.
    pub fn register_name(&self, module: usize, id: u64, name: &[u8]) -> bool {
        let mut g = lock(&self.names);
        // Room in the crash-safe file for the entry (id, name, NUL) first;
        // a standard stream's waits for the file (logmap::room's may_wait).
        if self.file()
            && g.as_ref().is_some_and(|n| !n.contains(id))
            && !crate::store::logmap::names_room(name.len() + 9, darshan_log::names::is_std_stream(name))
        {
            drop(g);
            self.set_partial(module);
            return false;
        }
        match g.as_mut().map(|n| n.insert(id, name)) {
            Some(Insert::Added) => {
                if let (true, Some(n)) = (self.file(), g.as_ref()) {
                    crate::store::logmap::names_len(n.packed().len());
                }
                true
            }
            Some(Insert::Present) => true,
            _ => {
                drop(g);
                self.set_partial(module);
                false
            }
        }
    }

    /// Copy the name of `id` into `buf`; its length, or None if unknown or
    /// too long.
    pub fn name_of(&self, id: u64, buf: &mut [u8]) -> Option<usize> {
        let g = lock(&self.names);
        let n = g.as_ref()?.get(id)?;
        let dst = buf.get_mut(..n.len())?;
        dst.copy_from_slice(n);
        Some(n.len())
    }

    pub fn with_names<R>(&self, f: impl FnOnce(&NameArena) -> R) -> Option<R> {
        lock(&self.names).as_ref().map(f)
    }

    /// Shutdown: a copy of the packed name table. A copy because
    /// compressing takes the modules' locks (output), which must never be
    /// waited for while the name lock is held (the lock order above).
    pub fn names_copy(&self) -> Vec<u8> {
        self.with_names(|n| n.packed().to_vec()).unwrap_or_default()
    }
}
