//! Successive snapshots as per-interval deltas: per module (bytes,
//! operations, time), per process, per job, and the busiest files.
//!
//! A process whose crash-safe file is gone has ended: its final log
//! (found in the log directories by job id, start time and command) gives
//! what it did after the last snapshot, reported once; without one, its
//! last snapshot stands. A file is counted from the first time it is seen
//! (what it held then is that interval's delta), so the sums over all
//! intervals equal the process's counters.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use darshan_log::modules::module_name;
use darshan_log::{Job, Record};
use serde::Serialize;

use crate::final_log::{find_log, JobEnd, MpiJob, MPI_LOG_WAIT};
use crate::snapshot::{take_of, Snapshot};
pub use crate::totals::Totals;
use crate::totals::{counted, minus_files, minus_map, sums};

/// A snapshot's sums, its records' names as the files.
fn snap_sums(s: &Snapshot) -> (BTreeMap<usize, Totals>, HashMap<String, Totals>) {
    let names = &s.names;
    sums(s.modules.iter().map(|(&m, r)| (m, r.as_slice())), &|id| {
        names.get(&id).cloned().unwrap_or_else(|| format!("<record {id}>"))
    })
}

/// A process as the last interval saw it.
#[derive(Clone, Debug, Serialize)]
pub struct ProcessView {
    pub file: String,
    pub uid: i64,
    pub exe: String,
    pub jobid: i64,
    pub job_key: String,
    pub rank: i64,
    /// What it did this interval, per module name.
    pub delta: BTreeMap<String, Totals>,
    /// Since it started, per module name.
    pub total: BTreeMap<String, Totals>,
    /// Modules whose records were busy at every try this interval.
    pub stale: Vec<String>,
    /// It ended this interval (its last figures are in `delta`).
    pub ended: bool,
    /// Where its final figures came from, once it ended: "final log PATH"
    /// or "last snapshot".
    pub final_from: Option<String>,
}

/// A job: its processes' deltas and totals added up.
#[derive(Clone, Debug, Serialize)]
pub struct JobView {
    pub job_key: String,
    pub jobid: i64,
    pub uid: i64,
    pub exe: String,
    pub processes: usize,
    pub ranks: Vec<i64>,
    pub delta: BTreeMap<String, Totals>,
    pub total: BTreeMap<String, Totals>,
    /// An MPI job whose every rank ran here, once they all ended: "final
    /// log PATH" (its `delta` then holds what the log adds to the ranks'
    /// last snapshots, its `total` the log's figures).
    pub final_from: Option<String>,
}

/// One interval.
#[derive(Clone, Debug, Serialize)]
pub struct Interval {
    /// Seconds since the epoch at its end, and its length.
    pub at: f64,
    pub seconds: f64,
    pub processes: Vec<ProcessView>,
    pub jobs: Vec<JobView>,
    /// Files with the most bytes moved this interval: (name, bytes read,
    /// bytes written), at most 10.
    pub busiest: Vec<(String, i64, i64)>,
    /// Modules left stale (busy at every try) this interval, over all files.
    pub stale_modules: usize,
    /// Files refused this interval (not a regular file, a link another
    /// user owns, a uid that is not their owner's, records claimed but not
    /// held, too large), with why.
    pub refused: Vec<String>,
    /// Files not followed this interval because the tracker's memory
    /// limit was reached.
    pub over_memory: usize,
}

struct Seen {
    /// When /proc was last asked whether its process runs.
    asked: f64,
    key: String,
    rank: i64,
    snap: Snapshot,
    by_mod: BTreeMap<usize, Totals>,
    by_file: HashMap<String, Totals>,
}

/// Follows the crash-safe files from one interval to the next.
pub struct Tracker {
    seen: HashMap<PathBuf, Seen>,
    /// Files of killed processes already reported ended.
    killed: HashSet<PathBuf>,
    /// Where final logs are looked for (flat directories, or dated trees).
    log_dirs: Vec<PathBuf>,
    last: f64,
    /// The boot time (/proc/stat's btime), read once.
    boot: Option<Option<i64>>,
    /// MPI jobs with a rank seen here, until their log is read or given
    /// up, by owner and job key (a user cannot join another's job).
    mpi: HashMap<(i64, String), MpiJob>,
    /// When the reading before this one was taken (0 before the first).
    before: f64,
    /// The most the followed files' records may take, in bytes.
    memory_limit: u64,
}

