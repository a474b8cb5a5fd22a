//! The counting rules on calls whose answers are known (C's macros in
//! autoperf's darshan-apmpi.c); the whole module against C's log is
//! ffi/tests/apmpi.rs.

use super::*;
use darshan_core::arena::RecordArena;
use darshan_log::autoperf::{header_from, perf_from, Perf};

fn fresh(rank: i64) -> Apmpi {
    let m = Apmpi::new();
    let mut arena = RecordArena::new(1 << 20).unwrap();
    let mut env = Env::for_tests();
    env.rank = rank;
    m.attach(arena.reserve(PERF_WORDS, 2), &env);
    m.lock().tick_secs = 1e-6;
    m.start(b"node-7", false);
    m
}

/// A record's words read back by the format crate's reader (the one
/// darshan-parser uses, checked against C's AutoPerf darshan-util).
fn read(r: &[u64]) -> Perf {
    let b: Vec<u8> = r.iter().flat_map(|w| w.to_le_bytes()).collect();
    assert_eq!(b.len(), f::PERF_SIZE);
    perf_from(&b, false)
}

fn counter(r: &[u64], name: &str) -> i64 {
    let k = f::NAMES.iter().position(|n| *n == name).unwrap();
    read(r).counters[k] as i64
}

fn time(r: &[u64], name: &str) -> f64 {
    let k = f::F_TIME_NAMES.iter().position(|n| *n == name).unwrap();
    read(r).time[k]
}

const SEND: OpId = OpId::named("MPI_SEND");
const BARRIER: OpId = OpId::named("MPI_BARRIER");
const ALLREDUCE: OpId = OpId::named("MPI_ALLREDUCE");

#[test]
fn the_record_ids_are_the_hashes_of_the_names_c_registers() {
    assert_eq!(HEADER_ID, darshan_log::record_id(HEADER_NAME));
    assert_eq!(PERF_ID, darshan_log::record_id(PERF_NAME));
    assert_eq!((HEADER_NAME, PERF_NAME), (&b"darshan-apmpi-header"[..], &b"APMPI"[..]));
}

#[test]
fn sizes_fall_in_c_buckets_at_their_inclusive_bounds() {
    let cases = [(0, 0), (256, 0), (257, 1), (1024, 1), (1025, 2), (8192, 2), (8193, 3)];
    let more = [(262_144, 3), (262_145, 4), (1 << 20, 4), ((1 << 20) + 1, 5), (-5, 0)];
    for (b, k) in cases.into_iter().chain(more) {
        assert_eq!(bucket(b), k, "{b} bytes");
    }
}

#[test]
fn a_count_times_a_size_past_two_gib_wraps_as_c_int_arithmetic() {
    assert_eq!(c_bytes(70_000, 4), 280_000);
    assert_eq!(c_bytes(1 << 30, 4), 0);
    assert_eq!(c_bytes(600_000_000, 4), (600_000_000i32).wrapping_mul(4) as i64);
    assert_eq!(c_bytes(0, 8), 0);
    assert_eq!(c_bytes(-3, 8), 0);
}

#[test]
fn operations_are_found_by_their_format_names_with_their_sync_times() {
    assert_eq!(SEND.get().name, "MPI_SEND");
    assert_eq!(SEND.sync_index(), None);
    assert_eq!(BARRIER.sync_index(), Some(0));
    let k = ALLREDUCE.sync_index().unwrap();
    assert_eq!(f::F_SYNC_NAMES[k], "MPI_ALLREDUCE_TOTAL_SYNC_TIME");
    assert_eq!(OpId::named("MPI_IALLREDUCE").sync_index(), None);
}

#[test]
fn calls_add_counts_bytes_buckets_and_least_and_most_time() {
    let m = fresh(3);
    m.on_call(SEND, Some(400), 30, None);
    m.on_call(SEND, Some(4), 10, None);
    m.on_call(SEND, Some(300_000), 50, None);
    m.on_call(BARRIER, None, 7, None);
    let r = m.own_record().unwrap();
    assert_eq!((r[0], r[1] as i64), (PERF_ID, 3));
    assert_eq!(counter(&r, "MPI_SEND_CALL_COUNT"), 3);
    assert_eq!(counter(&r, "MPI_SEND_TOTAL_BYTES"), 300_404);
    assert_eq!(counter(&r, "MPI_SEND_MSG_SIZE_AGG_0_256"), 1);
    assert_eq!(counter(&r, "MPI_SEND_MSG_SIZE_AGG_256_1K"), 1);
    assert_eq!(counter(&r, "MPI_SEND_MSG_SIZE_AGG_256K_1M"), 1);
    assert_eq!(counter(&r, "MPI_BARRIER_CALL_COUNT"), 1);
    assert!((time(&r, "MPI_SEND_TOTAL_TIME") - 90e-6).abs() < 1e-12);
    assert!((time(&r, "MPI_SEND_MIN_TIME") - 10e-6).abs() < 1e-12);
    assert!((time(&r, "MPI_SEND_MAX_TIME") - 50e-6).abs() < 1e-12);
    assert_eq!(read(&r).node_name(), b"node-7");
}

