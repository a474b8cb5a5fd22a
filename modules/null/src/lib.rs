//! The NULL module: a template showing a new module's author the whole
//! contract in one file. It counts calls of one (imaginary) function
//! `foo(name, arg)`: one record per name, with two counters
//! (NULL_FOOS: calls, NULL_FOO_MAX_DAT: largest argument) and two
//! fcounters (NULL_F_FOO_TIMESTAMP: last call, NULL_F_FOO_MAX_DURATION).
//!
//! The steps, in the order the runtime drives them:
//! 1. a `'static` instance holds its state behind a lock (wrappers on many
//!    threads call into it);
//! 2. `spec`: the module's static facts — its id, record size, which words
//!    hold clock ticks until shutdown (`.ticks`), and, for a module whose
//!    records ranks share, the reduction rules (`.reduced_by`);
//! 3. `records` hands the runtime the lock over the records; with it
//!    every other hook has a default that works: `attach` (the record
//!    memory the core reserved, with MAX_RECORDS and DARSHAN_MODMEM
//!    limits, and the `Env`), `finalize` (freeze, ticks to seconds in the
//!    spec's words), `reduce` (none here), `output` (the records, in the
//!    log's layout, to the core), `set_rank` and `fork_child` (forget the
//!    parent's records); the runtime holds the same lock across fork and
//!    publishes it for the live view. State of the module's own beside
//!    the records (handle tables, pools) goes in a struct that implements
//!    `ModuleState` (`attach_own`, `fork_own`: sized and reset by the
//!    defaults, as MPI-IO's is);
//! 4. the wrapper in `ffi` calls `on_foo` after the real call returned,
//!    with clock ticks; `find_or_create` registers the name and sets the
//!    partial flag when memory runs out — then the call is simply not
//!    recorded.
//!
//! A module overrides a hook only to do more (POSIX's `finalize` applies
//! DXT's triggers; H5D's `attach` sizes its access tuples).
#![forbid(unsafe_code)]

use darshan_core::common::Tick;
use darshan_core::records::RecordSet;
use darshan_core::sync::{Lock, LockGuard};
use darshan_core::{LockedState, Module, ModuleSpec};
use darshan_log::modules::NULL as ID;

// The record's layout lives in the format crate with every module's
// (tools read it there): counter k is word `c::word(k)`, fcounter k
// `c::fword(k)`.
use darshan_log::counters::null::typed as c;

pub struct Null {
    set: Lock<RecordSet<()>>,
}

pub static NULL: Null = Null::new();

impl Null {
    /// A fresh instance: the process's is [`NULL`]; a test builds its own.
    pub const fn new() -> Null {
        Null { set: Lock::new(RecordSet::new(ID)) }
    }

    fn lock(&self) -> LockGuard<'_, RecordSet<()>> {
        self.set.lock()
    }

    /// `foo(name, arg)` ran from tick `tm1` to `tm2`.
    pub fn on_foo(&self, name: &[u8], arg: i64, tm1: Tick, tm2: Tick) {
        let id = darshan_log::record_id(name);
        let mut set = self.lock();
        let Some(i) = set.find_or_create(id, name) else { return };
        let w = set.words(i);
        w[c::word(c::FOOS)] += 1;
        if (w[c::word(c::FOO_MAX_DAT)] as i64) < arg {
            w[c::word(c::FOO_MAX_DAT)] = arg as u64;
        }
        // Times are ticks until finalize (integers: no float work per call).
        w[c::fword(c::F_FOO_TIMESTAMP)] = tm1 as u64;
        if (w[c::fword(c::F_FOO_MAX_DURATION)] as i64) < tm2 - tm1 {
            w[c::fword(c::F_FOO_MAX_DURATION)] = (tm2 - tm1) as u64;
        }
    }
}

/// Both fcounters hold ticks until shutdown; no reduction across ranks.
const SPEC: ModuleSpec = ModuleSpec::new(ID, c::RECORD_WORDS).ticks(c::FCOUNTERS_AT..c::RECORD_WORDS);

impl Default for Null {
    fn default() -> Self {
        Null::new()
    }
}

impl Module for Null {
    fn spec(&self) -> &ModuleSpec {
        &SPEC
    }

    /// What every other hook works through: the records, under the lock
    /// (fork holds it across the call).
    fn records(&self) -> Option<&dyn LockedState> {
        Some(&self.set)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_core::arena::RecordArena;
    use darshan_core::{Env, FinalizeCtx};

    #[test]
    fn records_are_counted_bounded_and_converted() {
        // The NULL module is off by default: this run asks for it.
        let mut config = darshan_core::config::Config::default();
        config.mod_enabled[ID] = true;
        let env = Env::for_config(config);
        // Two records fit; the third name marks the module partial.
        let mut arena = RecordArena::new(2 * c::RECORD_WORDS * 8).unwrap();
        let null = Null::new();
        null.attach(arena.reserve(c::RECORD_WORDS, 1024), &env);
        null.on_foo(b"a", 5, 10, 12);
        null.on_foo(b"a", 3, 20, 21);
        null.on_foo(b"b", 1, 30, 34);
        null.on_foo(b"c", 1, 40, 41);
        null.finalize(&FinalizeCtx::one_process(0.5, 100));
        let mut words = Vec::new();
        null.output(&mut |run: &[u64]| words.extend_from_slice(run));
        assert_eq!(words.len(), 2 * c::RECORD_WORDS);
        assert_eq!(words[0], darshan_log::record_id(b"a"));
        assert_eq!(words[c::word(c::FOOS)], 2);
        assert_eq!(words[c::word(c::FOO_MAX_DAT)], 5);
        assert_eq!(f64::from_bits(words[c::fword(c::F_FOO_TIMESTAMP)]), 10.0);
        assert_eq!(f64::from_bits(words[c::fword(c::F_FOO_MAX_DURATION)]), 1.0);
        assert!(env.ledger.partial_flags() & 1 << ID != 0);
        // The default fork_child: a forked child starts with no records.
        null.fork_child();
        let mut left = 0;
        null.output(&mut |run: &[u64]| left += run.len());
        assert_eq!(left, 0, "the child kept its parent's records");
    }

    /// The template (the file a new module's author copies) kept its lock
    /// only in its own methods: fork, which must hold every module's lock
    /// so that the child inherits none mid-update, ran with NULL's free.
    /// The lock comes from `records` now, for every module alike.
    #[test]
    fn the_template_holds_its_lock_across_fork() {
        let null = Null::new();
        let mut held = false;
        darshan_core::module::while_locked(&null, &mut || held = null.set.is_locked());
        assert!(held, "fork ran without the NULL module's lock");
        assert!(!null.set.is_locked(), "and released it after");
    }
}
