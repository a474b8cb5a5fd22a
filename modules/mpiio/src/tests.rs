//! MPI-IO's counting rules driven through the module's entry points, each
//! test with a module of its own, on one rank's calls of the MPI test
//! program (tests/programs/mpi_mix.c, whose job log ffi/tests/mpi.rs checks
//! with real MPI) and docs/counter-rules.md §4.

use darshan_core::arena::RecordArena;
use darshan_core::common::{getf, Tick};
use darshan_core::records::Reducer;
use darshan_core::{Env, FinalizeCtx, Module};
use darshan_log::counters::mpiio::typed as c;

use crate::{Access, Mpiio};

/// An MPI-IO module of the test's own, with its own ledger and
/// configuration: no process-wide runtime.
fn mpiio(records: usize) -> Mpiio {
    let m = Mpiio::new();
    let arena = Box::leak(Box::new(RecordArena::new(records * c::RECORD_WORDS * 8).expect("record memory")));
    m.attach(arena.reserve(c::RECORD_WORDS, records), &Env::for_tests());
    m
}

fn records(m: &Mpiio) -> Vec<Vec<u64>> {
    darshan_core::module::finalized_records(m, &FinalizeCtx::one_process(1.0, 1_000_000))
}

fn counter(w: &[u64], k: c::Counter) -> i64 {
    w[c::word(k)] as i64
}

/// One rank's shared.dat in mpi_mix: a collective open (CREATE|RDWR) by 4
/// ranks, two write_at_all of 250 ints, a read_at of 10 doubles, an
/// iread_at of 2 doubles, a read_at_all of 250 ints, close.
#[test]
fn one_ranks_calls_of_the_mpi_test_program_are_counted_as_darshan_counts_them() {
    let m = mpiio(2);
    let fh = 0xA0;
    m.on_open(fh, b"/data/shared.dat", 1 | 8, 4, false, 10, 12);
    m.on_io(fh, true, Access::Coll, 1000, 0, 13, 15);
    m.on_io(fh, true, Access::Coll, 1000, 4000, 16, 20);
    m.on_io(fh, false, Access::Indep, 80, 0, 21, 22);
    m.on_io(fh, false, Access::Nb, 16, 80, 23, 24);
    m.on_io(fh, false, Access::Coll, 1000, 0, 25, 28);
    m.on_close(fh, 29, 30);
    let w = &records(&m)[0];
    let want = [
        (c::COLL_OPENS, 1),
        (c::INDEP_OPENS, 0),
        (c::COLL_WRITES, 2),
        (c::INDEP_READS, 1),
        (c::NB_READS, 1),
        (c::COLL_READS, 1),
        (c::HINTS, 0),
        (c::BYTES_WRITTEN, 2000),
        (c::BYTES_READ, 1096),
        (c::RW_SWITCHES, 1),
        (c::MODE, 9),
        (c::SIZE_WRITE_AGG_100_1K, 2),
        (c::SIZE_READ_AGG_0_100, 2),
        (c::SIZE_READ_AGG_100_1K, 1),
        (c::ACCESS1_ACCESS, 1000),
        (c::ACCESS1_COUNT, 3),
        (c::ACCESS2_ACCESS, 80),
        (c::ACCESS2_COUNT, 1),
        (c::ACCESS3_ACCESS, 16),
        (c::ACCESS3_COUNT, 1),
        (c::MAX_WRITE_TIME_SIZE, 1000),
        (c::MAX_READ_TIME_SIZE, 1000),
    ];
    let got: Vec<(c::Counter, i64)> = want.iter().map(|&(k, _)| (k, counter(w, k))).collect();
    assert_eq!(got, want.to_vec());
    assert_eq!(getf(w, c::fword(c::F_WRITE_TIME)), 6.0);
    assert_eq!(getf(w, c::fword(c::F_READ_TIME)), 5.0);
    assert_eq!(getf(w, c::fword(c::F_META_TIME)), 3.0, "open and close");
}

