//! darshan-util's combiners (`log_agg_records`) for the modules beyond
//! the accumulator's five: HDF5 files (H5F) and datasets (H5D), PnetCDF
//! files and variables, and the NULL example module. darshan-merge
//! `--shared-redux` combines every rank's record of a file with them (a
//! killed HDF5 job's recovered log); C programs call them through
//! libdarshan-util.
//!
//! The rules are darshan-util 3.5.0's, quirks included, because a merged
//! log must be the one C's darshan-merge writes:
//! * a counter without a rule becomes -1 (so do a PnetCDF variable's
//!   NB_READS and NB_WRITES, and NULL's F_FOO_MAX_DURATION right after
//!   FOO_MAX_DAT's maximum carried it over);
//! * a dataset's four access tuples (size, lengths and strides per
//!   dimension) merge as darshan-util merges them, duplicates first;
//! * the rank variances come from one running (n, mean, M2) that each of
//!   the first rank's records restarts and every other rank's record
//!   updates, whatever its dataset: darshan-util keeps it in the caller's
//!   buffer past the incoming record, which darshan-merge reuses for
//!   every record of the module. With one dataset per log it is the
//!   ranks' population variance; with more, a blend (see [`Variance`]).
//!
//! MDHIM has no combiner here: darshan-util's sets MDHIM_SERVERS, the
//! length of the record's server histogram, to -1 (a missing `break`),
//! so the record it makes has no length the format can lay out.

use std::collections::HashMap;

use darshan_log::counters::{h5d, h5f, null, pnetcdf_file as pf, pnetcdf_var as pv};
use darshan_log::modules::{H5D, H5F, NULL, PNETCDF_FILE, PNETCDF_VAR};
use darshan_log::Record;

/// How a counter of an incoming record enters the aggregate; a counter
/// without one becomes -1.
#[derive(Clone, Copy)]
enum C {
    Sum,
    /// 1 once any record has it above 0.
    Flag,
    /// The incoming record's value.
    Copy,
    /// Left alone here: set by an fcounter's rule or with the tuples.
    Later,
    /// The four access tuples, merged at their first counter.
    Access,
    /// The maximum, carrying fcounter `.0` along from the same record.
    MaxCarrying(usize),
}

/// How an fcounter of an incoming record enters the aggregate; one
/// without a rule becomes -1.
#[derive(Clone, Copy)]
enum F {
    Sum,
    /// The smallest value above 0 (a start time).
    MinNonZero,
    Max,
    /// The maximum, carrying counter `.0` along from the same record.
    MaxCarrying(usize),
    Fastest,
    Slowest,
    VarianceOfTime,
    VarianceOfBytes,
}

/// A module's rules: inclusive ranges of indices, each with its rule.
struct Combiner {
    counters: &'static [(usize, usize, C)],
    fcounters: &'static [(usize, usize, F)],
    ranks: Option<&'static RankFigures>,
}

/// Where a dataset's per-rank figures live: what the fastest, slowest
/// and variance rules take from each record, and its access tuples.
struct RankFigures {
    bytes: [usize; 2],
    times: [usize; 3],
    fastest: [usize; 2],
    slowest: [usize; 2],
    tuples: Tuples,
}

/// Four (value, count) tuples of `width` counters each, the values from
/// `first` on and the counts from `counts` on.
#[derive(Clone, Copy)]
struct Tuples {
    first: usize,
    counts: usize,
    width: usize,
}

const H5F_RULES: Combiner = Combiner {
    counters: &[(h5f::OPENS, h5f::FLUSHES, C::Sum), (h5f::USE_MPIIO, h5f::USE_MPIIO, C::Flag)],
    fcounters: &[
        (h5f::F_OPEN_START_TIMESTAMP, h5f::F_CLOSE_START_TIMESTAMP, F::MinNonZero),
        (h5f::F_OPEN_END_TIMESTAMP, h5f::F_CLOSE_END_TIMESTAMP, F::Max),
        (h5f::F_META_TIME, h5f::F_META_TIME, F::Sum),
    ],
    ranks: None,
};