/// The tracker's default memory limit: what the snapshots it keeps may
/// take (their records, counted at twice their bytes in the file).
pub const DEFAULT_MEMORY_LIMIT: u64 = 1 << 30;

/// What a snapshot's records hold in memory, as the limit counts it.
fn held_bytes(s: &Snapshot) -> u64 {
    2 * s.bytes()
}

fn mod_names(m: &BTreeMap<usize, Totals>) -> BTreeMap<String, Totals> {
    m.iter().map(|(k, v)| (module_name(*k).to_string(), *v)).collect()
}

fn meta(job: &Job, key: &str) -> Option<String> {
    job.metadata_pairs()
        .into_iter()
        .find(|(k, _)| *k == key.as_bytes())
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
}

/// The process's delta since its previous reading `prev`, its sums by
/// module and by file; its files' deltas are added to `files_delta`.
type Sums = (BTreeMap<usize, Totals>, BTreeMap<usize, Totals>, HashMap<String, Totals>);
fn sums_since(prev: Option<Seen>, snap: &Snapshot, files_delta: &mut HashMap<String, Totals>) -> Sums {
    match prev {
        // Nothing counted moved: the sums stand, the delta is zero.
        Some(p) if unchanged(&p, snap) => {
            (p.by_mod.keys().map(|&m| (m, Totals::default())).collect(), p.by_mod, p.by_file)
        }
        prev => {
            let (by_mod, by_file) = snap_sums(snap);
            let (delta, fdelta) = match &prev {
                Some(p) => (minus_map(&by_mod, &p.by_mod), minus_files(&by_file, &p.by_file)),
                None => (by_mod.clone(), by_file.clone()),
            };
            for (n, t) in fdelta {
                files_delta.entry(n).or_default().add(&t);
            }
            (delta, by_mod, by_file)
        }
    }
}

/// Nothing counted moved since the previous reading `p`.
fn unchanged(p: &Seen, snap: &Snapshot) -> bool {
    snap.stale.is_empty() && !snap.copied.iter().any(|&m| counted(m)) && Arc::ptr_eq(&snap.names, &p.snap.names)
}

/// When /proc was first asked about the process, and its job key and
/// rank. A process joins its MPI job when MPI_Init rewrites its job
/// record (DARSHAN_ENABLE_NONMPI: it recorded before as a job of its
/// own): from then on it is keyed and ranked as the job's. What earlier
/// intervals published under its first key stays there; the job's
/// deltas and its final delta (its log less its ranks' last figures)
/// count the rest, so nothing is counted twice.
fn identity(prev: Option<&Seen>, snap: &Snapshot, now: f64) -> (f64, String, i64) {
    match prev {
        Some(p) if same_job(&p.snap.job, &snap.job) => (p.asked, p.key.clone(), p.rank),
        _ => (prev.map_or(now, |p| p.asked), darshan_util::job_inputs::job_key(&snap.job), rank_of(snap)),
    }
}

/// The job records say the same job and rank (what the runtime rewrites
/// at MPI_Init: the job id, its size, the metadata).
fn same_job(a: &Job, b: &Job) -> bool {
    (a.jobid, a.nprocs, &a.metadata) == (b.jobid, b.nprocs, &b.metadata)
}

fn rank_of(s: &Snapshot) -> i64 {
    meta(&s.job, "job_rank")
        .and_then(|r| r.parse().ok())
        .or_else(|| s.modules.values().flat_map(|v| v.iter()).map(|r| r.rank).find(|r| *r >= 0))
        .unwrap_or(0)
}

impl Tracker {
    pub fn new(log_dirs: Vec<PathBuf>) -> Tracker {
        Tracker {
            seen: HashMap::new(),
            killed: Default::default(),
            log_dirs,
            last: 0.0,
            boot: None,
            mpi: HashMap::new(),
            before: 0.0,
            memory_limit: DEFAULT_MEMORY_LIMIT,
        }
    }

    /// The most the followed files' snapshots may take (bytes); a file
    /// that would go past it is not followed (counted in `over_memory`).
    pub fn with_memory_limit(mut self, bytes: u64) -> Tracker {
        self.memory_limit = bytes;
        self
    }