/// An open by one rank alone is independent; set_view counts VIEWS, and
/// HINTS and metadata time only with an info object; MPI_File_sync is
/// counted and its time is write time.
#[test]
fn views_hints_and_syncs_are_counted_as_darshan_counts_them() {
    let m = mpiio(1);
    let fh = 0xB0;
    m.on_open(fh, b"/data/fpp.0", 4 | 1, 1, true, 1, 2);
    m.on_set_view(fh, false, 3, 5);
    m.on_set_view(fh, true, 6, 9);
    m.on_sync(fh, 10, 14);
    m.on_close(fh, 15, 16);
    let w = &records(&m)[0];
    assert_eq!((counter(w, c::INDEP_OPENS), counter(w, c::COLL_OPENS)), (1, 0));
    assert_eq!((counter(w, c::VIEWS), counter(w, c::HINTS), counter(w, c::SYNCS)), (2, 2, 1));
    assert_eq!(getf(w, c::fword(c::F_META_TIME)), 1.0 + 3.0 + 1.0, "open, the view with hints, close");
    assert_eq!(getf(w, c::fword(c::F_WRITE_TIME)), 4.0);
}

#[test]
fn every_counter_has_a_reduction_rule() {
    assert_eq!(
        darshan_log::reduce::ops::words_no_rules_take(&crate::reduce::RULES, c::RECORD_WORDS),
        Vec::<usize>::new()
    );
}

/// One rank's record of `/data/shared.dat` (opened by 2 ranks, one
/// collective write of `bytes` at `rank * 1000` taking `(rank + 1) * 10`
/// ticks), finalized as rank `rank` of 2 and prepared for the reduction.
fn rank_record(rank: i64, bytes: i64, t: Tick) -> Vec<u64> {
    let m = mpiio(1);
    m.on_open(0xC0, b"/data/shared.dat", 1 | 4, 2, false, t, t + 1);
    m.on_io(0xC0, true, Access::Coll, bytes, rank * 1000, t + 2, t + 2 + (rank + 1) * 10);
    let mut w = darshan_core::module::finalized_records(
        &m,
        &FinalizeCtx { rank, nprocs: 2, ..FinalizeCtx::one_process(1.0, 1_000_000) },
    )
    .remove(0);
    assert_eq!(w[1] as i64, rank);
    crate::reduce::RULES.prepare(&mut w);
    w
}

/// The MPI reduction's operator on two ranks' records of one file: sums,
/// the earliest start and latest end, times added, the slowest and
/// fastest rank by read + write + meta time with their bytes (semantics
/// of darshan-mpiio.c's reduction).
#[test]
fn two_ranks_records_reduce_as_darshans_operator_does() {
    let (a, mut b) = (rank_record(1, 500, 100), rank_record(0, 200, 50));
    crate::reduce::RULES.combine(&a, &mut b);
    assert_eq!(b[1] as i64, -1, "a shared record");
    assert_eq!((counter(&b, c::COLL_OPENS), counter(&b, c::COLL_WRITES)), (2, 2));
    assert_eq!(counter(&b, c::BYTES_WRITTEN), 700);
    assert_eq!(counter(&b, c::SIZE_WRITE_AGG_100_1K), 2);
    assert_eq!(getf(&b, c::fword(c::F_OPEN_START_TIMESTAMP)), 50.0);
    assert_eq!(getf(&b, c::fword(c::F_WRITE_END_TIMESTAMP)), 122.0);
    assert_eq!(getf(&b, c::fword(c::F_WRITE_TIME)), 30.0, "times add up across ranks");
    assert_eq!((counter(&b, c::SLOWEST_RANK), counter(&b, c::SLOWEST_RANK_BYTES)), (1, 500));
    assert_eq!((counter(&b, c::FASTEST_RANK), counter(&b, c::FASTEST_RANK_BYTES)), (0, 200));
    assert_eq!(getf(&b, c::fword(c::F_SLOWEST_RANK_TIME)), 21.0, "open 1 + write 20");
    assert_eq!(getf(&b, c::fword(c::F_FASTEST_RANK_TIME)), 11.0);
}

