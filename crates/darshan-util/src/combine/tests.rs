//! Known patterns; tests/c-darshan/util_programs.sh holds the logs C's
//! darshan-merge wrote from a killed job's ranks.

use super::*;

/// Rank `rank`'s H5D record of dataset `id`: `bytes` written, `secs` of
/// write time, one access tuple (`size`, seen `count` times).
fn h5d_rec(id: u64, rank: i64, bytes: i64, secs: f64, size: i64, count: i64) -> Record {
    let mut r = Record::zeroed(H5D, id, rank);
    r.counters[h5d::WRITES] = 1;
    r.counters[h5d::BYTES_WRITTEN] = bytes;
    r.counters[h5d::USE_MPIIO_COLLECTIVE] = i64::from(rank == 2);
    r.counters[h5d::DATASPACE_NDIMS] = 2;
    r.counters[h5d::ACCESS1_ACCESS] = size;
    r.counters[h5d::ACCESS1_LENGTH_D1] = size / 8;
    r.counters[h5d::ACCESS1_COUNT] = count;
    r.fcounters[h5d::F_WRITE_TIME] = secs;
    r.fcounters[h5d::F_WRITE_START_TIMESTAMP] = 10.0 - rank as f64;
    r.fcounters[h5d::F_WRITE_END_TIMESTAMP] = 20.0 + rank as f64;
    r.extra = darshan_log::Extra::FileRecId(99);
    r
}

fn population_variance(xs: &[f64]) -> f64 {
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / xs.len() as f64
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Four ranks' records of one dataset: sums, a flag any rank set, the
/// first start and last end, the fastest and slowest rank, and the
/// ranks' population variances of time and bytes.
#[test]
fn four_ranks_of_one_dataset_combine_into_sums_extremes_and_the_ranks_variances() {
    let recs: Vec<Record> = (0..4).map(|k| h5d_rec(7, k, 100 * (k + 1), 0.5 * (k + 1) as f64, 512, 1)).collect();
    let aggs = aggregate_in_order(&recs);
    let a = &aggs[&7];
    assert_eq!((a.id, a.rank), (7, -1));
    let c = |i: usize| a.counters[i];
    assert_eq!((c(h5d::WRITES), c(h5d::BYTES_WRITTEN), c(h5d::USE_MPIIO_COLLECTIVE)), (4, 1000, 1));
    assert_eq!((c(h5d::FASTEST_RANK), c(h5d::FASTEST_RANK_BYTES)), (0, 100));
    assert_eq!((c(h5d::SLOWEST_RANK), c(h5d::SLOWEST_RANK_BYTES)), (3, 400));
    assert_eq!((c(h5d::ACCESS1_ACCESS), c(h5d::ACCESS1_COUNT), c(h5d::ACCESS2_ACCESS)), (512, 4, 0));
    let f = |i: usize| a.fcounters[i];
    assert_eq!((f(h5d::F_WRITE_START_TIMESTAMP), f(h5d::F_WRITE_END_TIMESTAMP)), (7.0, 23.0));
    assert!(close(f(h5d::F_WRITE_TIME), 5.0));
    assert!(close(f(h5d::F_VARIANCE_RANK_TIME), population_variance(&[0.5, 1.0, 1.5, 2.0])));
    assert!(close(f(h5d::F_VARIANCE_RANK_BYTES), population_variance(&[100.0, 200.0, 300.0, 400.0])));
    assert_eq!(a.extra, darshan_log::Extra::FileRecId(99));
    assert_eq!(recs[1].counters[h5d::ACCESS1_ACCESS], 512, "the inputs are left as they are");
}

/// darshan-merge passes rank 0's records of both datasets, then rank
/// 1's: the running variance restarts at each of rank 0's records and
/// runs on over rank 1's, whatever their dataset.
#[test]
fn the_rank_variance_runs_over_the_records_in_the_order_darshan_merge_passes_them() {
    let secs = [[1.0, 4.0], [2.0, 8.0]];
    let recs: Vec<Record> = (0..2)
        .flat_map(|rank| (0..2).map(move |d| h5d_rec(d as u64 + 1, rank, 8, secs[rank as usize][d], 8, 1)))
        .collect();
    let aggs = aggregate_in_order(&recs);
    // Since the last restart (rank 0's dataset 2): 4.0, then 2.0 (rank 1,
    // dataset 1), then 8.0 (rank 1, dataset 2).
    assert!(close(aggs[&1].fcounters[h5d::F_VARIANCE_RANK_TIME], population_variance(&[4.0, 2.0])));
    assert!(close(aggs[&2].fcounters[h5d::F_VARIANCE_RANK_TIME], population_variance(&[4.0, 2.0, 8.0])));
}

/// Access tuples: a size all ranks made adds up its counts; two sizes
/// seen equally often rank the larger first.
#[test]
fn access_tuples_add_up_and_rank_by_count_then_size() {
    let mut small = h5d_rec(7, 1, 8, 1.0, 64, 8);
    small.counters[h5d::ACCESS2_ACCESS] = 512;
    small.counters[h5d::ACCESS2_LENGTH_D1] = 64;
    small.counters[h5d::ACCESS2_COUNT] = 4;
    let recs = [h5d_rec(7, 0, 8, 1.0, 512, 4), small];
    let a = &aggregate_in_order(&recs)[&7];
    let c = |i: usize| a.counters[i];
    assert_eq!(
        [c(h5d::ACCESS1_ACCESS), c(h5d::ACCESS1_COUNT), c(h5d::ACCESS2_ACCESS), c(h5d::ACCESS2_COUNT)],
        [512, 8, 64, 8]
    );
    assert_eq!((c(h5d::ACCESS1_LENGTH_D1), c(h5d::ACCESS2_LENGTH_D1)), (64, 8), "lengths move with their size");
}

/// darshan-util has no rule for a PnetCDF variable's nonblocking
/// counts: they become -1, and a record only the first rank has is not
/// in another's.
#[test]
fn a_pnetcdf_variables_nonblocking_counts_have_no_rule_and_become_minus_one() {
    let mut r = Record::zeroed(PNETCDF_VAR, 3, 0);
    r.counters[pv::NB_WRITES] = 2;
    r.counters[pv::INDEP_WRITES] = 1;
    let mut s = r.clone();
    s.rank = 1;
    let a = &aggregate_in_order(&[r, s])[&3];
    assert_eq!((a.counters[pv::INDEP_WRITES], a.counters[pv::NB_WRITES], a.counters[pv::NB_READS]), (2, -1, -1));
}

/// Modules the accumulator or nothing here combines are refused.
#[test]
fn records_of_other_modules_or_shapes_are_refused() {
    let mut var = Variance::default();
    let mut agg = Record::new(H5F);
    assert!(!agg_records(&mut Record::zeroed(darshan_log::modules::POSIX, 1, 0), &mut agg, true, &mut var));
    let mut short = Record::zeroed(H5F, 1, 0);
    short.counters.pop();
    assert!(!agg_records(&mut short, &mut agg, true, &mut var));
    assert!(agg.counters.is_empty());
}
