//! The per-process logs of jobs without MPI, and which job each belongs
//! to: what `darshan-merge --job`, `darshan-run` and `darshan-ingest` read
//! from a log's job metadata (the runtime writes `job_rank=`, `job_size=`,
//! `job_key=`, `ppid=`, `fork_parent=`; docs/runtime.md "Jobs without MPI").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use darshan_log::{Job, LogFile};

/// One process's log, as the job merge needs it (the log itself is
/// opened again per module, so that no descriptor is held per input).
#[derive(Clone, Debug)]
pub struct ProcessLog {
    pub path: PathBuf,
    /// Its rank in the job: the launcher's (`job_rank=`), else 0 (see
    /// [`ranks_by_start`] for logs that say nothing of their place).
    pub rank: i64,
    /// Whether its log says its rank (`job_rank=`).
    pub ranked: bool,
    /// The job's size as its launcher said (`job_size=`).
    pub size: Option<i64>,
    /// Which job: `job_key=`, else `id<jobid>`.
    pub key: String,
    /// An MPI job's log (nprocs > 1): its records keep their own ranks.
    pub mpi: bool,
    /// Already a job log (`job_processes=`, written by a job merge).
    pub job_log: bool,
    /// Start, in nanoseconds since the epoch.
    pub start_ns: i128,
    /// End in nanoseconds (a crash-safe file's: its last modification).
    pub end_ns: i128,
    /// Its parent process (`ppid=`).
    pub ppid: Option<i64>,
    /// A crash-safe file (uncompressed, the runtime's live layout), not a
    /// log the process or a merge finished.
    pub crash_safe: bool,
    /// The file's size in bytes.
    pub bytes: u64,
    pub job: Job,
}

/// Who a process is, wherever its data appears: its log, its crash-safe
/// file, a log recovered from that file, a copy of any of them. The
/// runtime's processes (which say `ppid=`) are named by their job, rank,
/// owner, parent, command line and start to the nanosecond, all of which
/// the crash-safe file and the log share; a log without that (C
/// Darshan's) only by its whole job record and its size, so that two
/// processes are never taken for one, and a copy is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Identity {
    key: String,
    rank: i64,
    uid: i64,
    start: (i64, i64),
    ppid: Option<i64>,
    exe: Vec<u8>,
    /// For logs without `ppid=`: their metadata and size as well.
    rest: Option<(Vec<u8>, i64, u64)>,
}

fn meta<'a>(job: &'a Job, key: &str) -> Option<&'a [u8]> {
    job.metadata_pairs().into_iter().find(|(k, _)| *k == key.as_bytes()).map(|(_, v)| v)
}

pub(crate) fn meta_i64(job: &Job, key: &str) -> Option<i64> {
    std::str::from_utf8(meta(job, key)?).ok()?.trim().parse().ok()
}

/// The job key of a log: its `job_key=`, else `id<jobid>`.
pub fn job_key(job: &Job) -> String {
    match meta(job, "job_key") {
        Some(k) if !k.is_empty() => String::from_utf8_lossy(k).into_owned(),
        _ => format!("id{}", job.jobid),
    }
}

/// A process's rank in its job (`job_rank=`, else 0) and the job's size
/// as its launcher said.
pub fn rank_and_size(job: &Job) -> (i64, Option<i64>) {
    let rank = meta_i64(job, "job_rank").filter(|r| (0..1 << 31).contains(r)).unwrap_or(0);
    (rank, meta_i64(job, "job_size").filter(|n| (1..=1 << 31).contains(n)))
}

fn ns(sec: i64, nsec: i64) -> i128 {
    i128::from(sec) * 1_000_000_000 + i128::from(nsec)
}

fn mtime_ns(path: &Path) -> Option<i128> {
    let d = std::fs::metadata(path).ok()?.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(d.as_nanos() as i128)
}