/// Aggregate access sizes (count × type size) fill the SIZE_*_AGG_
/// histogram at Darshan's inclusive bounds, as POSIX's sizes do.
#[test]
fn access_sizes_fill_the_aggregate_histogram_at_darshans_bucket_edges() {
    let m = mpiio(1);
    m.on_open(0xD0, b"/data/hist.dat", 2, 1, false, 1, 2);
    for s in [0, 100, 101, 1024, 1025, 4 << 20, (4 << 20) + 1] {
        m.on_io(0xD0, false, Access::Indep, s, 0, 3, 4);
    }
    let w = &records(&m)[0];
    let got: Vec<i64> = c::words(c::SIZE_READ_AGG_0_100, c::SIZE_READ_AGG_1G_PLUS).map(|i| w[i] as i64).collect();
    assert_eq!(got, vec![2, 2, 1, 0, 0, 1, 1, 0, 0, 0]);
}

/// Split collectives (`*_begin`) count as SPLIT_, non-blocking calls
/// (`MPI_File_i*`) as NB_, each never as collective or independent, and
/// their bytes count as any access's.
#[test]
fn split_and_non_blocking_calls_have_counters_of_their_own() {
    let m = mpiio(1);
    m.on_open(0xE0, b"/data/split.dat", 1 | 4, 2, false, 1, 2);
    m.on_io(0xE0, true, Access::Split, 4096, 0, 3, 4);
    m.on_io(0xE0, false, Access::Split, 100, 0, 5, 6);
    m.on_io(0xE0, true, Access::Nb, 10, 4096, 7, 8);
    m.on_io(0xE0, true, Access::Nb, 10, 4106, 9, 10);
    m.on_close(0xE0, 11, 12);
    let w = &records(&m)[0];
    let got: Vec<i64> = [c::SPLIT_WRITES, c::SPLIT_READS, c::NB_WRITES, c::NB_READS, c::COLL_WRITES, c::INDEP_WRITES]
        .map(|k| counter(w, k))
        .to_vec();
    assert_eq!(got, [1, 1, 2, 0, 0, 0]);
    assert_eq!((counter(w, c::BYTES_WRITTEN), counter(w, c::BYTES_READ)), (4116, 100));
    assert_eq!(counter(w, c::COLL_OPENS), 1, "opened by a communicator of 2");
}

/// RW_SWITCHES counts each change of direction, not the first access:
/// read, write, write, read, read, write is three changes.
#[test]
fn read_write_switches_count_each_change_of_direction() {
    let m = mpiio(1);
    m.on_open(0xE1, b"/data/rw.dat", 4, 1, false, 1, 2);
    for (k, write) in [false, true, true, false, false, true].into_iter().enumerate() {
        let t = 3 + 2 * k as Tick;
        m.on_io(0xE1, write, Access::Indep, 8, 0, t, t + 1);
    }
    assert_eq!(counter(&records(&m)[0], c::RW_SWITCHES), 3);
}

/// ACCESS1..4 keep the four most frequent access sizes, most frequent
/// first, with their counts; a zero-byte access is no size.
#[test]
fn the_four_most_common_access_sizes_are_kept_most_frequent_first() {
    let m = mpiio(1);
    m.on_open(0xE2, b"/data/common.dat", 2, 1, false, 1, 2);
    let mut t: Tick = 3;
    for (size, times) in [(10, 3), (20, 5), (30, 1), (40, 4), (50, 2), (0, 6)] {
        for _ in 0..times {
            m.on_io(0xE2, false, Access::Indep, size, 0, t, t + 1);
            t += 2;
        }
    }
    let w = &records(&m)[0];
    let access: Vec<(i64, i64)> =
        (0..4).map(|k| (counter(w, c::ACCESS1_ACCESS.plus(k)), counter(w, c::ACCESS1_COUNT.plus(k)))).collect();
    assert_eq!(access, [(20, 5), (40, 4), (10, 3), (50, 2)]);
    assert_eq!(counter(w, c::INDEP_READS), 21, "the zero-byte reads are reads");
    assert_eq!(counter(w, c::SIZE_READ_AGG_0_100), 21);
}

