//! The io_uring section, from the IO_URING module (ours; C Darshan sees no
//! io_uring): requests and bytes by direction, their sizes, the deepest
//! queue, completions seen and not, the processes' rings, and the requests
//! the runtime could not read at all (docs/io-uring.md says which are
//! exact).

use darshan_log::counters::io_uring as c;
use darshan_log::{NameTable, Record};

use crate::model::{IoUring, UringFile, UringRings};

/// Counters that are the largest of any record, not a sum.
const MAXIMA: [usize; 3] = [c::MAX_INFLIGHT, c::RING_ENTRIES_MAX, c::RING_MAX_INFLIGHT];

/// What streams past: totals and the files.
#[derive(Default)]
pub struct UringAcc {
    totals: Vec<i64>,
    read_time: f64,
    write_time: f64,
    max_latency: f64,
    first: f64,
    last: f64,
    /// Some record did not record the processes' rings (version 1: −1).
    rings_unrecorded: bool,
    files: Vec<UringFile>,
    records: u64,
}

impl UringAcc {
    pub fn add(&mut self, r: &Record, names: &NameTable) {
        if r.counters.len() != c::NUM_INDICES || r.fcounters.len() != c::F_NUM_INDICES {
            return;
        }
        self.records += 1;
        if self.totals.is_empty() {
            self.totals = vec![0; c::NUM_INDICES];
        }
        self.rings_unrecorded |= r.counters[c::RINGS] < 0;
        let k = |i: usize| r.counters[i].max(0);
        for (i, t) in self.totals.iter_mut().enumerate() {
            *t = if MAXIMA.contains(&i) { (*t).max(k(i)) } else { t.saturating_add(k(i)) };
        }
        let f = |i: usize| r.fcounters[i].max(0.0);
        self.read_time += f(c::F_READ_TIME);
        self.write_time += f(c::F_WRITE_TIME);
        self.max_latency = self.max_latency.max(f(c::F_MAX_READ_TIME)).max(f(c::F_MAX_WRITE_TIME));
        if k(c::READS) + k(c::WRITES) == 0 {
            return;
        }
        let (t0, t1) = (f(c::F_START_TIMESTAMP), f(c::F_END_TIMESTAMP));
        self.first = if self.files.is_empty() { t0 } else { self.first.min(t0) };
        self.last = self.last.max(t1);
        let small = (0..SMALL_BUCKETS).map(|b| k(c::SIZE_READ_0_100 + b) + k(c::SIZE_WRITE_0_100 + b)).sum();
        self.files.push(UringFile {
            path: String::from_utf8_lossy(names.get(r.id).unwrap_or(b"?")).into_owned(),
            rank: r.rank,
            reads: k(c::READS),
            writes: k(c::WRITES),
            bytes_read: k(c::BYTES_READ),
            bytes_written: k(c::BYTES_WRITTEN),
            max_inflight: k(c::MAX_INFLIGHT),
            small,
            consecutive: k(c::CONSEC_READS) + k(c::CONSEC_WRITES),
        });
    }

    /// Σ submit-to-completion seconds of reads and writes so far.
    pub fn latency_sum(&self) -> f64 {
        self.read_time + self.write_time
    }

    fn rings(&self) -> Option<UringRings> {
        let t = |k: usize| self.totals[k];
        let requests =
            t(c::READS) + t(c::WRITES) + t(c::FSYNCS) + t(c::FDATASYNCS) + t(c::SYNC_RANGES) + t(c::META_OPS);
        (!self.rings_unrecorded && t(c::RINGS) > 0).then(|| UringRings {
            rings: t(c::RINGS),
            sqpoll: t(c::SQPOLL_RINGS),
            iopoll: t(c::IOPOLL_RINGS),
            entries_max: t(c::RING_ENTRIES_MAX),
            registered_files: t(c::REGISTERED_FILES),
            registered_buffers: t(c::REGISTERED_BUFFERS),
            max_inflight: t(c::RING_MAX_INFLIGHT),
            submit_calls: t(c::SUBMIT_CALLS),
            per_call: if t(c::SUBMIT_CALLS) > 0 { requests as f64 / t(c::SUBMIT_CALLS) as f64 } else { 0.0 },
        })
    }

    pub fn finish(mut self, top: usize) -> Option<IoUring> {
        if self.records == 0 {
            return None;
        }
        let rings = self.rings();
        let t = |k: usize| self.totals[k];
        let sizes = (0..10)
            .map(|b| {
                let label = c::NAMES[c::SIZE_READ_0_100 + b].trim_start_matches("IO_URING_SIZE_READ_").to_string();
                (label, t(c::SIZE_READ_0_100 + b), t(c::SIZE_WRITE_0_100 + b))
            })
            .filter(|(_, r, w)| r + w > 0)
            .collect();
        let mut by_small: Vec<UringFile> = self.files.iter().filter(|f| f.small > 0).cloned().collect();
        by_small.sort_by_key(|f| std::cmp::Reverse(f.small));
        by_small.truncate(crate::diagnose::WORST + 1);
        self.files.sort_by_key(|f| std::cmp::Reverse(f.bytes_read.saturating_add(f.bytes_written)));
        let file_count = self.files.len();
        self.files.truncate(top);
        let mean = |time: f64, n: i64| if n > 0 { time / n as f64 } else { 0.0 };
        Some(IoUring {
            records: self.records,
            file_count,
            reads: t(c::READS),
            writes: t(c::WRITES),
            bytes_read: t(c::BYTES_READ),
            bytes_written: t(c::BYTES_WRITTEN),
            syncs: t(c::FSYNCS) + t(c::FDATASYNCS) + t(c::SYNC_RANGES),
            meta_ops: t(c::META_OPS),
            errors: t(c::ERRORS),
            short_transfers: t(c::SHORT_READS) + t(c::SHORT_WRITES),
            max_inflight: t(c::MAX_INFLIGHT),
            completions_seen: t(c::COMPLETIONS_SEEN),
            completions_unseen: t(c::COMPLETIONS_UNSEEN),
            unobserved: t(c::UNOBSERVED_OPS),
            read_latency: mean(self.read_time, t(c::READS)),
            write_latency: mean(self.write_time, t(c::WRITES)),
            span: (self.last - self.first).max(0.0),
            max_latency: self.max_latency,
            latency_sum: self.read_time + self.write_time,
            small: small_total(&self.totals),
            consecutive: t(c::CONSEC_READS) + t(c::CONSEC_WRITES),
            sizes,
            rings,
            files: self.files,
            by_small,
        })
    }
}

/// The histogram's buckets of small requests: 0_100 … 10K_100K, requests
/// of 100 KiB or less. Not 100K_1M, which holds the requests of exactly
/// 1 MiB too, a stripe at a time: IO_URING keeps no common access sizes
/// to tell those apart (POSIX's P05/P06 do, `Roles::exactly_1mib`).
const SMALL_BUCKETS: usize = 4;

/// Reads and writes of 100 KiB or less.
fn small_total(totals: &[i64]) -> i64 {
    (0..SMALL_BUCKETS).map(|b| totals[c::SIZE_READ_0_100 + b] + totals[c::SIZE_WRITE_0_100 + b]).sum()
}
