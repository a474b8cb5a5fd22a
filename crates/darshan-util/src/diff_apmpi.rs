//! darshan-diff's APMPI records (AutoPerf's MPI profile), read where the
//! tree was installed with `--enable-apmpi-mod` (and APXC's, where
//! installed with `--enable-apxc-mod`, read here and compared by
//! crate::apxc), compared as AutoPerf's
//! `darshan_log_print_apmpi_rec_diff` means to: the header's variances,
//! then each rank's processor name, counters, times and totals, a `-`
//! and a `+` line for every field that differs, every field of a record
//! only one log has. Sync times are compared where both logs measured
//! them, and printed for a lone record where its log did.
//!
//! Where AutoPerf's function does something else, this one does what its
//! code says it means to:
//! * it reads both records before asking whether either is missing
//!   (SIGSEGV on a rank only one log has);
//! * it compares the processor names' addresses (always different);
//! * it compares the per-operation times by the counters' values at the
//!   same index, not the times;
//! * its reader's "first record" flag is static, so the second log's
//!   header is read as a rank's record.

use std::collections::{HashMap, VecDeque};

use darshan_log::apxc::{Apxc, ApxcReader};
use darshan_log::autoperf::{Apmpi, ApmpiReader, AutoperfReader, AutoperfRecord, Header, Perf};
use darshan_log::counters::apmpi as c;
use darshan_log::source::FileSource;
use darshan_log::LogFile;

use crate::printrec::Lines;

/// One log's APMPI records: per record id, by rank (equal ranks in log
/// order), and whether its header says sync times were measured.
#[derive(Default)]
pub struct ApmpiSide {
    pub recs: HashMap<u64, VecDeque<Apmpi>>,
    sync: bool,
}

/// A field's value, compared as C's diff compares it.
enum Val<'a> {
    U(u64),
    F(f64),
    S(&'a [u8]),
}

impl Val<'_> {
    fn same(&self, other: &Val) -> bool {
        // C compares doubles with `!=`: NaN differs from itself.
        #[allow(clippy::float_cmp)]
        match (self, other) {
            (Val::U(a), Val::U(b)) => a == b,
            (Val::F(a), Val::F(b)) => a == b,
            (Val::S(a), Val::S(b)) => a == b,
            _ => false,
        }
    }
}

fn rank_id(r: &Apmpi) -> (i64, u64) {
    match r {
        Apmpi::Header(h) => (h.rank, h.id),
        Apmpi::Perf(p) => (p.rank, p.id),
    }
}

/// Reads `log`'s APMPI region into `side`, calling `first_seen` with
/// each record id the first time it is read (the order darshan-diff
/// walks the ids in). Err: the region cannot be read.
pub fn read(log: &LogFile<FileSource>, side: &mut ApmpiSide, first_seen: impl FnMut(u64)) -> darshan_log::Result<()> {
    let mut sync = false;
    let with_sync = |r: &Apmpi| {
        if let Apmpi::Header(h) = r {
            sync = h.sync_flag != 0;
        }
        rank_id(r)
    };
    group(ApmpiReader::new(log)?, &mut side.recs, with_sync, first_seen)?;
    side.sync = sync;
    Ok(())
}

/// Reads `log`'s APXC region into `recs` as [`read`] reads APMPI's.
pub fn read_apxc(
    log: &LogFile<FileSource>,
    recs: &mut HashMap<u64, VecDeque<Apxc>>,
    first_seen: impl FnMut(u64),
) -> darshan_log::Result<()> {
    group(ApxcReader::new(log)?, recs, crate::apxc::rank_id, first_seen)
}

/// Every record of `reader` into `recs` by id (`key` gives a record's
/// rank and id), each list in rank order, equal ranks in log order (one
/// stable sort); `first_seen` with each id the first time it is read.
fn group<R: AutoperfRecord>(
    mut reader: AutoperfReader<'_, R>,
    recs: &mut HashMap<u64, VecDeque<R>>,
    mut key: impl FnMut(&R) -> (i64, u64),
    mut first_seen: impl FnMut(u64),
) -> darshan_log::Result<()> {
    while let Some(rec) = reader.next_record()? {
        let id = key(&rec).1;
        recs.entry(id)
            .or_insert_with(|| {
                first_seen(id);
                VecDeque::with_capacity(1)
            })
            .push_back(rec);
    }
    for q in recs.values_mut() {
        q.make_contiguous().sort_by_key(|r| key(r).0);
    }
    Ok(())
}