    /// Read `files` (the crash-safe files found now) and report the
    /// interval since the last call. Files that cannot be read this time
    /// (being made, or gone between listing and reading) are skipped.
    pub fn interval(&mut self, files: &[PathBuf]) -> Interval {
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0);
        let seconds = if self.last > 0.0 { now - self.last } else { 0.0 };
        self.before = self.last;
        self.last = now;
        let present: HashSet<&PathBuf> = files.iter().collect();
        let dead = self.killed_now(&present, now);
        let mut processes = Vec::new();
        let mut files_delta: HashMap<String, Totals> = HashMap::new();
        let mut stale_modules = 0;
        let mut refused = Vec::new();
        let mut over_memory = 0;
        let mut held: u64 = self.seen.values().map(|s| held_bytes(&s.snap)).sum();
        for f in files {
            if self.killed.contains(f) {
                continue;
            }
            match self.read_running(f, now, &mut files_delta, &mut held) {
                Ok(v) => {
                    stale_modules += v.stale.len();
                    processes.push(v);
                }
                Err(Skipped::Refused(why)) => refused.push(why),
                Err(Skipped::OverMemory) => over_memory += 1,
                Err(Skipped::NotNow) => {}
            }
        }
        // Files gone since the last interval: their processes ended.
        let gone: Vec<PathBuf> =
            self.seen.keys().filter(|p| !present.contains(p) || dead.contains(*p)).cloned().collect();
        for p in gone {
            if let Some(s) = self.seen.remove(&p) {
                processes.push(self.read_ended(&p, s, dead.contains(&p)));
            }
        }
        let ends = self.mpi_jobs_ended(now);
        processes.sort_by(|a, b| (&a.job_key, a.rank, &a.file).cmp(&(&b.job_key, b.rank, &b.file)));
        let jobs = jobs_of(&processes, ends);
        let mut busiest: Vec<(String, i64, i64)> = files_delta
            .into_iter()
            .filter(|(_, t)| t.bytes_read != 0 || t.bytes_written != 0)
            .map(|(n, t)| (n, t.bytes_read, t.bytes_written))
            .collect();
        busiest.sort_by(|a, b| (b.1.saturating_add(b.2)).cmp(&a.1.saturating_add(a.2)).then(a.0.cmp(&b.0)));
        busiest.truncate(10);
        Interval { at: now, seconds, processes, jobs, busiest, stale_modules, refused, over_memory }
    }

    /// The files whose processes were killed since the last interval: a
    /// file that stays while its process is gone holds its final state;
    /// it is reported ended once and then left alone (the epilog merges
    /// it). /proc is asked at most once a second per file, and not about a
    /// file that moved at its last reading (its process was writing): a
    /// thousand idle processes read at 10 Hz would otherwise cost ten
    /// thousand /proc reads a second.
    fn killed_now(&mut self, present: &HashSet<&PathBuf>, now: f64) -> HashSet<PathBuf> {
        let boot = *self.boot.get_or_insert_with(boot_time);
        let mut dead = HashSet::new();
        for (p, s) in self.seen.iter_mut().filter(|(p, _)| present.contains(p)) {
            if s.snap.same_as_before() && now - s.asked >= 1.0 {
                s.asked = now;
                if !alive(&s.snap, boot) {
                    dead.insert(p.clone());
                }
            }
        }
        self.killed.extend(dead.iter().cloned());
        self.killed.retain(|p| present.contains(p));
        dead
    }

    /// A running process's file read again: its view for the interval,
    /// its files' deltas added to `files_delta`; `held`: the bytes the
    /// followed snapshots take, kept within the memory limit.
    fn read_running(
        &mut self,
        f: &PathBuf,
        now: f64,
        files_delta: &mut HashMap<String, Totals>,
        held: &mut u64,
    ) -> Result<ProcessView, Skipped> {
        let prev = self.seen.remove(f);
        let was = prev.as_ref().map_or(0, |p| held_bytes(&p.snap));
        let snap = match take_of(f, prev.as_ref().map(|p| &p.snap), &counted) {
            Ok(s) if held.saturating_sub(was).saturating_add(held_bytes(&s)) <= self.memory_limit => s,
            // Over the limit: not followed (its memory is let go).
            Ok(_) => {
                *held = held.saturating_sub(was);
                return Err(Skipped::OverMemory);
            }
            // Being made, or gone between listing and reading: skipped
            // this time, as it was. Refused: said, and skipped likewise.
            Err(e) => {
                if let Some(p) = prev {
                    self.seen.insert(f.clone(), p);
                }
                return Err(Skipped::of(e));
            }
        };
        *held = held.saturating_sub(was).saturating_add(held_bytes(&snap));
        // What this interval's delta cannot measure: modules whose
        // records the previous reading could not take (busy: their delta
        // now spans more than this interval), and a process first seen
        // after it had run through an earlier reading (its delta is its
        // history).
        let mut unmeasured: Vec<usize> = prev.as_ref().map(|p| p.snap.stale.clone()).unwrap_or_default();
        if prev.is_none() && self.before > 0.0 && (snap.job.start_time_sec as f64) < self.before {
            unmeasured.extend(snap.modules.keys().copied().filter(|&m| counted(m)));
        }
        let (asked, key, rank) = identity(prev.as_ref(), &snap, now);
        let (delta, by_mod, by_file) = sums_since(prev, &snap, files_delta);
        if snap.job.nprocs > 1 {
            let k = (snap.job.uid, key.clone());
            self.mpi.entry(k).or_insert_with(|| MpiJob::new(&snap.job)).saw(rank, &snap.job);
        }
        let mut v = view(&snap, &key, rank, &delta, &by_mod, false, None);
        for m in unmeasured {
            let n = module_name(m).to_string();
            if !v.stale.contains(&n) {
                v.stale.push(n);
            }
        }
        self.seen.insert(f.clone(), Seen { asked, key, rank, snap, by_mod, by_file });
        Ok(v)
    }

    /// A process that ended (its file gone) or was killed (its file
    /// stays): its last figures, from its final log, its file, or its
    /// last snapshot.
    fn read_ended(&mut self, p: &Path, s: Seen, killed: bool) -> ProcessView {
        let (fin, from) = if killed {
            match take_of(p, Some(&s.snap), &counted) {
                Ok(now) => (snap_sums(&now).0, "killed: its crash-safe file".to_string()),
                Err(_) => (s.by_mod.clone(), "killed: last snapshot".to_string()),
            }
        } else {
            match self.final_log(&s.snap) {
                Some((path, mods)) => {
                    let (m, _) = sums(mods.iter().map(|(&k, v)| (k, v.as_slice())), &|_| String::new());
                    (m, format!("final log {}", path.display()))
                }
                None => (s.by_mod.clone(), "last snapshot".to_string()),
            }
        };
        let delta = minus_map(&fin, &s.by_mod);
        if let Some(j) = self.mpi.get_mut(&(s.snap.job.uid, s.key.clone())) {
            j.end(s.rank, &fin);
        }
        view(&s.snap, &s.key, s.rank, &delta, &fin, true, Some(from))
    }

    /// MPI jobs done with: those whose every rank ran here and ended get
    /// their log's figures (once it is found, or never after
    /// [`MPI_LOG_WAIT`]); those with ranks elsewhere are forgotten once
    /// none of their ranks here runs.
    fn mpi_jobs_ended(&mut self, now: f64) -> Vec<JobEnd> {
        let running: HashSet<(i64, &str)> = self.seen.values().map(|s| (s.snap.job.uid, s.key.as_str())).collect();
        let mut ends = Vec::new();
        let mut done = Vec::new();
        for ((uid, key), j) in &mut self.mpi {
            if !j.whole_and_ended() {
                if !running.contains(&(*uid, key.as_str())) {
                    done.push((*uid, key.clone()));
                }
                continue;
            }
            let since = *j.all_ended_at.get_or_insert(now);
            if let Some((path, mods)) = j.log(&self.log_dirs) {
                let (total, _) = sums(mods.iter().map(|(&k, v)| (k, v.as_slice())), &|_| String::new());
                let delta = minus_map(&total, &j.last);
                ends.push(JobEnd {
                    job_key: key.clone(),
                    jobid: j.jobid,
                    uid: j.uid,
                    exe: String::from_utf8_lossy(&j.exe).into_owned(),
                    delta,
                    total,
                    from: format!("final log {}", path.display()),
                });
                done.push((*uid, key.clone()));
            } else if now - since > MPI_LOG_WAIT {
                done.push((*uid, key.clone()));
            }
        }
        for k in done {
            self.mpi.remove(&k);
        }
        ends
    }

    /// The final log of an ended process that is not an MPI rank (an MPI
    /// job's log is its ranks' together: see [`crate::final_log::MpiJob`]).
    fn final_log(&self, s: &Snapshot) -> Option<(PathBuf, BTreeMap<usize, Vec<Record>>)> {
        if s.job.nprocs > 1 {
            return None;
        }
        let want = (s.job.uid, s.job.start_time_sec, s.job.start_time_nsec, s.job.exe());
        find_log(&self.log_dirs, s.job.jobid, &|j| (j.uid, j.start_time_sec, j.start_time_nsec, j.exe()) == want)
    }
}

