//! The job's processes (the PROCESSES region `darshan-merge --job`
//! writes, darshan_log::counters::processes): their roles, and the loader
//! view — what each process read of the application's data, in how long,
//! how long it waited for its first data, and when it read.

use darshan_log::counters::processes::{self as pc, Role};
use darshan_log::Record;

use crate::model::{ProcessRow, Processes, ReaderSpread, Spread};

/// Rows listed, in the job's order (a job of thousands of loader workers,
/// or a hostile log's region of millions of records: 65,536 rows took
/// darshan-summary past twice the region's bytes, a page and its JSON
/// more); the rest are counted (`rows_left_out`) and in the roles and the
/// readers' spread, not listed. darshan-parser lists every one.
const MAX_ROWS: usize = 4_096;

/// What the readers' spread needs of every process that read data:
/// bytes, read time, start-up stall.
type ReaderFacts = (f64, f64, Option<f64>);

#[derive(Default)]
pub struct ProcessesAcc {
    rows: Vec<ProcessRow>,
    rows_left_out: usize,
    readers: Vec<ReaderFacts>,
    roles: Vec<(String, usize)>,
    ranked_by_start: bool,
    bin_width: f64,
    source: i64,
}

impl ProcessesAcc {
    pub fn add(&mut self, r: &Record) {
        if r.counters.len() != pc::NUM_INDICES || r.fcounters.len() != pc::F_NUM_INDICES {
            return;
        }
        let c = |k: usize| r.counters[k];
        let f = |k: usize| r.fcounters[k];
        let role = Role::from_word(c(pc::ROLE)).map_or("unknown", Role::as_str);
        match self.roles.iter_mut().find(|(n, _)| n == role) {
            Some((_, k)) => *k += 1,
            None => self.roles.push((role.to_string(), 1)),
        }
        self.ranked_by_start |= c(pc::RANKED_BY_START) == 1;
        self.bin_width = f(pc::F_BIN_WIDTH);
        self.source = self.source.max(c(pc::TIMELINE_SOURCE));
        let first_read = Some(f(pc::F_FIRST_READ)).filter(|t| *t >= 0.0 && t.is_finite());
        let start_up_stall = first_read.map(|t| (t - f(pc::F_START)).max(0.0));
        if c(pc::BYTES_READ) > 0 {
            self.readers.push((c(pc::BYTES_READ) as f64, f(pc::F_READ_TIME), start_up_stall));
        }
        if self.rows.len() >= MAX_ROWS {
            self.rows_left_out += 1;
            return;
        }
        self.rows.push(ProcessRow {
            index: r.id,
            rank: r.rank,
            role: role.to_string(),
            pid: Some(c(pc::PID)).filter(|p| *p > 0),
            parent_pid: Some(c(pc::PARENT_PID)).filter(|p| *p > 0),
            start: f(pc::F_START),
            end: f(pc::F_END),
            reads: c(pc::READS),
            writes: c(pc::WRITES),
            bytes_read: c(pc::BYTES_READ),
            bytes_written: c(pc::BYTES_WRITTEN),
            read_time: f(pc::F_READ_TIME),
            write_time: f(pc::F_WRITE_TIME),
            meta_time: f(pc::F_META_TIME),
            first_read,
            start_up_stall,
            software_files: c(pc::SOFTWARE_FILES),
            software_bytes_read: c(pc::SOFTWARE_BYTES_READ),
            timeline: r.counters[pc::READ_BIN_0..pc::READ_BIN_0 + pc::BINS].to_vec(),
        });
    }

    pub fn finish(self) -> Option<Processes> {
        if self.roles.is_empty() {
            return None;
        }
        let readers = spread(&self.readers);
        let timeline_source = match self.source {
            pc::TIMELINE_DXT => "DXT",
            pc::TIMELINE_HEATMAP => "heat map",
            _ => "none",
        };
        Some(Processes {
            roles: self.roles,
            ranked_by_start: self.ranked_by_start,
            rows: self.rows,
            rows_left_out: self.rows_left_out,
            readers,
            bin_width: self.bin_width,
            timeline_source: timeline_source.to_string(),
        })
    }
}

/// The processes that read data, compared (None for fewer than two).
fn spread(readers: &[ReaderFacts]) -> Option<ReaderSpread> {
    if readers.len() < 2 {
        return None;
    }
    let mean_spread = |v: Vec<f64>| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        Spread {
            min: v.iter().copied().fold(f64::INFINITY, f64::min),
            mid: mean,
            max: v.iter().copied().fold(0.0, f64::max),
        }
    };
    let mut stalls: Vec<f64> = readers.iter().filter_map(|r| r.2).collect();
    stalls.sort_by(f64::total_cmp);
    let stall = match stalls.len() {
        0 => Spread::default(),
        n => Spread { min: stalls[0], mid: stalls[n / 2], max: stalls[n - 1] },
    };
    Some(ReaderSpread {
        count: readers.len(),
        bytes: mean_spread(readers.iter().map(|r| r.0).collect()),
        read_time: mean_spread(readers.iter().map(|r| r.1).collect()),
        stall,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::modules::PROCESSES;

    /// A job log of 73,566 processes (the mutation harness's job merge with
    /// its PROCESSES region repeated 183 times) took darshan-summary to
    /// 147 MB for a region of 31 MB: every one was kept as a row, and the
    /// page and the JSON held them again. Rows are now the first 4,096; the
    /// roles and the readers' spread still count every process. The
    /// pattern is the oracle: process k reads k KiB in k ms, from 1 s on.
    #[test]
    fn a_job_of_73_thousand_processes_took_darshan_summary_past_its_memory_bound() {
        const N: i64 = 10_000;
        let mut acc = ProcessesAcc::default();
        for k in 1..=N {
            let mut r = Record::zeroed(PROCESSES, k as u64, k);
            r.counters[pc::ROLE] = if k % 2 == 0 { Role::Forked as i64 } else { Role::Rank as i64 };
            r.counters[pc::BYTES_READ] = k << 10;
            r.fcounters[pc::F_READ_TIME] = k as f64 / 1e3;
            r.fcounters[pc::F_START] = 1.0;
            r.fcounters[pc::F_FIRST_READ] = 1.0 + k as f64 / 1e3;
            acc.add(&r);
        }
        let p = acc.finish().expect("processes");
        assert_eq!((p.rows.len(), p.rows_left_out), (MAX_ROWS, N as usize - MAX_ROWS));
        assert_eq!(p.rows.last().map(|r| r.rank), Some(MAX_ROWS as i64), "the first rows, in the job's order");
        let mut roles = p.roles.clone();
        roles.sort();
        assert_eq!(roles, [("forked worker".to_string(), N as usize / 2), ("rank".to_string(), N as usize / 2)]);
        let rd = p.readers.expect("readers");
        assert_eq!(rd.count, N as usize);
        assert_eq!((rd.bytes.min, rd.bytes.max), (1024.0, (N << 10) as f64));
        assert!((rd.bytes.mid - (N + 1) as f64 * 512.0).abs() < 1e-6, "mean {}", rd.bytes.mid);
        assert!((rd.stall.max - N as f64 / 1e3).abs() < 1e-9 && (rd.stall.mid - (N / 2 + 1) as f64 / 1e3).abs() < 1e-9);
    }
}