impl ProcessLog {
    pub fn read(path: &Path) -> Result<ProcessLog, darshan_log::LogError> {
        let log = LogFile::open(path)?;
        let crash_safe = log.header.compression == darshan_log::Compression::None;
        // A process killed while its runtime was setting up or updating
        // its crash-safe file can leave a name table cut short (seen in
        // 400 children killed around their exit): such a file is refused
        // here, with why, rather than failing its whole job's merge.
        if crash_safe {
            log.check_names()?;
        }
        let job = log.job.clone();
        let (rank, size) = rank_and_size(&job);
        let start_ns = ns(job.start_time_sec, job.start_time_nsec);
        let end = ns(job.end_time_sec, job.end_time_nsec);
        let end_ns = if job.end_time_sec > 0 { end } else { mtime_ns(path).unwrap_or(start_ns) };
        Ok(ProcessLog {
            path: path.to_path_buf(),
            rank,
            ranked: meta(&job, "job_rank").is_some(),
            size,
            key: job_key(&job),
            mpi: job.nprocs > 1,
            job_log: meta(&job, "job_processes").is_some(),
            start_ns,
            end_ns: end_ns.max(start_ns),
            ppid: meta_i64(&job, "ppid"),
            crash_safe,
            bytes: log.size(),
            job,
        })
    }

    /// Who this process is (see [`Identity`]).
    pub fn identity(&self) -> Identity {
        let j = &self.job;
        let exe = j.exe_mnt.split(|&b| b == b'\n').next().unwrap_or_default().to_vec();
        let rest = self.ppid.is_none().then(|| (j.metadata.clone(), j.nprocs, self.bytes));
        Identity {
            key: self.key.clone(),
            rank: self.rank,
            uid: j.uid,
            start: (j.start_time_sec, j.start_time_nsec),
            ppid: self.ppid,
            exe,
            rest,
        }
    }

    /// How complete this copy of a process's data is: a log the process
    /// finished itself, then a log recovered from its crash-safe file,
    /// then the crash-safe file; the larger, then the first path, among
    /// equals.
    fn completeness(&self) -> (bool, bool, u64, std::cmp::Reverse<&PathBuf>) {
        let recovered = self.path.to_string_lossy().ends_with("-recovered.darshan");
        (!self.crash_safe && !recovered, !self.crash_safe, self.bytes, std::cmp::Reverse(&self.path))
    }
}

/// Logs that say nothing of their place in the job (C Darshan's, whose
/// runtime records no launcher rank, parent or fork): one rank per
/// process, in the order they started. True when `procs` are such logs
/// (and more than one) and their ranks were given so; a job where any
/// process says its rank or parent keeps what they say.
pub fn ranks_by_start(procs: &mut [ProcessLog]) -> bool {
    let silent = |p: &ProcessLog| !p.ranked && p.ppid.is_none() && !p.mpi;
    if procs.len() < 2 || !procs.iter().all(silent) {
        return false;
    }
    procs.sort_by(|a, b| (a.start_ns, &a.path).cmp(&(b.start_ns, &b.path)));
    for (r, p) in procs.iter_mut().enumerate() {
        p.rank = r as i64;
    }
    true
}

/// One process, one count: of the copies of one process's data among
/// `procs` the most complete is kept; the others are returned beside it,
/// each with the path of the copy that stands for it.
pub fn one_per_process(procs: Vec<ProcessLog>) -> (Vec<ProcessLog>, Vec<(ProcessLog, PathBuf)>) {
    let mut by_id: BTreeMap<Identity, Vec<ProcessLog>> = BTreeMap::new();
    for p in procs {
        by_id.entry(p.identity()).or_default().push(p);
    }
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for (_, mut copies) in by_id {
        copies.sort_by(|a, b| b.completeness().cmp(&a.completeness()));
        let mut it = copies.into_iter();
        let Some(best) = it.next() else { continue };
        dropped.extend(it.map(|p| (p, best.path.clone())));
        kept.push(best);
    }
    kept.sort_by(process_order);
    (kept, dropped)
}

