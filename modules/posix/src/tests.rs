//! POSIX's counting rules driven through the module's own entry points,
//! without the wrappers and without a log: each test makes its own
//! [`Posix`] (its own records and fd table), so any number of them run in
//! one test binary. The oracle is Darshan's rules as
//! docs/counter-rules.md §3 states them, and the numbers C Darshan 3.5.0
//! gave for the same calls (its verification program, below).

use std::sync::atomic::AtomicU32;

use darshan_core::arena::RecordArena;
use darshan_core::common::{getf, Tick};
use darshan_core::mounts::MountEntry;
use darshan_core::records::Reducer;
use darshan_core::{Env, FinalizeCtx, Module};
use darshan_log::counters::posix::typed as c;

use crate::{OpenKind, Posix, ID, MAX_FDS};

/// What the runtime would give the module, made for each test (no
/// process-wide runtime): a ledger of its own, the default configuration
/// and a mount table of one ext4 file system with 4 KiB blocks at "/"
/// (what a record's FILE_ALIGNMENT comes from).
fn env() -> Env {
    Env::for_tests().with_mounts(vec![MountEntry::with_block_size("/", "ext4", 4096)])
}

/// A POSIX module of the test's own, with room for `records` records.
fn posix(records: usize) -> Posix {
    posix_in(records, &env())
}

/// The same, attached with `env`.
fn posix_in(records: usize, env: &Env) -> Posix {
    let fds: Vec<AtomicU32> = (0..MAX_FDS).map(|_| AtomicU32::new(0)).collect();
    let fds: Box<[AtomicU32; MAX_FDS]> = fds.into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!());
    let p = Posix::new(Box::leak(fds));
    let arena = Box::leak(Box::new(RecordArena::new(records * c::RECORD_WORDS * 8).expect("record memory")));
    p.attach(arena.reserve(c::RECORD_WORDS, records), env);
    p
}

/// Finalized (one tick = one second) and written out: the records' words.
fn records(p: &Posix) -> Vec<Vec<u64>> {
    records_of_rank(p, 0, 1)
}

/// The same as rank `rank` of an MPI job of `nprocs`.
fn records_of_rank(p: &Posix, rank: i64, nprocs: i64) -> Vec<Vec<u64>> {
    darshan_core::module::finalized_records(
        p,
        &FinalizeCtx { rank, nprocs, ..FinalizeCtx::one_process(1.0, 1_000_000) },
    )
}

fn counter(w: &[u64], k: c::Counter) -> i64 {
    w[c::word(k)] as i64
}

/// Every counter C Darshan 3.5.0's shared library gave for the
/// verification program (../shared/spec/semantics.md), times aside.
fn verification_counters_c_gave() -> [(c::Counter, i64); 35] {
    [
        (c::OPENS, 2),
        (c::READS, 4),
        (c::WRITES, 11),
        (c::SEEKS, 1),
        (c::BYTES_READ, 310),
        (c::BYTES_WRITTEN, 14096),
        (c::MAX_BYTE_READ, 5009),
        (c::MAX_BYTE_WRITTEN, 1_052_671),
        (c::CONSEC_READS, 2),
        (c::CONSEC_WRITES, 9),
        (c::SEQ_READS, 3),
        (c::SEQ_WRITES, 10),
        (c::RW_SWITCHES, 1),
        (c::MEM_ALIGNMENT, 8),
        (c::FILE_ALIGNMENT, 4096),
        (c::FILE_NOT_ALIGNED, 12),
        (c::SIZE_READ_0_100, 4),
        (c::SIZE_WRITE_100_1K, 10),
        (c::SIZE_WRITE_1K_10K, 1),
        (c::STRIDE1_STRIDE, 1_038_576),
        (c::STRIDE1_COUNT, 1),
        (c::STRIDE2_STRIDE, 4700),
        (c::STRIDE2_COUNT, 1),
        (c::ACCESS1_ACCESS, 1000),
        (c::ACCESS1_COUNT, 10),
        (c::ACCESS2_ACCESS, 100),
        (c::ACCESS2_COUNT, 3),
        (c::ACCESS3_ACCESS, 4096),
        (c::ACCESS3_COUNT, 1),
        (c::ACCESS4_ACCESS, 10),
        (c::ACCESS4_COUNT, 1),
        (c::MAX_READ_TIME_SIZE, 100),
        (c::MAX_WRITE_TIME_SIZE, 1000),
        (c::MODE, 0o644),
        (c::MMAPS, -1),
    ]
}