const PNETCDF_FILE_RULES: Combiner = Combiner {
    counters: &[(pf::CREATES, pf::WAIT_FAILURES, C::Sum)],
    fcounters: &[
        (pf::F_OPEN_START_TIMESTAMP, pf::F_WAIT_START_TIMESTAMP, F::MinNonZero),
        (pf::F_OPEN_END_TIMESTAMP, pf::F_WAIT_END_TIMESTAMP, F::Max),
        (pf::F_META_TIME, pf::F_WAIT_TIME, F::Sum),
    ],
    ranks: None,
};

const NULL_RULES: Combiner = Combiner {
    counters: &[
        (null::FOOS, null::FOOS, C::Sum),
        (null::FOO_MAX_DAT, null::FOO_MAX_DAT, C::MaxCarrying(null::F_FOO_MAX_DURATION)),
    ],
    fcounters: &[(null::F_FOO_TIMESTAMP, null::F_FOO_TIMESTAMP, F::MinNonZero)],
    ranks: None,
};

/// A dataset's fcounters (H5D and PnetCDF variables lay them out alike).
macro_rules! dataset_fcounters {
    ($m:ident) => {
        &[
            ($m::F_READ_TIME, $m::F_META_TIME, F::Sum),
            ($m::F_OPEN_START_TIMESTAMP, $m::F_CLOSE_START_TIMESTAMP, F::MinNonZero),
            ($m::F_OPEN_END_TIMESTAMP, $m::F_CLOSE_END_TIMESTAMP, F::Max),
            ($m::F_MAX_READ_TIME, $m::F_MAX_READ_TIME, F::MaxCarrying($m::MAX_READ_TIME_SIZE)),
            ($m::F_MAX_WRITE_TIME, $m::F_MAX_WRITE_TIME, F::MaxCarrying($m::MAX_WRITE_TIME_SIZE)),
            ($m::F_FASTEST_RANK_TIME, $m::F_FASTEST_RANK_TIME, F::Fastest),
            ($m::F_SLOWEST_RANK_TIME, $m::F_SLOWEST_RANK_TIME, F::Slowest),
            ($m::F_VARIANCE_RANK_TIME, $m::F_VARIANCE_RANK_TIME, F::VarianceOfTime),
            ($m::F_VARIANCE_RANK_BYTES, $m::F_VARIANCE_RANK_BYTES, F::VarianceOfBytes),
        ]
    };
}

/// A dataset's per-rank figures and tuples.
macro_rules! rank_figures {
    ($m:ident) => {
        &RankFigures {
            bytes: [$m::BYTES_READ, $m::BYTES_WRITTEN],
            times: [$m::F_READ_TIME, $m::F_WRITE_TIME, $m::F_META_TIME],
            fastest: [$m::FASTEST_RANK, $m::FASTEST_RANK_BYTES],
            slowest: [$m::SLOWEST_RANK, $m::SLOWEST_RANK_BYTES],
            tuples: Tuples { first: $m::ACCESS1_ACCESS, counts: $m::ACCESS1_COUNT, width: 2 * $m::MAX_NDIMS + 1 },
        }
    };
}

const H5D_RULES: Combiner = Combiner {
    counters: &[
        (h5d::OPENS, h5d::POINT_SELECTS, C::Sum),
        (h5d::MAX_READ_TIME_SIZE, h5d::MAX_WRITE_TIME_SIZE, C::Later),
        (h5d::SIZE_READ_AGG_0_100, h5d::SIZE_WRITE_AGG_1G_PLUS, C::Sum),
        (h5d::ACCESS1_ACCESS, h5d::ACCESS1_ACCESS, C::Access),
        (h5d::ACCESS1_LENGTH_D1, h5d::ACCESS4_COUNT, C::Later),
        (h5d::DATASPACE_NDIMS, h5d::CHUNK_SIZE_D5, C::Copy),
        (h5d::USE_MPIIO_COLLECTIVE, h5d::USE_DEPRECATED, C::Flag),
        (h5d::FASTEST_RANK, h5d::SLOWEST_RANK_BYTES, C::Later),
    ],
    fcounters: dataset_fcounters!(h5d),
    ranks: Some(rank_figures!(h5d)),
};

