//! When the processes read and wrote their files, first access to last:
//! the spans C Darshan's job summary drew from the POSIX and STDIO
//! records' `F_READ_*`/`F_WRITE_*` start and end timestamps ("Timespan
//! from first to last read/write access on independent files", "... on
//! files shared by all processes"), a span per record and direction.
//!
//! Software loading and the MPI library's own files are left out (an
//! interpreter's imports would paint every process busy at start-up), and
//! counted. What is drawn is bounded by construction, whatever the log
//! holds: at most [`MAX_ROWS`] rows of ranks, and spans of a row closer
//! than the resolution joined, the resolution doubled until at most
//! [`MAX_SPANS`] remain (at the axis's length a row has one per direction).
//! What is kept while records stream is bounded too: spans wait in a
//! batch of [`BATCH`], then are placed in their rows and joined at the
//! run time's resolution (the final one is never finer: the axis is at
//! least the run time), so a log of 200,000 files costs a batch, not a
//! span per record.

use std::collections::HashSet;

use darshan_log::{roles::Roles, Record};

use crate::model::Timespans;

/// Rows of ranks drawn at most: more processes share rows.
pub const MAX_ROWS: i64 = 256;
/// Spans drawn at most.
pub const MAX_SPANS: usize = 20_000;
/// Spans closer than this part of the time axis are joined at first:
/// no chart shows them apart.
const COLUMNS: f64 = 1000.0;
/// Spans read before they are placed and joined.
const BATCH: usize = 16_384;

/// One record's span of reads or writes, as read.
struct Span {
    id: u64,
    rank: i64,
    start: f64,
    end: f64,
    write: bool,
}

/// The spans of the records streamed past, for a job of `nprocs`
/// processes that ran `run_time` seconds, without the files `left_out`
/// (not the application's).
pub struct SpanAcc {
    nprocs: i64,
    run_time: f64,
    left_out: HashSet<u64>,
    pending: Vec<Span>,
    /// Placed and joined at the run time's resolution.
    placed: Timespans,
}

impl Default for SpanAcc {
    fn default() -> Self {
        SpanAcc::new(0, 0.0, HashSet::new())
    }
}

impl SpanAcc {
    pub fn new(nprocs: i64, run_time: f64, left_out: HashSet<u64>) -> SpanAcc {
        let rows = nprocs.clamp(0, MAX_ROWS);
        let ranks_per_row = if rows > 0 { nprocs / rows + i64::from(nprocs % rows != 0) } else { 1 };
        let run_time = if run_time.is_finite() { run_time.max(0.0) } else { 0.0 };
        let placed = Timespans { ranks_per_row, rows: rows as usize, end_time: run_time, ..Default::default() };
        SpanAcc { nprocs, run_time, left_out, pending: Vec::new(), placed }
    }

    /// Record `r`'s read and write spans, those it has: C's rule is an
    /// end time not 0 (a record that never read has 0 in both).
    pub fn add(&mut self, l: &Roles, r: &Record) {
        for (span, write) in [(l.read_span, false), (l.write_span, true)] {
            let Some((s, e)) = span else { continue };
            let (Some(&start), Some(&end)) = (r.fcounters.get(s), r.fcounters.get(e)) else { continue };
            if end == 0.0 {
                continue;
            }
            if start.is_finite() && end.is_finite() && 0.0 <= start && start <= end {
                self.pending.push(Span { id: r.id, rank: r.rank, start, end, write });
            } else {
                self.placed.unreadable += 1;
            }
        }
        if self.pending.len() >= BATCH {
            self.settle();
        }
    }

    /// The pending spans into their rows, joined at the run time's
    /// resolution.
    fn settle(&mut self) {
        let t = &mut self.placed;
        for s in self.pending.drain(..) {
            if self.left_out.contains(&s.id) {
                t.left_out += 1;
                continue;
            } else if s.rank == -1 {
                t.shared.push((s.start, s.end, s.write));
            } else if (0..self.nprocs).contains(&s.rank) {
                t.independent.push(((s.rank / t.ranks_per_row) as usize, s.start, s.end, s.write));
            } else {
                t.unreadable += 1;
                continue;
            }
            t.spans += 1;
            t.end_time = t.end_time.max(s.end);
        }
        t.independent.sort_by(|a, b| (a.0, a.3).cmp(&(b.0, b.3)).then(a.1.total_cmp(&b.1)));
        t.shared.sort_by(|a, b| a.2.cmp(&b.2).then(a.0.total_cmp(&b.0)));
        join_at(t, self.run_time / COLUMNS);
    }

    /// The spans to draw; None when no record read or wrote.
    pub fn finish(mut self) -> Option<Timespans> {
        self.settle();
        let mut t = self.placed;
        if t.spans + t.left_out + t.unreadable == 0 {
            return None;
        }
        join_to_fit(&mut t);
        Some(t)
    }
}

/// Join each row's spans closer than the resolution, doubling it until
/// at most [`MAX_SPANS`] are left.
fn join_to_fit(t: &mut Timespans) {
    t.resolution = t.end_time / COLUMNS;
    loop {
        join_at(t, t.resolution);
        // At the axis's length every row holds one span per direction,
        // within the bound; an axis of 0 joins all at the first pass.
        if t.independent.len() + t.shared.len() <= MAX_SPANS || t.resolution <= 0.0 || t.resolution >= t.end_time {
            return;
        }
        t.resolution *= 2.0;
    }
}

/// Join each row's spans less than `res` apart (sorted by row, then start).
fn join_at(t: &mut Timespans, res: f64) {
    join(&mut t.independent, |a, b| a.0 == b.0 && a.3 == b.3 && b.1 <= a.2 + res, |a, b| a.2 = a.2.max(b.2));
    join(&mut t.shared, |a, b| a.2 == b.2 && b.0 <= a.1 + res, |a, b| a.1 = a.1.max(b.1));
}