/// Why a file gave no view this interval.
enum Skipped {
    /// Refused, with the one line that says why.
    Refused(String),
    /// Over the memory limit.
    OverMemory,
    /// Being made, or gone between listing and reading.
    NotNow,
}

impl Skipped {
    fn of(e: crate::snapshot::LiveError) -> Skipped {
        use crate::snapshot::LiveError as E;
        match e {
            E::Io { .. } | E::Log { .. } => Skipped::NotNow,
            e => Skipped::Refused(darshan_util::visible::visible(&e.to_string()).into_owned()),
        }
    }
}

/// Whether the process that writes a snapshot's file still runs: its
/// `pid=` (written into the crash-safe file's job metadata) names a live
/// process that started no later than the file's job did (a pid reused by
/// a later process does not count). Without a pid (an older runtime's
/// file) or a readable /proc, it is taken to run.
fn alive(s: &Snapshot, boot: Option<i64>) -> bool {
    let Some(pid) = meta(&s.job, "pid").and_then(|p| p.parse::<i64>().ok()) else { return true };
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // Field 22, start time in clock ticks (USER_HZ, 100 on Linux) since boot.
    let start_ticks = stat.rsplit_once(')').and_then(|(_, r)| r.split_whitespace().nth(19)?.parse::<i64>().ok());
    match (start_ticks, boot) {
        (Some(t), Some(b)) => b + t / 100 <= s.job.start_time_sec + 2,
        _ => true,
    }
}

