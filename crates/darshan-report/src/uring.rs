//! The io_uring section, from the IO_URING module (ours; C Darshan sees no
//! io_uring): requests and bytes by direction, their sizes, the deepest
//! queue, completions seen and not, and the requests the runtime could not
//! read at all (docs/io-uring.md says which are exact).

use darshan_log::counters::io_uring as c;
use darshan_log::{NameTable, Record};

use crate::model::{IoUring, UringFile};

/// What streams past: totals and the files.
#[derive(Default)]
pub struct UringAcc {
    totals: Vec<i64>,
    read_time: f64,
    write_time: f64,
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
        let k = |i: usize| r.counters[i].max(0);
        for (i, t) in self.totals.iter_mut().enumerate() {
            // The deepest queue is the deepest of any file, not a sum.
            *t = if i == c::MAX_INFLIGHT { (*t).max(k(i)) } else { t.saturating_add(k(i)) };
        }
        self.read_time += r.fcounters[c::F_READ_TIME].max(0.0);
        self.write_time += r.fcounters[c::F_WRITE_TIME].max(0.0);
        if k(c::READS) + k(c::WRITES) == 0 {
            return;
        }
        self.files.push(UringFile {
            path: String::from_utf8_lossy(names.get(r.id).unwrap_or(b"?")).into_owned(),
            rank: r.rank,
            reads: k(c::READS),
            writes: k(c::WRITES),
            bytes_read: k(c::BYTES_READ),
            bytes_written: k(c::BYTES_WRITTEN),
            max_inflight: k(c::MAX_INFLIGHT),
        });
    }

    pub fn finish(mut self, top: usize) -> Option<IoUring> {
        if self.records == 0 {
            return None;
        }
        let t = |k: usize| self.totals[k];
        let sizes = (0..10)
            .map(|b| {
                let label = c::NAMES[c::SIZE_READ_0_100 + b].trim_start_matches("IO_URING_SIZE_READ_").to_string();
                (label, t(c::SIZE_READ_0_100 + b), t(c::SIZE_WRITE_0_100 + b))
            })
            .filter(|(_, r, w)| r + w > 0)
            .collect();
        self.files.sort_by_key(|f| std::cmp::Reverse(f.bytes_read.saturating_add(f.bytes_written)));
        let file_count = self.files.len();
        self.files.truncate(top);
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
            read_latency: if t(c::READS) > 0 { self.read_time / t(c::READS) as f64 } else { 0.0 },
            write_latency: if t(c::WRITES) > 0 { self.write_time / t(c::WRITES) as f64 } else { 0.0 },
            sizes,
            files: self.files,
        })
    }
}