/// Fold each item into the kept one before it where `joins` says so
/// (`items` sorted by row, then start).
fn join<T>(items: &mut Vec<T>, joins: impl Fn(&T, &T) -> bool, fold: impl Fn(&mut T, &T)) {
    let mut kept: Vec<T> = Vec::with_capacity(items.len());
    for item in items.drain(..) {
        match kept.last_mut() {
            Some(last) if joins(last, &item) => fold(last, &item),
            _ => kept.push(item),
        }
    }
    *items = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::counters::posix;
    use darshan_log::modules;

    fn record(id: u64, rank: i64, read: (f64, f64), write: (f64, f64)) -> Record {
        let mut r = Record::zeroed(modules::POSIX, id, rank);
        r.fcounters[posix::F_READ_START_TIMESTAMP] = read.0;
        r.fcounters[posix::F_READ_END_TIMESTAMP] = read.1;
        r.fcounters[posix::F_WRITE_START_TIMESTAMP] = write.0;
        r.fcounters[posix::F_WRITE_END_TIMESTAMP] = write.1;
        r
    }

    fn spans_of(records: &[Record], nprocs: i64, run_time: f64) -> Timespans {
        let l = Roles::of(modules::POSIX).unwrap();
        let mut acc = SpanAcc::new(nprocs, run_time, HashSet::from([99]));
        records.iter().for_each(|r| acc.add(&l, r));
        acc.finish().unwrap()
    }

    #[test]
    fn a_rows_spans_join_only_where_closer_than_the_resolution() {
        // Run time 100 s: resolution 0.1 s.
        let t = spans_of(
            &[
                record(1, 0, (1.0, 2.0), (0.0, 0.0)),
                record(2, 0, (2.05, 3.0), (0.0, 0.0)),
                record(3, 0, (3.5, 4.0), (10.0, 11.0)),
                record(4, 1, (1.0, 2.0), (0.0, 0.0)),
                record(5, -1, (0.5, 0.7), (0.6, 0.9)),
                record(99, 1, (5.0, 6.0), (0.0, 0.0)),
            ],
            2,
            100.0,
        );
        assert_eq!(t.resolution, 0.1);
        let expect = vec![(0, 1.0, 3.0, false), (0, 3.5, 4.0, false), (0, 10.0, 11.0, true), (1, 1.0, 2.0, false)];
        assert_eq!(t.independent, expect);
        assert_eq!(t.shared, vec![(0.5, 0.7, false), (0.6, 0.9, true)]);
        assert_eq!((t.spans, t.left_out, t.unreadable), (7, 1, 0));
    }

    #[test]
    fn a_hostile_record_is_counted_not_drawn_and_the_axis_covers_the_last_access() {
        let t = spans_of(
            &[
                record(1, 0, (2.0, 1.0), (f64::NAN, 3.0)),
                record(2, 7, (1.0, 2.0), (0.0, 0.0)),
                record(3, 0, (1.0, 250.0), (0.0, 0.0)),
            ],
            2,
            100.0,
        );
        assert_eq!((t.spans, t.unreadable), (1, 3));
        assert_eq!(t.end_time, 250.0);
    }

    #[test]
    fn a_million_ranks_with_scattered_spans_stay_within_the_bounds() {
        // 256 rows of 100 single accesses 0.5 s apart: 25,600 spans at
        // the first resolution (0.1 s), joined until 20,000 or fewer.
        let records: Vec<Record> = (0..25_600i64)
            .map(|k| {
                let at = 1.0 + (k / 256) as f64 * 0.5;
                record(1000 + k as u64, (k % 256) * 3907 + k % 7, (at, at), (0.0, 0.0))
            })
            .collect();
        let t = spans_of(&records, 1_000_000, 100.0);
        assert_eq!((t.rows, t.ranks_per_row), (256, 3907));
        assert!(t.independent.len() <= MAX_SPANS, "{}", t.independent.len());
        assert!(t.independent.iter().all(|s| s.0 < 256));
        assert_eq!(t.spans, 25_600);
        assert_eq!(t.resolution, 0.8);
        assert_eq!(t.independent.len(), 256);
    }

    /// Spans placed a batch at a time come out as all of them joined at
    /// once: 40,000 in no order over 3 batches and a tail, against a
    /// plain sort and chain of them here.
    #[test]
    fn spans_joined_a_batch_at_a_time_are_those_joined_at_once() {
        // 4 rows of 500 clusters 2 s apart, 20 spans to a cluster, in
        // an order that sends every cluster to several batches.
        let span = |k: i64| {
            let k = k * 7919 % 40_000;
            let at = ((k / 4) % 500) as f64 * 2.0 + (k / 2000) as f64 * 0.001 + 0.001;
            (k % 4, at, at + (k % 3) as f64 * 0.02)
        };
        let records: Vec<Record> =
            (0..40_000).map(|k| record(1000 + k as u64, span(k).0, (span(k).1, span(k).2), (0.0, 0.0))).collect();
        let t = spans_of(&records, 4, 1000.0);
        let mut all: Vec<(i64, f64, f64)> = (0..40_000).map(span).collect();
        all.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let mut want: Vec<(usize, f64, f64, bool)> = Vec::new();
        for (row, start, end) in all {
            match want.last_mut() {
                Some(w) if w.0 == row as usize && start <= w.2 + t.resolution => w.2 = w.2.max(end),
                _ => want.push((row as usize, start, end, false)),
            }
        }
        assert_eq!(t.resolution, 1.0);
        assert_eq!(t.independent, want);
        assert_eq!(want.len(), 2_000);
    }
}
