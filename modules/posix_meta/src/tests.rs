//! POSIX_META's counting rules driven through the module's entry points,
//! each test with a module and an `Env` of its own.

use darshan_core::arena::RecordArena;
use darshan_core::common::getf;
use darshan_core::records::Reducer;
use darshan_core::{Env, FinalizeCtx, Module};
use darshan_log::counters::posix_meta::typed as c;

use crate::{Mapping, PosixMeta, ID};

fn meta_in(records: usize, env: &Env) -> PosixMeta {
    let m = PosixMeta::new();
    let arena = Box::leak(Box::new(RecordArena::new(records * c::RECORD_WORDS * 8).expect("record memory")));
    m.attach(arena.reserve(c::RECORD_WORDS, records), env);
    m
}

/// The test's own Env, with the module switched on (it is off by default).
fn env() -> Env {
    let mut config = darshan_core::config::Config::default();
    config.mod_enabled[ID] = true;
    Env::for_config(config)
}

fn meta(records: usize) -> PosixMeta {
    meta_in(records, &env())
}

fn records(m: &PosixMeta) -> Vec<Vec<u64>> {
    darshan_core::module::finalized_records(m, &FinalizeCtx::one_process(1.0, 1_000_000))
}

fn of<'a>(recs: &'a [Vec<u64>], name: &[u8]) -> &'a [u64] {
    let id = darshan_log::record_id(name);
    recs.iter().find(|w| w[0] == id).unwrap_or_else(|| panic!("no record for {}", String::from_utf8_lossy(name)))
}

fn n(w: &[u64], k: c::Counter) -> i64 {
    w[c::word(k)] as i64
}

/// Each kind of call counts on its path; a rename on both; times are the
/// calls' durations (no overlap here), the slowest one, first and last.
#[test]
fn each_call_counts_on_its_path_and_a_rename_on_both() {
    let m = meta(8);
    let kinds = [
        c::UNLINKS,
        c::MKDIRS,
        c::RMDIRS,
        c::TRUNCATES,
        c::FALLOCATES,
        c::CHMODS,
        c::CHOWNS,
        c::ACCESSES,
        c::LINKS,
        c::SYMLINKS,
        c::READLINKS,
        c::UTIMES,
        c::XATTR_GETS,
        c::XATTR_SETS,
    ];
    let mut t = 10;
    for (j, k) in kinds.iter().enumerate() {
        for _ in 0..=j {
            m.on_path(*k, b"/scratch/f", t, t + 2);
            t += 3;
        }
    }
    m.on_rename(b"/scratch/f", b"/scratch/g", 500, 507);
    let recs = records(&m);
    let f = of(&recs, b"/scratch/f");
    for (j, k) in kinds.iter().enumerate() {
        assert_eq!(n(f, *k), j as i64 + 1, "{k:?}");
    }
    assert_eq!((n(f, c::RENAMES_FROM), n(f, c::RENAMES_TO)), (1, 0));
    let g = of(&recs, b"/scratch/g");
    assert_eq!((n(g, c::RENAMES_FROM), n(g, c::RENAMES_TO)), (0, 1));
    let calls = (1..=kinds.len()).sum::<usize>() as f64;
    assert_eq!(getf(f, c::fword(c::F_TIME)), 2.0 * calls + 7.0);
    assert_eq!(getf(f, c::fword(c::F_MAX_TIME)), 7.0);
    assert_eq!(getf(f, c::fword(c::F_START_TIMESTAMP)), 10.0);
    assert_eq!(getf(f, c::fword(c::F_END_TIMESTAMP)), 507.0);
}

/// A directory stream counts its readdir calls and the entries they
/// returned (the call that finds the end is a call, not an entry); a
/// stream not opened through the module, or closed, is not followed.
#[test]
fn readdir_counts_calls_and_entries_of_the_stream_it_came_from() {
    let m = meta(4);
    m.on_opendir(0x1000, b"/data/dir", 1, 2);
    for _ in 0..5 {
        m.on_readdir(0x1000, true, 3, 4);
    }
    m.on_readdir(0x1000, false, 5, 6);
    m.on_readdir(0x2000, true, 7, 8); // unknown stream
    m.on_closedir(0x1000);
    m.on_readdir(0x1000, true, 9, 10); // after closedir
    let recs = records(&m);
    let d = of(&recs, b"/data/dir");
    assert_eq!((n(d, c::OPENDIRS), n(d, c::READDIRS), n(d, c::DIR_ENTRIES)), (1, 6, 5));
    assert_eq!(recs.len(), 1);
}

/// readdir skips the module while no stream is followed (the wrapper's
/// fast test): it must say "followed" from a recorded opendir to its
/// closedir, and in a forked child for the streams it inherited, or those
/// streams' readdirs would go uncounted.
#[test]
fn dirs_are_followed_from_a_recorded_opendir_to_its_closedir_and_across_fork() {
    use darshan_core::Module;
    let m = meta(4);
    assert!(!m.dirs_followed(), "none at attach");
    m.on_opendir(0x1000, b"/etc/skipped", 1, 2);
    assert!(!m.dirs_followed(), "an excluded directory is not followed");
    m.on_opendir(0x2000, b"/data/a", 1, 2);
    m.on_opendir(0x3000, b"/data/b", 1, 2);
    m.on_closedir(0x2000);
    assert!(m.dirs_followed(), "one stream still open");
    m.fork_child();
    assert!(m.dirs_followed(), "the child inherited it");
    m.on_closedir(0x3000);
    assert!(!m.dirs_followed(), "all closed");
}

