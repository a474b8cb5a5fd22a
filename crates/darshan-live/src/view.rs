//! What darshan-top shows, as rows of text: the jobs and processes doing
//! I/O with their rates over the interval, sorted and filtered; shared by
//! the terminal view and `--once` (names from the logs are made visible,
//! never sent raw to the terminal).

use serde::Serialize;

use crate::track::{Interval, JobView, ProcessView, Totals};
use darshan_util::visible::visible;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SortBy {
    /// Bytes read and written per second.
    Bytes,
    /// Read and write operations per second.
    Ops,
    /// Metadata operations per second.
    Meta,
}

impl SortBy {
    pub fn next(self) -> SortBy {
        match self {
            SortBy::Bytes => SortBy::Ops,
            SortBy::Ops => SortBy::Meta,
            SortBy::Meta => SortBy::Bytes,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            SortBy::Bytes => "bytes/s",
            SortBy::Ops => "ops/s",
            SortBy::Meta => "meta ops/s",
        }
    }
}

/// Rates over an interval (per second), from a delta.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Rates {
    pub read_bytes: f64,
    pub write_bytes: f64,
    pub ops: f64,
    pub meta_ops: f64,
    /// Seconds in I/O calls per second (1.0: one thread always in I/O).
    pub io_time: f64,
}

pub fn rates(delta: &std::collections::BTreeMap<String, Totals>, seconds: f64) -> Rates {
    // POSIX, STDIO and io_uring are what reaches the file system; MPI-IO's
    // bytes are POSIX's again underneath, and are not added twice.
    let mut t = Totals::default();
    for (_, d) in delta.iter().filter(|(m, _)| crate::totals::reaches_files(m) || m.as_str() == "POSIX_META") {
        t.add(d);
    }
    let s = if seconds > 0.0 { seconds } else { 1.0 };
    Rates {
        read_bytes: t.bytes_read as f64 / s,
        write_bytes: t.bytes_written as f64 / s,
        ops: (t.reads + t.writes) as f64 / s,
        meta_ops: t.meta_ops as f64 / s,
        io_time: (t.read_time + t.write_time + t.meta_time) / s,
    }
}

fn key(r: &Rates, by: SortBy) -> f64 {
    match by {
        SortBy::Bytes => r.read_bytes + r.write_bytes,
        SortBy::Ops => r.ops,
        SortBy::Meta => r.meta_ops,
    }
}

/// A job's line.
#[derive(Clone, Debug, Serialize)]
pub struct JobLine {
    pub job_key: String,
    pub jobid: i64,
    pub uid: i64,
    pub exe: String,
    pub processes: usize,
    pub ranks: usize,
    pub rates: Rates,
    pub total: std::collections::BTreeMap<String, Totals>,
}

/// A process's line.
#[derive(Clone, Debug, Serialize)]
pub struct ProcessLine {
    pub job_key: String,
    pub rank: i64,
    pub uid: i64,
    pub exe: String,
    pub file: String,
    pub ended: bool,
    pub rates: Rates,
    pub stale: Vec<String>,
    pub total: std::collections::BTreeMap<String, Totals>,
}

/// The whole screen's content (and `--once --json`'s output).
#[derive(Clone, Debug, Serialize)]
pub struct Screen {
    pub at: f64,
    pub seconds: f64,
    pub sort: String,
    pub jobs: Vec<JobLine>,
    pub processes: Vec<ProcessLine>,
    pub busiest: Vec<(String, i64, i64)>,
    pub stale_modules: usize,
    /// Files refused this interval, each with why.
    pub refused: Vec<String>,
}

/// Filters: a job key (or job id) and a uid.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub job: Option<String>,
    pub uid: Option<i64>,
}

impl Filter {
    fn job_ok(&self, key: &str, jobid: i64) -> bool {
        self.job.as_deref().is_none_or(|j| j == key || j == jobid.to_string())
    }
    fn keep_job(&self, j: &JobView) -> bool {
        self.job_ok(&j.job_key, j.jobid) && self.uid.is_none_or(|u| u == j.uid)
    }
    fn keep_process(&self, p: &ProcessView) -> bool {
        self.job_ok(&p.job_key, p.jobid) && self.uid.is_none_or(|u| u == p.uid)
    }
}

pub fn screen(iv: &Interval, by: SortBy, f: &Filter) -> Screen {
    let mut jobs: Vec<JobLine> = iv
        .jobs
        .iter()
        .filter(|j| f.keep_job(j))
        .map(|j| JobLine {
            job_key: visible(&j.job_key).into_owned(),
            jobid: j.jobid,
            uid: j.uid,
            exe: visible(&j.exe).into_owned(),
            processes: j.processes,
            ranks: j.ranks.len(),
            rates: rates(&j.delta, iv.seconds),
            total: j.total.clone(),
        })
        .collect();
    jobs.sort_by(|a, b| key(&b.rates, by).total_cmp(&key(&a.rates, by)).then(a.job_key.cmp(&b.job_key)));
    let mut processes: Vec<ProcessLine> = iv
        .processes
        .iter()
        .filter(|p| f.keep_process(p))
        .map(|p| ProcessLine {
            job_key: visible(&p.job_key).into_owned(),
            rank: p.rank,
            uid: p.uid,
            exe: visible(&p.exe).into_owned(),
            file: visible(&p.file).into_owned(),
            ended: p.ended,
            rates: rates(&p.delta, iv.seconds),
            stale: p.stale.clone(),
            total: p.total.clone(),
        })
        .collect();
    processes.sort_by(|a, b| key(&b.rates, by).total_cmp(&key(&a.rates, by)).then(a.file.cmp(&b.file)));
    Screen {
        at: iv.at,
        seconds: iv.seconds,
        sort: by.label().into(),
        jobs,
        processes,
        busiest: iv.busiest.iter().map(|(n, r, w)| (visible(n).into_owned(), *r, *w)).collect(),
        stale_modules: iv.stale_modules,
        refused: iv.refused.clone(),
    }
}

/// Bytes as people read them.
pub fn bytes(v: i64) -> String {
    per_second(v as f64).trim_end_matches("/s").to_string()
}

/// Bytes per second as people read them.
pub fn per_second(v: f64) -> String {
    const U: [&str; 5] = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"];
    let mut v = v;
    let mut k = 0;
    while v.abs() >= 1024.0 && k < U.len() - 1 {
        v /= 1024.0;
        k += 1;
    }
    format!("{v:.1} {}", U[k])
}