#[test]
fn the_shutdown_scales_the_times_to_the_clock_rate_known_then() {
    let m = fresh(1);
    m.on_call(SEND, Some(8), 100, None);
    m.on_call(ALLREDUCE, Some(8), 40, Some(10));
    let mut ctx = FinalizeCtx::one_process(1.01e-6, 1000);
    ctx.rank = 1;
    m.finalize(&ctx);
    let r = read(&m.own_record().unwrap());
    let k = f::OPS.iter().position(|o| o.name == "MPI_SEND").unwrap();
    let near = |a: f64, b: f64| (a - b).abs() < 1e-15;
    assert!(
        near(r.time[3 * k], 101e-6) && near(r.time[3 * k + 1], 101e-6) && near(r.time[3 * k + 2], 101e-6),
        "{:?}",
        &r.time[3 * k..3 * k + 3]
    );
    let s = ALLREDUCE.sync_index().unwrap();
    assert!(near(r.sync[s], 10.1e-6), "{}", r.sync[s]);
}

#[test]
fn a_least_time_of_zero_is_taken_for_none_yet_as_c_takes_it() {
    let m = fresh(0);
    m.on_call(SEND, Some(1), 0, None);
    m.on_call(SEND, Some(1), 5, None);
    let r = m.own_record().unwrap();
    assert!((time(&r, "MPI_SEND_MIN_TIME") - 5e-6).abs() < 1e-12);
}

#[test]
fn rank_zero_writes_the_header_first_and_other_ranks_only_their_record() {
    for rank in [0, 2] {
        let m = fresh(rank);
        m.on_call(BARRIER, None, 1, Some(4));
        let mut ctx = FinalizeCtx::one_process(1e-6, 10);
        ctx.rank = rank;
        m.finalize(&ctx);
        let mut runs = Vec::new();
        m.output(&mut |r| runs.push(r.to_vec()));
        let lens: Vec<usize> = runs.iter().map(|r| r.len()).collect();
        let mut ids = Vec::new();
        m.record_ids(&mut |id| ids.push(id));
        if rank == 0 {
            assert_eq!(lens, [HEADER_WORDS, PERF_WORDS]);
            let b: Vec<u8> = runs[0].iter().flat_map(|w| w.to_le_bytes()).collect();
            let h = header_from(&b.try_into().unwrap(), false);
            assert_eq!((h.id, h.rank, h.magic, h.sync_flag), (HEADER_ID, 0, f::MAGIC, 0));
            assert_eq!(ids, [HEADER_ID, PERF_ID]);
        } else {
            assert_eq!(lens, [PERF_WORDS]);
            assert_eq!(ids, [PERF_ID]);
        }
    }
}

#[test]
fn the_totals_add_every_operation_time_and_the_sync_times() {
    let m = fresh(0);
    m.on_call(SEND, Some(8), 10, None);
    m.on_call(ALLREDUCE, Some(8), 20, Some(5));
    m.on_call(BARRIER, None, 30, Some(7));
    let (comm, sync) = m.lock().totals().unwrap();
    assert!((sync - 12e-6).abs() < 1e-12, "{sync}");
    assert!((comm - 72e-6).abs() < 1e-12, "{comm}");
    let r = m.own_record().unwrap();
    assert_eq!(read(&r).global, [comm, sync]);
}

#[test]
fn a_module_switched_off_makes_no_record() {
    let m = Apmpi::new();
    let mut config = darshan_core::config::Config::default();
    config.mod_enabled[ID] = false;
    let env = Env::for_config(config);
    let mut arena = RecordArena::new(1 << 16).unwrap();
    m.attach(arena.reserve(PERF_WORDS, 0), &env);
    m.on_call(SEND, Some(8), 10, None);
    assert_eq!(m.own_record(), None);
}