/// The boot time, seconds since the epoch (/proc/stat's `btime`).
fn boot_time() -> Option<i64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines().find_map(|l| l.strip_prefix("btime ")?.trim().parse::<i64>().ok())
}

fn view(
    s: &Snapshot,
    job_key: &str,
    rank: i64,
    delta: &BTreeMap<usize, Totals>,
    total: &BTreeMap<usize, Totals>,
    ended: bool,
    from: Option<String>,
) -> ProcessView {
    ProcessView {
        file: s.path.display().to_string(),
        uid: i64::from(s.owner),
        exe: String::from_utf8_lossy(s.job.exe()).into_owned(),
        jobid: s.job.jobid,
        job_key: job_key.to_string(),
        rank,
        delta: mod_names(delta),
        total: mod_names(total),
        stale: s.stale.iter().map(|m| module_name(*m).to_string()).collect(),
        ended,
        final_from: from,
    }
}

fn jobs_of(procs: &[ProcessView], ends: Vec<JobEnd>) -> Vec<JobView> {
    // By owner and key: a user's process never joins another user's job.
    let mut jobs: BTreeMap<(i64, String), JobView> = BTreeMap::new();
    let new = |key: &str, jobid: i64, uid: i64, exe: &str| JobView {
        job_key: key.to_string(),
        jobid,
        uid,
        exe: exe.to_string(),
        processes: 0,
        ranks: Vec::new(),
        delta: BTreeMap::new(),
        total: BTreeMap::new(),
        final_from: None,
    };
    for p in procs {
        let j = jobs.entry((p.uid, p.job_key.clone())).or_insert_with(|| new(&p.job_key, p.jobid, p.uid, &p.exe));
        j.processes += 1;
        if !j.ranks.contains(&p.rank) {
            j.ranks.push(p.rank);
        }
        for (m, t) in &p.delta {
            j.delta.entry(m.clone()).or_default().add(t);
        }
        for (m, t) in &p.total {
            j.total.entry(m.clone()).or_default().add(t);
        }
    }
    // An MPI job's log: what it adds is this interval's, its figures the
    // job's total (its ranks may have ended in an earlier interval).
    for e in ends {
        let j = jobs.entry((e.uid, e.job_key.clone())).or_insert_with(|| new(&e.job_key, e.jobid, e.uid, &e.exe));
        for (m, t) in &e.delta {
            j.delta.entry(module_name(*m).to_string()).or_default().add(t);
        }
        j.total = mod_names(&e.total);
        j.final_from = Some(e.from);
    }
    jobs.into_values().collect()
}