/// The order of a job's processes: by rank, then start (a rank's first
/// process is the one it started with), then path.
pub fn process_order(a: &ProcessLog, b: &ProcessLog) -> std::cmp::Ordering {
    (a.rank, a.start_ns, &a.path).cmp(&(b.rank, b.start_ns, &b.path))
}

/// The job's first process (rank 0's first): it names the job log and
/// gives it its command line.
pub fn first_process(procs: &[ProcessLog]) -> Option<&ProcessLog> {
    procs.iter().min_by(|a, b| process_order(a, b))
}

/// Every `*.darshan` file under `paths` (files as given, directories
/// walked: a flat log directory or the dated tree), sorted; crash-safe
/// files (`_mmap-log-`) included: a killed process's records are there.
pub fn find_logs(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = paths.to_vec();
    while let Some(p) = stack.pop() {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_dir() => {
                if let Ok(rd) = std::fs::read_dir(&p) {
                    stack.extend(rd.filter_map(|e| e.ok().map(|e| e.path())));
                }
            }
            Ok(_) if paths.contains(&p) || p.extension().is_some_and(|e| e == "darshan") => out.push(p),
            _ => {}
        }
    }
    out.sort();
    out.dedup();
    out
}

impl ProcessLog {
    /// Whether a job merge takes this log: a process's log, not an MPI
    /// job's (merged by its own shutdown) nor a job log already.
    pub fn is_process_log(&self) -> bool {
        !self.mpi && !self.job_log
    }
}

/// The logs grouped by job key; unreadable ones returned apart, with why.
///
/// The logs are read on a thread of their own (reading overlaps the
/// grouping) and what is kept of each is copied into this thread's own
/// allocations, so it is never freed across threads: 10,000 logs of 4 KB
/// grouped in 0.48-0.52 s this way, 0.60 s keeping the reader thread's
/// allocations, 0.62-0.64 s reading here (40-42 MB peak in all three:
/// the memory is the region reader's reused buffers' doing, region.rs).
#[allow(clippy::type_complexity)]
pub fn group_by_job(paths: &[PathBuf]) -> (BTreeMap<String, Vec<ProcessLog>>, Vec<(PathBuf, darshan_log::LogError)>) {
    let mut jobs: BTreeMap<String, Vec<ProcessLog>> = BTreeMap::new();
    let mut bad = Vec::new();
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::sync_channel(64);
        s.spawn(move || {
            for p in paths {
                if tx.send((p, ProcessLog::read(p))).is_err() {
                    return;
                }
            }
        });
        for (p, r) in rx {
            match r {
                Ok(l) => {
                    let kept = l.clone();
                    drop(l);
                    jobs.entry(kept.key.clone()).or_default().push(kept);
                }
                Err(e) => bad.push((p.clone(), e)),
            }
        }
    });
    (jobs, bad)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A job record of one process, for tests: `meta` its metadata lines.
    pub(crate) fn job(meta: &str, jobid: i64) -> Job {
        Job {
            uid: 1,
            start_time_sec: 1,
            start_time_nsec: 0,
            end_time_sec: 2,
            end_time_nsec: 0,
            nprocs: 1,
            jobid,
            metadata: meta.as_bytes().to_vec(),
            exe_mnt: b"a\n".to_vec(),
        }
    }

    #[test]
    fn rank_size_and_key_come_from_the_metadata() {
        let j = job("lib_ver=x\njob_rank=3\njob_size=4\njob_key=slurm-9.0\nppid=5\n", 9);
        assert_eq!((rank_and_size(&j), job_key(&j).as_str()), ((3, Some(4)), "slurm-9.0"));
        // A log without them (C Darshan's, an older one of ours): rank 0
        // of a job named by its job id.
        let c = job("lib_ver=3.5.0\nh=romio_no_indep_rw=true;cb_nodes=4\n", 77);
        assert_eq!((rank_and_size(&c), job_key(&c).as_str()), ((0, None), "id77"));
        // Hostile values are not believed.
        let h = job("job_rank=-4\njob_size=99999999999\n", 1);
        assert_eq!(rank_and_size(&h), (0, None));
    }
}