const PNETCDF_VAR_RULES: Combiner = Combiner {
    counters: &[
        (pv::OPENS, pv::COLL_WRITES, C::Sum),
        // NB_READS and NB_WRITES have no rule in darshan-util: -1.
        (pv::BYTES_READ, pv::BPUT_VARN, C::Sum),
        (pv::MAX_READ_TIME_SIZE, pv::MAX_WRITE_TIME_SIZE, C::Later),
        (pv::SIZE_READ_AGG_0_100, pv::SIZE_WRITE_AGG_1G_PLUS, C::Sum),
        (pv::ACCESS1_ACCESS, pv::ACCESS1_ACCESS, C::Access),
        (pv::ACCESS1_LENGTH_D1, pv::ACCESS4_COUNT, C::Later),
        (pv::NDIMS, pv::DATATYPE_SIZE, C::Copy),
        (pv::IS_RECORD_VAR, pv::IS_RECORD_VAR, C::Flag),
        (pv::FASTEST_RANK, pv::SLOWEST_RANK_BYTES, C::Later),
    ],
    fcounters: dataset_fcounters!(pv),
    ranks: Some(rank_figures!(pv)),
};

const fn combiner(module: usize) -> Option<&'static Combiner> {
    match module {
        H5F => Some(&H5F_RULES),
        H5D => Some(&H5D_RULES),
        PNETCDF_FILE => Some(&PNETCDF_FILE_RULES),
        PNETCDF_VAR => Some(&PNETCDF_VAR_RULES),
        NULL => Some(&NULL_RULES),
        _ => None,
    }
}

/// Whether `module` has a combiner here.
pub const fn combines(module: usize) -> bool {
    combiner(module).is_some()
}

/// Welford's running mean and sum of squared deviations, as darshan-util
/// keeps them (n a double).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Running {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Running {
    fn restart(&mut self, x: f64) {
        *self = Running { n: 1.0, mean: x, m2: 0.0 };
    }

    /// `x` added; the population variance so far.
    fn add(&mut self, x: f64) -> f64 {
        let old = self.mean;
        self.n += 1.0;
        self.mean += (x - self.mean) / self.n;
        self.m2 += (x - self.mean) * (x - old);
        self.m2 / self.n
    }
}

/// The running figures behind a dataset's rank variances. darshan-util
/// keeps one per buffer of incoming records, not one per file: every
/// first record (`init`) restarts it, every later one adds to it, so a
/// caller who passes each file's records in turn gets each file's
/// variance, and darshan-merge, which passes every rank's records of all
/// files through one buffer, gets variances over whatever came since the
/// last first record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Variance {
    time: Running,
    bytes: Running,
}

/// darshan-util's `log_agg_records` for these modules: `rec` added into
/// `agg`, `var` the running variance figures (see [`Variance`]). `agg`
/// starts from zeros when it has another shape (a new record); its id
/// and rank are left alone. `rec`'s access tuples that `agg` already has
/// are zeroed, as darshan-util zeroes them. False, nothing changed, for a
/// module without a combiner or records of another shape.
pub fn agg_records(rec: &mut Record, agg: &mut Record, init: bool, var: &mut Variance) -> bool {
    let Some(rules) = combiner(rec.module) else { return false };
    let (nc, nf) = darshan_log::modules::counter_names(rec.module);
    if rec.counters.len() != nc.len() || rec.fcounters.len() != nf.len() {
        return false;
    }
    if agg.counters.len() != nc.len() || agg.fcounters.len() != nf.len() {
        agg.counters = vec![0; nc.len()];
        agg.fcounters = vec![0.0; nf.len()];
    }
    if rules.ranks.is_some() {
        agg.extra = rec.extra.clone();
    }
    combine_counters(rules, rec, agg);
    combine_fcounters(rules, rec, agg, init, var);
    true
}