/// Mappings: count, bytes, the bytes that can reach the file; msync and
/// munmap by the mapping's start address.
#[test]
fn mappings_count_their_bytes_and_their_msync_and_munmap() {
    let m = meta(4);
    assert!(!m.maps_live());
    m.on_mmap(b"/data/m", Mapping { addr: 0x7000, len: 8192, shared_write: true }, 1, 2);
    m.on_mmap(b"/data/m", Mapping { addr: 0x9000, len: 4096, shared_write: false }, 3, 4);
    assert!(m.maps_live());
    m.on_msync(0x7000, 5, 6);
    m.on_msync(0x7001, 5, 6); // not a mapping's start
    m.on_munmap(0x7000, 7, 8);
    m.on_munmap(0x9000, 9, 10);
    m.on_munmap(0x9000, 11, 12); // already gone
    assert!(!m.maps_live());
    let recs = records(&m);
    let w = of(&recs, b"/data/m");
    assert_eq!((n(w, c::MMAPS), n(w, c::MMAP_BYTES), n(w, c::MMAP_SHARED_WRITE_BYTES)), (2, 12288, 8192));
    assert_eq!((n(w, c::MSYNCS), n(w, c::MUNMAPS)), (1, 2));
}

/// More directory streams and mappings open at once than the tables'
/// first 4,096 slots (docs/posix-meta.md said 4,096 was the limit, past
/// which calls went uncounted and the module partial; the tables double
/// since 2026-12-05): every readdir and munmap is counted, nothing partial.
#[test]
fn streams_and_mappings_past_the_4096th_open_at_once_are_followed() {
    const OPEN: usize = 5000;
    let env = env();
    let m = meta_in(4, &env);
    for k in 0..OPEN {
        m.on_opendir(0x10_0000 + 16 * k, b"/data/dir", 1, 2);
        m.on_mmap(b"/data/m", Mapping { addr: 0x100_0000 + 4096 * k, len: 4096, shared_write: false }, 1, 2);
    }
    for k in 0..OPEN {
        assert!(m.on_readdir(0x10_0000 + 16 * k, true, 3, 4), "stream {k} followed");
        m.on_closedir(0x10_0000 + 16 * k);
        m.on_munmap(0x100_0000 + 4096 * k, 5, 6);
    }
    let recs = records(&m);
    let (d, w) = (of(&recs, b"/data/dir"), of(&recs, b"/data/m"));
    assert_eq!([c::OPENDIRS, c::READDIRS, c::DIR_ENTRIES].map(|k| n(d, k)), [OPEN as i64; 3]);
    assert_eq!([c::MMAPS, c::MUNMAPS].map(|k| n(w, k)), [OPEN as i64; 2]);
    assert_eq!(env.ledger.partial_flags(), 0, "nothing marked partial");
    assert!(!m.maps_live() && !m.dirs_followed());
}

/// Names the configuration leaves out (system directories) get no
/// record; a full module marks itself partial in its own ledger.
#[test]
fn excluded_names_get_no_record_and_a_full_module_is_partial() {
    let env = env();
    let m = meta_in(1, &env);
    m.on_path(c::ACCESSES, b"/etc/ld.so.cache", 1, 2);
    m.on_path(c::UNLINKS, b"/tmp/a", 1, 2);
    m.on_path(c::UNLINKS, b"/tmp/b", 1, 2);
    let recs = records(&m);
    assert_eq!(recs.len(), 1);
    assert_eq!(env.ledger.partial_flags(), 1 << ID);
}

/// Two ranks' records of one directory: counts and times add up, the
/// earliest start, the latest end, the slowest call of either.
#[test]
fn two_ranks_records_of_a_directory_reduce_to_one() {
    let rank = |r: i64, calls: i64, t: i64| {
        let m = meta_in(1, &env().with_rank(r));
        m.on_opendir(0x10, b"/shared/dir", t, t + 1);
        for _ in 0..calls {
            m.on_readdir(0x10, true, t + 2, t + 2 + r + 1);
        }
        let mut w = darshan_core::module::finalized_records(
            &m,
            &FinalizeCtx { rank: r, nprocs: 2, ..FinalizeCtx::one_process(1.0, 1000) },
        )
        .remove(0);
        crate::reduce::RULES.prepare(&mut w);
        w
    };
    let (a, mut b) = (rank(1, 3, 100), rank(0, 2, 50));
    crate::reduce::RULES.combine(&a, &mut b);
    assert_eq!(b[1] as i64, -1);
    assert_eq!((n(&b, c::OPENDIRS), n(&b, c::READDIRS), n(&b, c::DIR_ENTRIES)), (2, 5, 5));
    assert_eq!(getf(&b, c::fword(c::F_START_TIMESTAMP)), 50.0);
    assert_eq!(getf(&b, c::fword(c::F_END_TIMESTAMP)), 104.0);
    assert_eq!(getf(&b, c::fword(c::F_MAX_TIME)), 2.0, "rank 1's readdir");
    // rank 0: open 1 + readdir 1 (overlapping calls at the same ticks
    // count once); rank 1: open 1 + readdir 2.
    assert_eq!(getf(&b, c::fword(c::F_TIME)), 2.0 + 3.0);
}

#[test]
fn every_counter_has_a_reduction_rule() {
    assert_eq!(
        darshan_log::reduce::ops::words_no_rule_takes(crate::reduce::combine, c::RECORD_WORDS),
        Vec::<usize>::new()
    );
}