/// The program the counter rules were verified with against C Darshan
/// 3.5.0 (open with O_CREAT, 10 writes of 1,000 bytes, a pwrite of 4,096
/// bytes at 1 MiB, close; open read-only, 3 reads of 100 bytes, lseek to
/// 5,000, a read of 10 bytes, close; ext4, 4 KiB blocks): every counter C
/// gave for it. Ticks are chosen so the slowest read is a 100-byte one and
/// the slowest write a 1,000-byte one, as they were there.
#[test]
fn the_c_runtimes_verification_program_gives_its_counters() {
    let p = posix(4);
    let name = b"/data/verify.dat";
    let mut t: Tick = 10;
    let mut tick = |d: Tick| {
        t += d;
        t
    };
    p.on_open(3, name, 0o644, tick(1), tick(1));
    for _ in 0..10 {
        let t1 = tick(1);
        p.on_write(3, 1000, None, true, t1, tick(5));
    }
    let t1 = tick(1);
    p.on_write(3, 4096, Some(1 << 20), true, t1, tick(2));
    let i = p.take_fd(3).expect("tracked");
    p.on_closed(i, tick(1), tick(1));
    p.on_open(4, name, 0, tick(1), tick(1));
    for _ in 0..3 {
        let t1 = tick(1);
        p.on_read(4, 100, None, true, t1, tick(4));
    }
    p.on_seek(4, 5000, tick(1), tick(1));
    let t1 = tick(1);
    p.on_read(4, 10, None, true, t1, tick(1));
    let i = p.take_fd(4).expect("tracked");
    p.on_closed(i, tick(1), tick(1));

    let recs = records(&p);
    assert_eq!(recs.len(), 1);
    let w = &recs[0];
    assert_eq!(w[0], darshan_log::record_id(name));
    let want = verification_counters_c_gave();
    let wrong: Vec<String> = want
        .iter()
        .filter(|(k, v)| counter(w, *k) != *v)
        .map(|(k, v)| format!("{}: {} (C: {v})", darshan_log::modules::counter_names(ID).0[k.index()], counter(w, *k)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join(", "));
}

/// Time counters count time covered, not the sum of calls: two reads that
/// overlap (another thread's, on the same file) count their union once;
/// a read that starts after the last one ended counts whole.
#[test]
fn overlapping_calls_count_their_time_once() {
    let p = posix(1);
    p.on_open(5, b"/data/overlap.dat", 0, 1, 2);
    p.on_read(5, 10, Some(0), true, 10, 20);
    p.on_read(5, 10, Some(10), true, 15, 30); // 10 more: 20..30
    p.on_read(5, 10, Some(20), true, 40, 45); // 5 more
    let w = &records(&p)[0];
    assert_eq!(getf(w, c::fword(c::F_READ_TIME)), 25.0);
    assert_eq!(getf(w, c::fword(c::F_MAX_READ_TIME)), 15.0, "the longest single read");
    assert_eq!(getf(w, c::fword(c::F_READ_START_TIMESTAMP)), 10.0);
    assert_eq!(getf(w, c::fword(c::F_READ_END_TIMESTAMP)), 45.0);
}

/// A dup'd descriptor counts as an open of the same record (and a DUP)
/// without resetting where the file's accesses stand: the write after it
/// continues the sequence. A second open resets it.
#[test]
fn a_dup_shares_the_record_and_keeps_its_sequence_an_open_resets_it() {
    let p = posix(1);
    let name = b"/data/dup.dat";
    p.on_open(6, name, 0o600, 1, 2);
    p.on_write(6, 100, None, true, 3, 4); // 0..99
    p.on_dup(6, 7, 5, 6);
    p.on_write(7, 100, None, true, 7, 8); // 100..199: consecutive
    p.open_id(8, darshan_log::record_id(name), name, OpenKind::Open, 0, 9, 10);
    p.on_write(8, 100, Some(200), true, 11, 12); // after the reset: 200 > 0
    let w = &records(&p)[0];
    assert_eq!((counter(w, c::OPENS), counter(w, c::DUPS)), (3, 1));
    assert_eq!(counter(w, c::CONSEC_WRITES), 1, "only the write right after the dup");
    assert_eq!(counter(w, c::SEQ_WRITES), 2);
    assert_eq!(counter(w, c::MAX_BYTE_WRITTEN), 299);
}

/// Equal counts in the common-value tables: the larger value first.
#[test]
fn common_access_sizes_are_ordered_by_count_then_by_larger_value() {
    let p = posix(1);
    p.on_open(9, b"/data/common.dat", 0, 1, 2);
    let mut off = 0;
    for (size, times) in [(10, 2), (30, 2), (20, 2), (5, 3), (40, 1)] {
        for _ in 0..times {
            p.on_write(9, size, Some(off), true, 3, 4);
            off += size;
        }
    }
    let w = &records(&p)[0];
    let got: Vec<(i64, i64)> =
        (0..4).map(|k| (counter(w, c::ACCESS1_ACCESS.plus(k)), counter(w, c::ACCESS1_COUNT.plus(k)))).collect();
    assert_eq!(got, vec![(5, 3), (30, 2), (20, 2), (10, 2)]);
}

/// The MPI reduction's operator on two ranks' records of one file: sums,
/// maxima, the earliest start and latest end, the slowest rank by its
/// read + write + meta time (semantics of darshan-posix.c's reduction).
#[test]
fn two_ranks_records_reduce_as_darshans_operator_does() {
    let make = |rank: i64, bytes: i64, t: Tick| {
        let p = posix(1);
        p.on_open(3, b"/data/shared.dat", 0o644, t, t + 1);
        p.on_write(3, bytes, Some(rank * 1000), true, t + 2, t + 2 + (rank + 1) * 10);
        let mut w = records_of_rank(&p, rank, 2).remove(0);
        assert_eq!(w[1] as i64, rank);
        crate::reduce::RULES.prepare(&mut w);
        w
    };
    let (a, mut b) = (make(1, 500, 100), make(0, 200, 50));
    crate::reduce::RULES.combine(&a, &mut b);
    assert_eq!(b[1] as i64, -1, "a shared record");
    assert_eq!(counter(&b, c::OPENS), 2);
    assert_eq!(counter(&b, c::BYTES_WRITTEN), 700);
    assert_eq!(counter(&b, c::MAX_BYTE_WRITTEN), 1499);
    assert_eq!(getf(&b, c::fword(c::F_OPEN_START_TIMESTAMP)), 50.0);
    assert_eq!(getf(&b, c::fword(c::F_WRITE_END_TIMESTAMP)), 122.0);
    assert_eq!(getf(&b, c::fword(c::F_WRITE_TIME)), 30.0, "times add up across ranks");
    assert_eq!((counter(&b, c::SLOWEST_RANK), counter(&b, c::SLOWEST_RANK_BYTES)), (1, 500));
    assert_eq!((counter(&b, c::FASTEST_RANK), counter(&b, c::FASTEST_RANK_BYTES)), (0, 200));
}

/// C Darshan's preloaded library cannot wrap mmap and writes -1 in every
/// record's MMAPS; the runtime wrote 0 in every record it had not seen
/// mapped, so no POSIX record of any program was C's. A file never mapped
/// now keeps C's -1; mappings count from 1, and a rank that mapped a
/// shared file beside one that did not gives the file its count.
#[test]
fn a_file_never_mapped_has_c_darshans_minus_one_in_mmaps() {
    let p = posix(2);
    p.on_open(3, b"/data/mapped.dat", 0, 1, 2);
    p.on_open(4, b"/data/read.dat", 0, 1, 2);
    p.on_read(4, 100, None, true, 3, 4);
    p.on_mmap(3);
    p.on_mmap(3);
    let recs = records(&p);
    let mmaps = |name: &[u8]| counter(recs.iter().find(|w| w[0] == darshan_log::record_id(name)).unwrap(), c::MMAPS);
    assert_eq!((mmaps(b"/data/mapped.dat"), mmaps(b"/data/read.dat")), (2, -1));

    let rank = |r: i64, maps: usize| {
        let p = posix(1);
        p.on_open(3, b"/data/shared.dat", 0, 1, 2);
        (0..maps).for_each(|_| p.on_mmap(3));
        let mut w = records_of_rank(&p, r, 2).remove(0);
        crate::reduce::RULES.prepare(&mut w);
        w
    };
    for (maps, want) in [((0, 0), -1), ((3, 0), 3), ((0, 2), 2), ((1, 2), 3)] {
        let (a, mut b) = (rank(0, maps.0), rank(1, maps.1));
        crate::reduce::RULES.combine(&a, &mut b);
        assert_eq!(counter(&b, c::MMAPS), want, "ranks mapping {maps:?} times");
    }
}

#[test]
fn every_counter_has_a_reduction_rule() {
    assert_eq!(
        darshan_log::reduce::ops::words_no_rules_take(&crate::reduce::RULES, c::RECORD_WORDS),
        Vec::<usize>::new()
    );
}

/// FILE_ALIGNMENT is the block size of the mount the path lies on (the
/// longest matching mount point first, as the table is sorted), and an
/// access counts in FILE_NOT_ALIGNED when its offset is not a multiple of
/// it; MEM_ALIGNMENT is the configuration's. Both come from the test's own
/// `Env`: two mounts here, none in the process.
#[test]
fn file_alignment_comes_from_the_mount_the_path_lies_on() {
    let mounts =
        vec![MountEntry::with_block_size("/lustre", "lustre", 1 << 20), MountEntry::with_block_size("/", "ext4", 4096)];
    let config = darshan_core::config::Config { mem_align: 64, ..Default::default() };
    let env = Env::for_config(config).with_mounts(mounts);
    let p = posix_in(2, &env);
    for (fd, name) in [(3, &b"/lustre/big.dat"[..]), (4, &b"/home/u/small.dat"[..])] {
        p.on_open(fd, name, 0o644, 1, 2);
        for off in [0, 4096, 1 << 20, 3 * 4096] {
            p.on_write(fd, 4096, Some(off), true, 3, 4);
        }
    }
    let recs = records(&p);
    let by_name = |n: &[u8]| recs.iter().find(|w| w[0] == darshan_log::record_id(n)).expect("a record").clone();
    let (big, small) = (by_name(b"/lustre/big.dat"), by_name(b"/home/u/small.dat"));
    assert_eq!((counter(&big, c::FILE_ALIGNMENT), counter(&big, c::FILE_NOT_ALIGNED)), (1 << 20, 2));
    assert_eq!((counter(&small, c::FILE_ALIGNMENT), counter(&small, c::FILE_NOT_ALIGNED)), (4096, 0));
    assert_eq!(counter(&big, c::MEM_ALIGNMENT), 64);
}

/// A file system that answers statfs with 64 KiB blocks and notes
/// whether the POSIX module was locked when it was asked.
#[derive(Default)]
struct WatchedStatfs {
    posix: std::sync::OnceLock<&'static Posix>,
    calls: std::sync::atomic::AtomicUsize,
    asked_locked: std::sync::atomic::AtomicBool,
}

impl darshan_core::Platform for WatchedStatfs {
    fn statfs(&self, _path: &std::ffi::CStr) -> Option<(i64, i64)> {
        use std::sync::atomic::Ordering::Relaxed;
        self.calls.fetch_add(1, Relaxed);
        if self.posix.get().is_some_and(|p| p.set.is_locked()) {
            self.asked_locked.store(true, Relaxed);
        }
        Some((1 << 16, 0x5846_5342))
    }
    fn stderr(&self, _msg: &[u8]) {}
    fn realtime(&self) -> (i64, i64) {
        (0, 0)
    }
    fn pid(&self) -> i64 {
        1
    }
    fn euid(&self) -> i64 {
        1
    }
    fn hostname(&self) -> String {
        "test".into()
    }
}

/// The first record on a mount asks the mount's block size, once, with
/// the module unlocked: statfs of a Lustre mount asks every server, and
/// under the lock one that is down held up every thread's I/O. A rename's
/// target (made inside rename's locked section) too.
#[test]
fn a_mounts_block_size_is_asked_once_with_the_module_unlocked() {
    use std::sync::atomic::Ordering::Relaxed;
    let fs: &'static WatchedStatfs = Box::leak(Box::default());
    let mounts = ["/scratch", "/other"].map(|m| MountEntry::new(m.into(), "xfs".into()).expect("a mount"));
    let env = Env { platform: fs, ..Env::for_tests() }.with_mounts(mounts.into());
    let p: &'static Posix = Box::leak(Box::new(posix_in(4, &env)));
    fs.posix.set(p).unwrap_or_else(|_| unreachable!());
    p.on_open(3, b"/scratch/a.dat", 0o644, 1, 2);
    p.on_stat_path(b"/scratch/b.dat", 3, 4);
    p.on_open(4, b"/scratch/a.dat", 0o644, 5, 6);
    p.on_rename(b"/scratch/b.dat", b"/other/c.dat", 7, 8);
    let recs = records(p);
    assert_eq!(recs.len(), 3, "a.dat, b.dat and the rename's target");
    assert!(recs.iter().all(|w| counter(w, c::FILE_ALIGNMENT) == 1 << 16), "the file system's block size");
    assert_eq!(fs.calls.load(Relaxed), 2, "asked once per mount");
    assert!(!fs.asked_locked.load(Relaxed), "asked with the module unlocked");
}

/// Darshan leaves out system paths (/etc, /proc, ...) and what a
/// NAME_EXCLUDE rule names for the module; the rest is recorded.
#[test]
fn excluded_paths_get_no_record_and_the_rest_do() {
    struct ConfigFile;
    impl darshan_core::config::Source for ConfigFile {
        fn var(&self, n: &str) -> Option<String> {
            (n == "DARSHAN_CONFIG_PATH").then(|| "/cfg".into())
        }
        fn read_file(&self, _p: &str) -> std::io::Result<String> {
            Ok("NAME_EXCLUDE ^/scratch/tmp POSIX\n".into())
        }
    }
    let (config, warnings) = darshan_core::config::Config::load(&ConfigFile);
    assert!(warnings.is_empty(), "{warnings:?}");
    let env = Env::for_config(config);
    let p = posix_in(4, &env);
    for (fd, name) in [(3, &b"/etc/hosts"[..]), (4, b"/scratch/tmp/x"), (5, b"/scratch/data/y")] {
        p.on_open(fd, name, 0, 1, 2);
        p.on_read(fd, 10, Some(0), true, 3, 4);
    }
    let ids: Vec<u64> = records(&p).iter().map(|w| w[0]).collect();
    assert_eq!(ids, vec![darshan_log::record_id(b"/scratch/data/y")]);
    assert_eq!(env.ledger.partial_flags(), 0, "leaving a name out is not running out of room");
}

/// A module out of records marks itself partial in its own ledger, and in
/// no other: two modules with two ledgers in one test binary, which the
/// process-wide runtime could not have.
#[test]
fn a_full_record_set_marks_only_its_own_ledger_partial() {
    let (full, other) = (env(), env());
    let p = posix_in(1, &full);
    let q = posix_in(1, &other);
    p.on_open(3, b"/data/one", 0, 1, 2);
    p.on_open(4, b"/data/two", 0, 1, 2);
    q.on_open(3, b"/data/one", 0, 1, 2);
    assert_eq!(records(&p).len(), 1);
    assert_eq!(full.ledger.partial_flags(), 1 << ID);
    assert_eq!(other.ledger.partial_flags(), 0);
    let mut buf = [0u8; 32];
    assert_eq!(full.ledger.name_of(darshan_log::record_id(b"/data/two"), &mut buf), None, "no name for no record");
    let n = other.ledger.name_of(darshan_log::record_id(b"/data/one"), &mut buf).expect("named");
    assert_eq!(&buf[..n], b"/data/one");
}

/// DARSHAN_MODMEM is granted a chunk of records at a time; when the
/// budget has no room for another chunk the module is starved (which the
/// runtime reports by name), not merely full.
#[test]
fn a_module_past_the_memory_budget_is_starved_not_just_full() {
    let env = env();
    env.ledger.set_budget(3 * c::RECORD_WORDS * 8);
    let p = posix_in(10, &env);
    for fd in 3..8 {
        p.on_open(fd, format!("/data/f{fd}").as_bytes(), 0, 1, 2);
    }
    assert_eq!(records(&p).len(), 3, "the three records the budget pays for");
    assert_eq!(env.ledger.starved_bits(), 1 << ID);
    assert_eq!(env.ledger.partial_flags(), 1 << ID);
}

/// Access sizes fill the SIZE_ histogram at Darshan's inclusive upper
/// bounds (DARSHAN_BUCKET_INC: 100, 1024, 10240, ... 1 GiB, then above).
#[test]
fn access_sizes_fill_the_histogram_at_darshans_bucket_edges() {
    let p = posix(1);
    p.on_open(3, b"/data/hist.dat", 0, 1, 2);
    let sizes = [0, 100, 101, 1024, 1025, 10240, 10241, 1 << 20, (1 << 20) + 1, 1 << 30, (1 << 30) + 1];
    let mut off = 0;
    for s in sizes {
        p.on_read(3, s, Some(off), true, 3, 4);
        off += s;
    }
    let w = &records(&p)[0];
    let got: Vec<i64> = c::words(c::SIZE_READ_0_100, c::SIZE_READ_1G_PLUS).map(|i| w[i] as i64).collect();
    assert_eq!(got, vec![2, 2, 2, 1, 1, 1, 0, 0, 1, 1]);
}

/// Descriptors of 65,536 and above were passed through unrecorded (C
/// 3.5.0 finds any descriptor in a hash table): a program that raised its
/// limit and opened its 70,000th file lost that file's I/O. Now up to
/// Linux's default ceiling (2^20 descriptors); a forked child forgets
/// them as it forgets the others.
#[test]
fn descriptors_past_65535_went_unrecorded() {
    let p = posix(4);
    let top = (1 << 20) - 1;
    for (fd, name) in [(70_000, &b"/data/high"[..]), (top, b"/data/top"), (top + 1, b"/data/past")] {
        p.on_open(fd, name, 0o644, 1, 2);
        p.on_write(fd, 100, None, true, 3, 4);
        p.on_dup(fd, 3, 5, 6);
    }
    assert_eq!(p.tracked(70_000), Some(0));
    assert_eq!(p.tracked(top), Some(1));
    assert_eq!(p.tracked(top + 1), None, "past the ceiling");
    let i = p.take_fd(70_000).expect("tracked");
    p.on_closed(i, 7, 8);
    assert_eq!(p.tracked(70_000), None, "closed");
    let recs = records(&p);
    let writes = |k: usize| (counter(&recs[k], c::OPENS), counter(&recs[k], c::WRITES));
    assert_eq!(recs.len(), 3, "the file past the ceiling has its record, made at open");
    assert_eq!([writes(0), writes(1)], [(2, 1), (2, 1)], "opened, written, dup'd");
    p.on_open(70_001, b"/data/high", 0o644, 9, 10);
    darshan_core::Module::fork_child(&p);
    assert_eq!((p.tracked(70_001), p.tracked(top)), (None, None), "a forked child has none");
}

/// An aio read submitted on a descriptor that `fdopen` and `fclose` then
/// closed (without close()), returned after: we had forgotten the
/// descriptor at fclose and lost the read, which C Darshan 3.5.0 counts
/// (its table keeps the descriptor): differential aio seed 9057. Other
/// calls on the number still count for nothing, and after a close() of it
/// a request returned is not counted, as in Darshan.
#[test]
fn an_aio_read_returned_after_fclose_closed_its_descriptor_was_lost() {
    let p = posix(2);
    p.on_open(3, b"/data/f0", 0o644, 1, 2);
    p.on_aio_submit(3, 0x1000, false, 3);
    p.on_aio_submit(3, 0x2000, false, 3);
    p.closed_by_fclose(3);
    assert_eq!(p.tracked(3), None, "forgotten for every other call");
    p.on_read(3, 5, None, true, 4, 5);
    p.on_aio_return(3, 0x1000, 8, 1 << 20, true, 6);
    p.closed_untracked(3);
    p.on_aio_return(3, 0x2000, 8, 0, true, 8);
    let recs = records(&p);
    assert_eq!(recs.len(), 1);
    let w = &recs[0];
    assert_eq!([c::READS, c::BYTES_READ, c::MAX_BYTE_READ].map(|k| counter(w, k)), [1, 8, (1 << 20) + 7]);
}