fn header_fields(h: &Header, sync: bool) -> Vec<(&'static str, Val<'_>)> {
    let mut v = vec![("MPI_TOTAL_COMM_TIME_VARIANCE", Val::F(h.variance_total_mpitime))];
    if sync {
        v.push(("MPI_TOTAL_COMM_SYNC_TIME_VARIANCE", Val::F(h.variance_total_mpisynctime)));
    }
    v
}

fn perf_fields(p: &Perf, sync: bool) -> Vec<(&'static str, Val<'_>)> {
    let mut v = Vec::with_capacity(1 + c::NUM_INDICES + c::F_TIME_NUM_INDICES + c::F_SYNC_NUM_INDICES + 2);
    v.push(("MPI_PROCESSOR_NAME", Val::S(p.node_name())));
    v.extend(c::NAMES.iter().zip(&p.counters).map(|(n, &x)| (*n, Val::U(x))));
    v.extend(c::F_TIME_NAMES.iter().zip(&p.time).map(|(n, &x)| (*n, Val::F(x))));
    if sync {
        v.extend(c::F_SYNC_NAMES.iter().zip(&p.sync).map(|(n, &x)| (*n, Val::F(x))));
    }
    v.push((c::F_GLOBAL_NAMES[0], Val::F(p.global[0])));
    if sync {
        v.push((c::F_GLOBAL_NAMES[1], Val::F(p.global[1])));
    }
    v
}

fn fields(r: &Apmpi, sync: bool) -> Vec<(&'static str, Val<'_>)> {
    match r {
        Apmpi::Header(h) => header_fields(h, sync),
        Apmpi::Perf(p) => perf_fields(p, sync),
    }
}

/// `sign` and one field's line, as darshan-parser prints it.
fn line(b: &mut Vec<u8>, sign: &str, r: &Apmpi, (name, v): &(&str, Val)) {
    b.extend_from_slice(sign.as_bytes());
    let l = Lines::of("APMPI", rank_id(r), b"", b"", b"");
    match v {
        Val::U(x) => l.u(b, name, *x),
        Val::F(x) => l.f(b, name, *x),
        Val::S(x) => l.s(b, name, x),
    }
}

/// Every field of a record only one log has, with `sign`.
fn lone(b: &mut Vec<u8>, sign: &str, r: &Apmpi, sync: bool) {
    for f in fields(r, sync) {
        line(b, sign, r, &f);
    }
}

/// The fields of two records of one rank that differ.
fn pair(b: &mut Vec<u8>, r1: &Apmpi, r2: &Apmpi, sync: bool) {
    for (f1, f2) in fields(r1, sync).iter().zip(&fields(r2, sync)) {
        if !f1.1.same(&f2.1) {
            line(b, "- ", r1, f1);
            line(b, "+ ", r2, f2);
        }
    }
}

/// The next rank of one record id's records in both logs (each list in
/// rank order): the same rank's pair, or a rank only one log has. None
/// when both are done.
pub fn next_by_rank<R>(
    q1: &mut VecDeque<R>,
    q2: &mut VecDeque<R>,
    rank: impl Fn(&R) -> i64,
) -> Option<(Option<R>, Option<R>)> {
    Some(match (q1.front(), q2.front()) {
        (None, None) => return None,
        (Some(x), Some(y)) if rank(x) < rank(y) => (q1.pop_front(), None),
        (Some(x), Some(y)) if rank(x) > rank(y) => (None, q2.pop_front()),
        _ => (q1.pop_front(), q2.pop_front()),
    })
}

/// The next rank of one record id's APMPI records in both logs: the
/// same rank compared (a header and a rank's record, which only a crafted
/// log gives one id, printed each alone), a rank only one log has printed
/// whole. False when both are done.
pub fn next_pair(
    b: &mut Vec<u8>,
    q1: &mut VecDeque<Apmpi>,
    q2: &mut VecDeque<Apmpi>,
    s1: &ApmpiSide,
    s2: &ApmpiSide,
) -> bool {
    let Some((r1, r2)) = next_by_rank(q1, q2, |r| rank_id(r).0) else { return false };
    diff_records(b, r1.as_ref(), r2.as_ref(), s1.sync, s2.sync);
    true
}

/// Two records of one id and rank (either missing: a record only one log
/// has), whose logs' headers said `sync1` and `sync2`: the fields that
/// differ, or every field of a lone record (also of a header paired with
/// a rank's record, which only a crafted log gives one id).
pub fn diff_records(b: &mut Vec<u8>, r1: Option<&Apmpi>, r2: Option<&Apmpi>, sync1: bool, sync2: bool) {
    match (r1, r2) {
        (Some(x @ Apmpi::Header(_)), Some(y @ Apmpi::Header(_)))
        | (Some(x @ Apmpi::Perf(_)), Some(y @ Apmpi::Perf(_))) => pair(b, x, y, sync1 && sync2),
        _ => {
            if let Some(x) = r1 {
                lone(b, "- ", x, sync1);
            }
            if let Some(y) = r2 {
                lone(b, "+ ", y, sync2);
            }
        }
    }
}