/// darshan-merge's pass over one module's records (every input's, in
/// order): an aggregate (rank -1) for each id of the first rank's
/// records, the other ranks' records of those ids added in, the
/// variances running through them all as through darshan-util's one
/// buffer. The records are left as they are.
pub fn aggregate_in_order<'a>(recs: impl IntoIterator<Item = &'a Record>) -> HashMap<u64, Record> {
    let (mut aggs, mut var) = (HashMap::new(), Variance::default());
    let mut first_rank = -1;
    for r in recs {
        if first_rank == -1 {
            first_rank = r.rank;
        }
        // A copy: darshan-util zeroes the incoming tuples it merged.
        if r.rank == first_rank {
            let mut agg = Record::new(r.module);
            agg_records(&mut r.clone(), &mut agg, true, &mut var);
            (agg.id, agg.rank) = (r.id, -1);
            aggs.insert(r.id, agg);
        } else if let Some(agg) = aggs.get_mut(&r.id) {
            agg_records(&mut r.clone(), agg, false, &mut var);
        }
    }
    aggs
}

fn rule<R: Copy>(table: &[(usize, usize, R)], i: usize) -> Option<R> {
    table.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&i)).map(|t| t.2)
}

fn combine_counters(rules: &Combiner, rec: &mut Record, agg: &mut Record) {
    for i in 0..rec.counters.len() {
        let (r, a) = (rec.counters[i], &mut agg.counters[i]);
        match rule(rules.counters, i) {
            Some(C::Sum) => *a = a.wrapping_add(r),
            Some(C::Flag) if r > 0 => *a = 1,
            Some(C::Copy) => *a = r,
            Some(C::Flag | C::Later) => {}
            Some(C::Access) => {
                if let Some(f) = rules.ranks {
                    merge_tuples(&mut agg.counters, &mut rec.counters, f.tuples);
                }
            }
            Some(C::MaxCarrying(f)) => {
                if r > *a {
                    *a = r;
                    agg.fcounters[f] = rec.fcounters[f];
                }
            }
            None => *a = -1,
        }
    }
}

fn combine_fcounters(rules: &Combiner, rec: &Record, agg: &mut Record, init: bool, var: &mut Variance) {
    // A dataset's figures for this rank, as darshan-util takes them.
    let (bytes, time) = rules.ranks.map_or((0.0, 0.0), |f| {
        let b = rec.counters[f.bytes[0]] as f64 + rec.counters[f.bytes[1]] as f64;
        (b, f.times.iter().map(|&t| rec.fcounters[t]).fold(0.0, |s, t| s + t))
    });
    let rank_of = |at: [usize; 2], agg: &mut Record, i: usize| {
        agg.counters[at[0]] = rec.rank;
        agg.counters[at[1]] = bytes as i64;
        agg.fcounters[i] = time;
    };
    for i in 0..rec.fcounters.len() {
        let r = rec.fcounters[i];
        match (rule(rules.fcounters, i), rules.ranks) {
            (Some(F::Sum), _) => agg.fcounters[i] += r,
            (Some(F::MinNonZero), _) => {
                if r > 0.0 && (agg.fcounters[i] == 0.0 || r < agg.fcounters[i]) {
                    agg.fcounters[i] = r;
                }
            }
            // C's `if (r > a) a = r`: a NaN never wins (`f64::max` would let one).
            (Some(F::Max), _) => {
                if r > agg.fcounters[i] {
                    agg.fcounters[i] = r;
                }
            }
            (Some(F::MaxCarrying(c)), _) => {
                if r > agg.fcounters[i] {
                    agg.fcounters[i] = r;
                    agg.counters[c] = rec.counters[c];
                }
            }
            (Some(F::Fastest), Some(f)) => {
                if init || time < agg.fcounters[i] {
                    rank_of(f.fastest, agg, i);
                }
            }
            (Some(F::Slowest), Some(f)) => {
                if init || time > agg.fcounters[i] {
                    rank_of(f.slowest, agg, i);
                }
            }
            (Some(F::VarianceOfTime), _) => variance(&mut var.time, time, init, &mut agg.fcounters[i]),
            (Some(F::VarianceOfBytes), _) => variance(&mut var.bytes, bytes, init, &mut agg.fcounters[i]),
            (None, _) | (Some(F::Fastest | F::Slowest), None) => agg.fcounters[i] = -1.0,
        }
    }
}

