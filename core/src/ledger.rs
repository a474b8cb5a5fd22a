//! The ledger below the records: what every module's records draw on
//! and report to, in one place under the runtime — the DARSHAN_MODMEM
//! budget granted a chunk at a time, the modules switched on, the partial
//! and starved flags, the name table, and the clock's tick length. The
//! record sets (records.rs, var_records.rs, heatmap.rs) call down into it;
//! the runtime (runtime.rs) sets it up at start-up and re-exports it. It
//! reaches up into nothing: what it needs is passed in.
//!
//! Locking: a module's own lock is always taken before the name lock
//! (`with_names`), never the other way round.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crate::names::{Insert, NameArena};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Seconds per clock tick as estimated at start-up (f64 bits).
static TICK_SECS: AtomicU64 = AtomicU64::new(0);

pub fn set_tick_secs(s: f64) {
    TICK_SECS.store(s.to_bits(), Ordering::Relaxed);
}

pub fn tick_secs() -> f64 {
    f64::from_bits(TICK_SECS.load(Ordering::Relaxed))
}

/// DARSHAN_MODMEM not yet granted to a module; usize::MAX before start-up
/// (unit tests that lay out their own records).
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);

/// A module's share of DARSHAN_MODMEM, asked for when it makes its first
/// record, as Darshan grants a module its memory when it registers at its
/// first call: up to `want` records of `rec_bytes`, fewer (maybe none)
/// when less is left. A module never used takes none of it, whatever its
/// place in the list of modules, so a job's modules get their memory in
/// the order the job first uses them.
pub fn grant(rec_bytes: usize, want: usize) -> usize {
    let mut n = 0;
    let _ = BUDGET.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
        n = left.checked_div(rec_bytes).map_or(want, |fit| want.min(fit));
        Some(left.saturating_sub(n.saturating_mul(rec_bytes)))
    });
    n
}

/// Records granted at a time: a module takes DARSHAN_MODMEM as it makes
/// records, a chunk at a time, not its whole MAX_RECORDS at its first
/// record. Granting all of it at once let `MAX_RECORDS 20000 STDIO` (whose
/// standard streams are recorded from start-up) take all 4 MiB before
/// POSIX made its first record: 0 of 3,000 files recorded, and no word.
pub const GRANT_CHUNK: usize = 64;

/// Modules that wanted DARSHAN_MODMEM when none was left (bit per id).
static STARVED: AtomicU64 = AtomicU64::new(0);

/// A module asked for more record memory and got none.
pub fn set_starved(module: usize) {
    STARVED.fetch_or(1 << module, Ordering::Relaxed);
    set_partial(module);
}

/// Which modules ran out of DARSHAN_MODMEM (bit per id).
pub fn starved_bits() -> u64 {
    STARVED.load(Ordering::Relaxed)
}

/// Start-up: DARSHAN_MODMEM, all of it still to be granted.
pub fn set_budget(bytes: usize) {
    BUDGET.store(bytes, Ordering::Relaxed);
}

/// Modules switched on (bit per id); none before start-up (unit tests that
/// lay out their own records), whose full record sets are then partial,
/// not starved.
static ENABLED: AtomicU64 = AtomicU64::new(0);

/// Start-up: the modules the configuration switched on.
pub fn set_enabled(on: &[bool]) {
    let bits = on.iter().enumerate().take(64).filter(|(_, &b)| b).fold(0u64, |a, (i, _)| a | 1 << i);
    ENABLED.store(bits, Ordering::Relaxed);
}

/// Whether the configuration switched `module` on.
pub fn enabled(module: usize) -> bool {
    module < 64 && ENABLED.load(Ordering::Relaxed) & (1 << module) != 0
}

static PARTIAL: AtomicU64 = AtomicU64::new(0);

/// Mark `module`'s data as incomplete in the log.
pub fn set_partial(module: usize) {
    let old = PARTIAL.fetch_or(1 << module, Ordering::Relaxed);
    if old & (1 << module) == 0 {
        crate::logmap::partial(old | 1 << module);
    }
}

/// A module created a record of `bytes` (the crash-safe file's header
/// counts it).
pub fn record_added(module: usize, bytes: usize) {
    crate::logmap::record_added(module, bytes);
}

pub fn partial_flags() -> u64 {
    PARTIAL.load(Ordering::Relaxed)
}

static NAMES: Mutex<Option<NameArena>> = Mutex::new(None);

/// Start-up: the name table (in the crash-safe file's memory or the heap).
pub fn install_names(names: NameArena) {
    *lock(&NAMES) = Some(names);
}

/// The name index sized for `records` records in all.
pub fn expect_names(records: usize) {
    if let Some(n) = lock(&NAMES).as_mut() {
        n.expect(records);
    }
}

/// The name lock, held across fork() (modules' locks first).
pub type NamesGuard = MutexGuard<'static, Option<NameArena>>;

pub fn lock_names() -> NamesGuard {
    lock(&NAMES)
}

/// In a forked child: no names, nothing partial.
pub fn fork_child() {
    if let Some(n) = lock(&NAMES).as_mut() {
        n.clear();
    }
    PARTIAL.store(0, Ordering::Relaxed);
}

/// Record `name` for `id`. False (and the module marked partial) when the
/// name memory is full.
pub fn register_name(module: usize, id: u64, name: &[u8]) -> bool {
    let mut g = lock(&NAMES);
    // Room in the crash-safe file for the entry (id, name, NUL) first.
    if g.as_ref().is_some_and(|n| !n.contains(id)) && !crate::logmap::names_room(name.len() + 9) {
        drop(g);
        set_partial(module);
        return false;
    }
    match g.as_mut().map(|n| n.insert(id, name)) {
        Some(Insert::Added) => {
            if let Some(n) = g.as_ref() {
                crate::logmap::names_len(n.packed().len());
            }
            true
        }
        Some(Insert::Present) => true,
        _ => {
            drop(g);
            set_partial(module);
            false
        }
    }
}

/// Copy the name of `id` into `buf`; its length, or None if unknown or
/// too long.
pub fn name_of(id: u64, buf: &mut [u8]) -> Option<usize> {
    let g = lock(&NAMES);
    let n = g.as_ref()?.get(id)?;
    let dst = buf.get_mut(..n.len())?;
    dst.copy_from_slice(n);
    Some(n.len())
}

pub fn with_names<R>(f: impl FnOnce(&NameArena) -> R) -> Option<R> {
    lock(&NAMES).as_ref().map(f)
}

/// Shutdown: a copy of the packed name table. A copy because compressing
/// takes the modules' locks (output), which must never be waited for
/// while the name lock is held (the lock order above).
pub fn names_copy() -> Vec<u8> {
    with_names(|n| n.packed().to_vec()).unwrap_or_default()
}
