//! The trace store on its own: segments kept exactly, Darshan's memory
//! accounting to the segment, exclusion, triggers and the output layout.
//! The module is one static (traces are found through it), so one test
//! drives the stages in order; the ledger and configuration are the
//! test's own.

use super::*;
use darshan_core::arena::RecordArena;
use darshan_core::config::{Config, Source};

struct ConfigFile(&'static str);
impl Source for ConfigFile {
    fn var(&self, n: &str) -> Option<String> {
        (n == "DARSHAN_CONFIG_PATH").then(|| "/cfg".into())
    }
    fn read_file(&self, _p: &str) -> std::io::Result<String> {
        Ok(self.0.into())
    }
}

fn ctx() -> FinalizeCtx {
    FinalizeCtx { secs_per_tick: 0.25, end_tick: 1000, heat_secs_per_tick: 0.25, heat_shift: 0, rank: 3, nprocs: 4 }
}

fn output(m: &Dxt) -> Vec<Vec<u64>> {
    let mut recs = Vec::new();
    m.output(&mut |r: &[u64]| {
        assert_eq!(r.len(), m.record_len(r), "record_len agrees with the record");
        recs.push(r.to_vec())
    });
    recs
}

#[test]
fn traces_are_exact_bounded_as_darshan_bounds_them_and_filtered_by_the_triggers() {
    let env = attach_both();
    posix_is_bounded_as_darshan_bounds_it(&env);
    let mut hm = mpiio_traces_what_posix_excludes_and_forgets_at_fork(&env);
    the_triggers_drop_a_and_keep_77();
    // Frozen: nothing more is traced.
    DXT_MPIIO.trace(&mut hm, 77, true, 0, 1, 40, 41);
    assert_eq!(DXT_MPIIO.counts(77), Some((1, 0)));
}

/// DXT_POSIX and DXT_MPIIO at 4 KiB each, `/skip` excluded for POSIX,
/// the small-I/O trigger at a half.
fn attach_both() -> darshan_core::Env {
    let (cfg, warn) = Config::load(&ConfigFile(
        "MOD_ENABLE DXT_POSIX,DXT_MPIIO\nMAX_RECORDS 4 DXT_POSIX,DXT_MPIIO\nNAME_EXCLUDE ^/skip DXT_POSIX\nDXT_SMALL_IO_TRIGGER .5\n",
    ));
    assert!(warn.is_empty(), "{warn:?}");
    assert_eq!(cfg.dxt_budget(POSIX_ID), 4096);
    let env = darshan_core::Env::for_config(cfg);
    let mut arena = RecordArena::new(64 << 10).unwrap();
    DXT_POSIX.attach(arena.reserve(NOMINAL_WORDS, 40), &env);
    DXT_MPIIO.attach(arena.reserve(NOMINAL_WORDS, 40), &env);
    env
}

/// 4 KiB: a file (104 B), 64 segments (2,048 B), then the 60 that the
/// 1,944 B left pay for; the 125th write is dropped, and another file
/// refused.
fn posix_is_bounded_as_darshan_bounds_it(env: &darshan_core::Env) {
    let a = darshan_log::record_id(b"/data/a");
    let mut h = 0;
    for k in 0..130i64 {
        DXT_POSIX.trace(&mut h, a, true, k * 10, 10, 100 + k, 101 + k);
    }
    assert_eq!(DXT_POSIX.counts(a), Some((124, 0)), "64 + 60 segments fit in 4 KiB");
    assert_ne!(env.ledger.partial_flags() & 1 << POSIX_ID, 0, "the module is partial");
    // No room for another file (24 B left): refused, and known as such.
    let b = darshan_log::record_id(b"/data/b");
    let mut hb = 0;
    DXT_POSIX.trace(&mut hb, b, false, 0, 1, 5, 6);
    assert_eq!((hb, DXT_POSIX.counts(b)), (NOT_TRACED, None));
}

/// MPI-IO: an excluded-for-POSIX name is traced here, reads and writes;
/// a forked child starts afresh. The handle of file 77.
fn mpiio_traces_what_posix_excludes_and_forgets_at_fork(env: &darshan_core::Env) -> Handle {
    env.ledger.register_name(darshan_log::modules::POSIX, 77, b"/skip/me");
    let mut hm = 0;
    DXT_MPIIO.trace(&mut hm, 77, false, -1, 4000, 10, 20);
    DXT_MPIIO.trace(&mut hm, 77, true, -1, 8, 21, 22);
    assert_eq!(DXT_MPIIO.counts(77), Some((1, 1)));
    DXT_MPIIO.fork_child();
    assert_eq!(DXT_MPIIO.counts(77), None, "a forked child starts afresh");
    DXT_MPIIO.trace(&mut hm, 77, true, 4, 8, 30, 32);
    assert_eq!(DXT_MPIIO.counts(77), Some((1, 0)), "a stale handle is not trusted");
    let mut hp = 0;
    DXT_POSIX.trace(&mut hp, 77, true, 0, 1, 1, 2);
    assert_eq!(hp, NOT_TRACED, "NAME_EXCLUDE ... DXT_POSIX leaves the file untraced");
    hm
}

/// Triggers: 77 (all small ops) stays; `a` (none small) goes from both;
/// 77's record in the log's layout.
fn the_triggers_drop_a_and_keep_77() {
    let stats = |id: u64| -> Option<(i64, i64, i64)> {
        match id {
            77 => Some((4, 4, 0)),
            _ => Some((130, 0, 130)),
        }
    };
    apply_triggers(&stats);
    for m in [&DXT_POSIX, &DXT_MPIIO] {
        m.finalize(&ctx());
    }
    assert!(output(&DXT_POSIX).is_empty(), "`a` fell below the small-I/O trigger");
    let recs = output(&DXT_MPIIO);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(&r[..3], &[77, 3, 0], "id, the final rank, shared_record 0");
    assert_eq!(&r[11..13], &[1, 0]);
    assert_eq!(&r[13..15], &[4, 8]);
    assert_eq!(f64::from_bits(r[15]), 7.5);
    assert_eq!(f64::from_bits(r[16]), 8.0);
    let host: Vec<u8> = r[3..11].iter().flat_map(|w| w.to_le_bytes()).take_while(|&c| c != 0).collect();
    assert_eq!(host, b"testhost");
}

/// Every call after a trace outgrew its memory took DXT's lock to find
/// no room (30 ns a call, for the rest of a long job). A direction that
/// can take no more is now marked in the file's handle and skipped at
/// one comparison; the other direction keeps its room.
#[test]
fn a_full_direction_is_known_from_the_handle_and_the_other_keeps_tracing() {
    static T: Dxt = Dxt::new(URING_ID);
    let (cfg, warn) = Config::load(&ConfigFile("MOD_ENABLE DXT_IO_URING\nMAX_RECORDS 4 DXT_IO_URING\n"));
    assert!(warn.is_empty(), "{warn:?}");
    let env = darshan_core::Env::for_config(cfg);
    let mut arena = RecordArena::new(64 << 10).unwrap();
    T.attach(arena.reserve(NOMINAL_WORDS, 40), &env);
    let a = darshan_log::record_id(b"/data/full");
    let mut h = 0;
    // 4 KiB: the file (104 B), the reads' first 64 slots (2,048 B), then
    // 60 writes in what is left; the 61st finds no room.
    T.trace(&mut h, a, false, 0, 1, 1, 2);
    for k in 0..61i64 {
        T.trace(&mut h, a, true, k, 1, 10 + k, 11 + k);
    }
    assert_eq!(T.counts(a), Some((60, 1)));
    assert_eq!(h & (WRITES_FULL | READS_FULL), WRITES_FULL, "writes full, reads not");
    // Skipped without the lock: its sequence word (the live view's)
    // moves by two at every locked call.
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    T.st.publish(&SEQ);
    let before = SEQ.load(Ordering::Relaxed);
    T.trace(&mut h, a, true, 99, 1, 80, 81);
    assert_eq!(SEQ.load(Ordering::Relaxed), before, "a write to the full direction took the lock");
    for k in 0..63i64 {
        T.trace(&mut h, a, false, k, 1, 90 + k, 91 + k);
    }
    assert_eq!(T.counts(a), Some((60, 64)), "the reads fill their 64 slots");
    T.trace(&mut h, a, false, 0, 1, 200, 201);
    assert_eq!(h & (WRITES_FULL | READS_FULL), WRITES_FULL | READS_FULL);
    assert_eq!(T.counts(a), Some((60, 64)));
    assert_ne!(env.ledger.partial_flags() & 1 << URING_ID, 0, "the module is partial");
}