/// A record of an id only the second log has.
pub fn only_second(b: &mut Vec<u8>, r: &Apmpi, s2: &ApmpiSide) {
    lone(b, "+ ", r, s2.sync);
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::autoperf::perf_from;

    fn perf(rank: i64, calls0: u64, name: &[u8]) -> Apmpi {
        let mut p = perf_from(&[0u8; c::PERF_SIZE], false);
        p.rank = rank;
        p.id = 9;
        p.counters[0] = calls0;
        p.node_name[..name.len()].copy_from_slice(name);
        Apmpi::Perf(Box::new(p))
    }

    fn side(sync: bool) -> ApmpiSide {
        ApmpiSide { recs: HashMap::new(), sync }
    }

    fn text(b: Vec<u8>) -> String {
        String::from_utf8(b).unwrap()
    }

    fn pair_by_rank(
        b: &mut Vec<u8>,
        q1: &mut VecDeque<Apmpi>,
        q2: &mut VecDeque<Apmpi>,
        s1: &ApmpiSide,
        s2: &ApmpiSide,
    ) {
        while next_pair(b, q1, q2, s1, s2) {}
    }

    #[test]
    fn equal_ranks_print_nothing_and_a_differing_counter_prints_both_sides() {
        let mut b = Vec::new();
        let (mut q1, mut q2) = (VecDeque::from([perf(0, 3, b"n1")]), VecDeque::from([perf(0, 3, b"n1")]));
        pair_by_rank(&mut b, &mut q1, &mut q2, &side(false), &side(false));
        assert!(b.is_empty(), "{}", text(b));
        let (mut q1, mut q2) = (VecDeque::from([perf(0, 3, b"n1")]), VecDeque::from([perf(0, 5, b"n2")]));
        pair_by_rank(&mut b, &mut q1, &mut q2, &side(false), &side(false));
        let name0 = c::NAMES[0];
        assert_eq!(
            text(b),
            format!(
                "- APMPI\t0\t9\tMPI_PROCESSOR_NAME\tn1\t\t\t\n+ APMPI\t0\t9\tMPI_PROCESSOR_NAME\tn2\t\t\t\n\
                 - APMPI\t0\t9\t{name0}\t3\t\t\t\n+ APMPI\t0\t9\t{name0}\t5\t\t\t\n"
            )
        );
    }

    #[test]
    fn a_rank_only_one_log_has_prints_every_field_with_its_sign_and_sync_times_where_its_log_measured_them() {
        let mut b = Vec::new();
        let (mut q1, mut q2) =
            (VecDeque::from([perf(0, 1, b"a"), perf(1, 1, b"a")]), VecDeque::from([perf(0, 1, b"a")]));
        pair_by_rank(&mut b, &mut q1, &mut q2, &side(true), &side(false));
        let lines: Vec<String> = text(b).lines().map(str::to_string).collect();
        let fields = 1 + c::NUM_INDICES + c::F_TIME_NUM_INDICES + c::F_SYNC_NUM_INDICES + 2;
        assert_eq!(lines.len(), fields);
        assert!(lines.iter().all(|l| l.starts_with("- APMPI\t1\t9\t")));
        assert!(lines.iter().any(|l| l.contains(c::F_GLOBAL_NAMES[1])));
    }

    #[test]
    fn sync_times_are_compared_only_where_both_logs_measured_them() {
        let mut b = Vec::new();
        let mut p = perf(0, 1, b"a");
        if let Apmpi::Perf(x) = &mut p {
            x.sync[0] = 2.0;
            x.global[1] = 2.0;
        }
        let (mut q1, mut q2) = (VecDeque::from([p]), VecDeque::from([perf(0, 1, b"a")]));
        pair_by_rank(&mut b, &mut q1, &mut q2, &side(true), &side(false));
        assert!(b.is_empty(), "{}", text(b));
    }

    #[test]
    fn a_nan_time_differs_from_itself_as_in_c() {
        let mut b = Vec::new();
        let mut p = perf(0, 1, b"a");
        if let Apmpi::Perf(x) = &mut p {
            x.time[0] = f64::NAN;
        }
        let (mut q1, mut q2) = (VecDeque::from([p.clone()]), VecDeque::from([p]));
        pair_by_rank(&mut b, &mut q1, &mut q2, &side(false), &side(false));
        assert_eq!(text(b).lines().count(), 2);
    }
}