/// The slowest read and the slowest write keep their time and size
/// (F_MAX_*_TIME, MAX_*_TIME_SIZE), each of its own direction.
#[test]
fn the_slowest_read_and_write_keep_their_sizes() {
    let m = mpiio(1);
    m.on_open(0xE3, b"/data/slow.dat", 4, 1, false, 1, 2);
    m.on_io(0xE3, false, Access::Indep, 100, 0, 10, 15);
    m.on_io(0xE3, false, Access::Indep, 200, 0, 20, 22);
    m.on_io(0xE3, true, Access::Coll, 300, 0, 30, 31);
    m.on_io(0xE3, true, Access::Coll, 400, 0, 40, 47);
    let w = &records(&m)[0];
    assert_eq!((counter(w, c::MAX_READ_TIME_SIZE), getf(w, c::fword(c::F_MAX_READ_TIME))), (100, 5.0));
    assert_eq!((counter(w, c::MAX_WRITE_TIME_SIZE), getf(w, c::fword(c::F_MAX_WRITE_TIME))), (400, 7.0));
}

/// Calls on a handle the module never saw opened, or after its close, are
/// not counted (Darshan finds the record from the handle or not at all).
#[test]
fn calls_on_an_unknown_or_closed_handle_are_not_counted() {
    let never = mpiio(1);
    never.on_io(0xF0, true, Access::Indep, 100, 0, 1, 2);
    never.on_sync(0xF0, 3, 4);
    assert!(records(&never).is_empty(), "no record without an open");
    // (records() finalizes: a module of its own for the closed handle.)
    let m = mpiio(1);
    m.on_open(0xF1, b"/data/once.dat", 4, 1, false, 5, 6);
    m.on_io(0xF1, true, Access::Indep, 100, 0, 7, 8);
    m.on_close(0xF1, 9, 10);
    m.on_io(0xF1, true, Access::Indep, 100, 0, 11, 12);
    let w = &records(&m)[0];
    assert_eq!((counter(w, c::INDEP_WRITES), counter(w, c::BYTES_WRITTEN)), (1, 100));
}

/// Each kind's first start and last end: opens, reads, writes, closes.
#[test]
fn timestamps_are_each_kinds_first_start_and_last_end() {
    let m = mpiio(1);
    m.on_open(0xF2, b"/data/times.dat", 4 | 1, 1, false, 1, 2);
    m.on_io(0xF2, false, Access::Indep, 8, 0, 3, 4);
    m.on_io(0xF2, false, Access::Indep, 8, 0, 7, 9);
    m.on_io(0xF2, true, Access::Indep, 8, 0, 5, 6);
    m.on_close(0xF2, 10, 11);
    let w = &records(&m)[0];
    let f = |k: c::FCounter| getf(w, c::fword(k));
    assert_eq!((f(c::F_OPEN_START_TIMESTAMP), f(c::F_OPEN_END_TIMESTAMP)), (1.0, 2.0));
    assert_eq!((f(c::F_READ_START_TIMESTAMP), f(c::F_READ_END_TIMESTAMP)), (3.0, 9.0));
    assert_eq!((f(c::F_WRITE_START_TIMESTAMP), f(c::F_WRITE_END_TIMESTAMP)), (5.0, 6.0));
    assert_eq!((f(c::F_CLOSE_START_TIMESTAMP), f(c::F_CLOSE_END_TIMESTAMP)), (10.0, 11.0));
}

/// Two threads' overlapping reads count their union, not their sum
/// (Darshan's non-overlapping timer); set_size or set_info time is
/// metadata time and no counter.
#[test]
fn overlapping_calls_count_their_union_and_metadata_calls_only_time() {
    let m = mpiio(1);
    m.on_open(0xF3, b"/data/threads.dat", 2, 1, false, 1, 2);
    m.on_io(0xF3, false, Access::Indep, 8, 0, 10, 15);
    m.on_io(0xF3, false, Access::Indep, 8, 0, 12, 18);
    m.on_meta(0xF3, 20, 23);
    let w = &records(&m)[0];
    assert_eq!(getf(w, c::fword(c::F_READ_TIME)), 8.0, "10..18");
    assert_eq!(getf(w, c::fword(c::F_META_TIME)), 1.0 + 3.0, "open and set_size");
    assert_eq!((counter(w, c::VIEWS), counter(w, c::HINTS), counter(w, c::SYNCS)), (0, 0, 0));
}
