//! Where an ended process's figures come from once its crash-safe file is
//! gone: its final log, found in the log directories; for an MPI job,
//! the job's one log, once every rank has ended.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use darshan_log::{Job, LogFile, Record};

use crate::totals::Totals;

/// A log in `dirs` (each flat, or a dated tree: today's and yesterday's
/// directories) named with job id `jobid` whose job record `fits`, with
/// its records.
pub fn find_log(
    dirs: &[PathBuf],
    jobid: i64,
    fits: &dyn Fn(&Job) -> bool,
) -> Option<(PathBuf, BTreeMap<usize, Vec<Record>>)> {
    let tag = format!("_id{jobid}");
    for d in candidate_dirs(dirs) {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        // Regular files only, never through a link: a FIFO named like a
        // log would make the reader wait for ever.
        for e in rd.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_file())) {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.contains(&tag) || !name.ends_with(".darshan") || name.contains("_mmap-log-") {
                continue;
            }
            if let Some(mods) = read_if(&p, fits) {
                return Some((p, mods));
            }
        }
    }
    None
}

/// The records of the modules the live view sums (`totals::counted`): a
/// finished job's log may hold DXT traces of every rank, hundreds of
/// megabytes decoded, which the view never shows.
fn read_if(p: &Path, fits: &dyn Fn(&Job) -> bool) -> Option<BTreeMap<usize, Vec<Record>>> {
    let log = LogFile::open(p).ok()?;
    if !fits(&log.job) {
        return None;
    }
    let summed = log.modules_present().into_iter().filter(|&m| crate::totals::counted(m));
    Some(summed.filter_map(|m| Some((m, log.records(m).ok()?))).collect())
}

/// The log directories to look in: each as given, and for a dated tree
/// (`<dir>/YYYY/M/D`) today's and yesterday's directories.
fn candidate_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let now =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
    for d in dirs {
        out.push(d.clone());
        for back in [0, 86400] {
            let (y, m, day) = civil(now - back);
            out.push(d.join(format!("{y}/{m}/{day}")));
        }
    }
    out
}

/// (year, month, day) of a Unix time in UTC (Howard Hinnant's algorithm).
fn civil(t: i64) -> (i64, i64, i64) {
    let z = t.div_euclid(86400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Seconds to wait, once every rank has ended, for the job's log before
/// the ranks' last snapshots are left to stand (rank 0 names the log
/// before any rank removes its crash-safe file, so it is normally there
/// at once; a log directory on a slow file system may show it later).
pub const MPI_LOG_WAIT: f64 = 10.0;

/// An MPI job's ranks as this node saw them. A rank's crash-safe file
/// goes when the job's log is written, and the log holds the ranks
/// together (shared files reduced to one record), so what a rank did
/// after its last snapshot is only known for the job: when every rank of
/// the job ran here and has ended, the job's log less the ranks' last
/// snapshots is the job's last delta. A job with ranks on other nodes
/// keeps its ranks' last snapshots (the log's figures are not this
/// node's).
#[derive(Debug)]
pub struct MpiJob {
    pub jobid: i64,
    pub nprocs: i64,
    pub uid: i64,
    pub exe: Vec<u8>,
    /// The earliest start of any rank seen (the log's start).
    pub start: (i64, i64),
    pub ranks: HashSet<i64>,
    pub ended: HashSet<i64>,
    /// The ended ranks' last figures, per module.
    pub last: BTreeMap<usize, Totals>,
    /// When its last rank here ended.
    pub all_ended_at: Option<f64>,
}

/// What an MPI job's log adds to its ranks' last snapshots.
#[derive(Debug)]
pub struct JobEnd {
    pub job_key: String,
    pub jobid: i64,
    pub uid: i64,
    pub exe: String,
    pub delta: BTreeMap<usize, Totals>,
    pub total: BTreeMap<usize, Totals>,
    pub from: String,
}

impl MpiJob {
    pub fn new(job: &Job) -> MpiJob {
        MpiJob {
            jobid: job.jobid,
            nprocs: job.nprocs,
            uid: job.uid,
            exe: job.exe().to_vec(),
            start: (job.start_time_sec, job.start_time_nsec),
            ranks: HashSet::new(),
            ended: HashSet::new(),
            last: BTreeMap::new(),
            all_ended_at: None,
        }
    }

    /// A rank seen running.
    pub fn saw(&mut self, rank: i64, job: &Job) {
        self.ranks.insert(rank);
        self.start = self.start.min((job.start_time_sec, job.start_time_nsec));
    }

    /// A rank that ended, with its last figures.
    pub fn end(&mut self, rank: i64, last: &BTreeMap<usize, Totals>) {
        if self.ended.insert(rank) {
            for (m, t) in last {
                self.last.entry(*m).or_default().add(t);
            }
        }
    }

    /// Every rank of the job ran here and has ended.
    pub fn whole_and_ended(&self) -> bool {
        self.ranks.len() as i64 == self.nprocs && self.ended.len() == self.ranks.len()
    }

    /// The job's log, if it is there: the same job id, size, command line
    /// and start.
    pub fn log(&self, dirs: &[PathBuf]) -> Option<(PathBuf, BTreeMap<usize, Vec<Record>>)> {
        let fits = |j: &Job| {
            j.nprocs == self.nprocs
                && j.uid == self.uid
                && j.exe() == self.exe.as_slice()
                && (j.start_time_sec, j.start_time_nsec) == self.start
        };
        find_log(dirs, self.jobid, &fits)
    }
}
