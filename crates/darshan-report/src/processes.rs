//! The job's processes (the PROCESSES region `darshan-merge --job`
//! writes, darshan_log::counters::processes): their roles, and the loader
//! view — what each process read of the application's data, in how long,
//! how long it waited for its first data, and when it read.

use darshan_log::counters::processes::{self as pc, Role};
use darshan_log::Record;

use crate::model::{ProcessRow, Processes, ReaderSpread, Spread};

/// Rows kept (a hostile log's region can decompress to millions of
/// records): the rest are counted in the roles, not listed.
const MAX_ROWS: usize = 65_536;

#[derive(Default)]
pub struct ProcessesAcc {
    rows: Vec<ProcessRow>,
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
        if self.rows.len() >= MAX_ROWS {
            return;
        }
        let first_read = Some(f(pc::F_FIRST_READ)).filter(|t| *t >= 0.0 && t.is_finite());
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
            start_up_stall: first_read.map(|t| (t - f(pc::F_START)).max(0.0)),
            software_files: c(pc::SOFTWARE_FILES),
            software_bytes_read: c(pc::SOFTWARE_BYTES_READ),
            timeline: r.counters[pc::READ_BIN_0..pc::READ_BIN_0 + pc::BINS].to_vec(),
        });
    }

    pub fn finish(self) -> Option<Processes> {
        if self.roles.is_empty() {
            return None;
        }
        let readers = spread(&self.rows);
        let timeline_source = match self.source {
            pc::TIMELINE_DXT => "DXT",
            pc::TIMELINE_HEATMAP => "heat map",
            _ => "none",
        };
        Some(Processes {
            roles: self.roles,
            ranked_by_start: self.ranked_by_start,
            rows: self.rows,
            readers,
            bin_width: self.bin_width,
            timeline_source: timeline_source.to_string(),
        })
    }
}

/// The processes that read data, compared (None for fewer than two).
fn spread(rows: &[ProcessRow]) -> Option<ReaderSpread> {
    let readers: Vec<&ProcessRow> = rows.iter().filter(|r| r.bytes_read > 0).collect();
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
    let mut stalls: Vec<f64> = readers.iter().filter_map(|r| r.start_up_stall).collect();
    stalls.sort_by(f64::total_cmp);
    let stall = match stalls.len() {
        0 => Spread::default(),
        n => Spread { min: stalls[0], mid: stalls[n / 2], max: stalls[n - 1] },
    };
    Some(ReaderSpread {
        count: readers.len(),
        bytes: mean_spread(readers.iter().map(|r| r.bytes_read as f64).collect()),
        read_time: mean_spread(readers.iter().map(|r| r.read_time).collect()),
        stall,
    })
}