fn variance(run: &mut Running, x: f64, init: bool, out: &mut f64) {
    if init {
        run.restart(x);
    } else {
        *out = run.add(x);
    }
}

/// darshan-util's merge of a dataset's access tuples: first the incoming
/// tuples `agg` already has (their counts added, the incoming tuple
/// zeroed), then each remaining one in rank order (more counts first,
/// then the larger size), the merge ending at the first empty incoming
/// tuple or one that ranks below all four.
fn merge_tuples(agg: &mut [i64], rec: &mut [i64], t: Tuples) {
    if rec[t.first] == 0 {
        return;
    }
    let at = |s: usize| t.first + s * t.width;
    for j in 0..4 {
        for k in 0..4 {
            if rec[at(j)..at(j) + t.width] == agg[at(k)..at(k) + t.width] {
                rec[at(j)..at(j) + t.width].fill(0);
                agg[t.counts + k] = agg[t.counts + k].wrapping_add(rec[t.counts + j]);
                rec[t.counts + j] = 0;
            }
        }
    }
    for j in 0..4 {
        if rec[at(j)] == 0 || !insert_tuple(agg, &rec[at(j)..at(j) + t.width], rec[t.counts + j], t) {
            break;
        }
    }
}

/// One incoming tuple, seen `count` times, into `agg`'s four in rank
/// order; false when it ranks below all four (darshan-util stops there).
fn insert_tuple(agg: &mut [i64], tuple: &[i64], count: i64, t: Tuples) -> bool {
    let at = |s: usize| t.first + s * t.width;
    // Past the fourth tuple darshan-util reads on through the record;
    // what lies outside it reads as 0 here.
    let word = |agg: &[i64], w: usize| agg.get(w).copied().unwrap_or(0);
    let slot = |agg: &[i64], s: usize| -> Vec<i64> { (at(s)..at(s) + t.width).map(|w| word(agg, w)).collect() };
    let known = (0..4).find(|&k| agg[at(k)..at(k) + t.width] == *tuple);
    // darshan-util's total is an int.
    let total = known.map_or(count, |k| agg[t.counts + k].wrapping_add(count)) as i32 as i64;
    let (mut vals, mut cnts) = (Vec::with_capacity(4), Vec::with_capacity(4));
    let mut k = 0;
    while k < 4 && (agg[t.counts + k] > total || (agg[t.counts + k] == total && agg[at(k)] > tuple[0])) {
        vals.push(slot(agg, k));
        cnts.push(agg[t.counts + k]);
        k += 1;
    }
    if vals.len() == 4 {
        return false;
    }
    vals.push(tuple.to_vec());
    cnts.push(count);
    while vals.len() != 4 {
        let s = slot(agg, k);
        if s != tuple {
            vals.push(s);
            cnts.push(word(agg, t.counts + k));
        }
        k += 1;
    }
    for (s, v) in vals.iter().enumerate() {
        agg[at(s)..at(s) + t.width].copy_from_slice(v);
    }
    agg[t.counts..t.counts + 4].copy_from_slice(&cnts);
    true
}

#[cfg(test)]
mod tests;
