//! The PROCESSES region of a job log (`darshan_log::counters::processes`):
//! what `darshan-merge --job` knows of each process it merged and the
//! job log would otherwise lose, since its records are kept per rank: who
//! the process is to the job (a rank, a forked or spawned worker of one,
//! a launcher, from the lineage the runtime records), and its own data
//! I/O (bytes, time, first read, a read timeline), software loading apart.
//! The report's loader view reads it.

use std::collections::HashMap;

use darshan_log::counters::processes::{self as pc, Role};
use darshan_log::counters::{posix, stdio};
use darshan_log::modules::{DXT_POSIX, HEATMAP, POSIX, PROCESSES, STDIO};
use darshan_log::record::Extra;
use darshan_log::software::software_loading;
use darshan_log::{LogFile, NameTable, Record};

use crate::job_inputs::{meta_i64, ProcessLog};
use crate::merge::MergeError;

/// The job's clock: its start and its run time cut in `pc::BINS` parts.
pub struct Clock {
    pub start_ns: i128,
    pub run_secs: f64,
}

impl Clock {
    fn width(&self) -> f64 {
        (self.run_secs / pc::BINS as f64).max(1e-6)
    }

    /// The bin of time `t` (seconds since the job's start).
    fn bin(&self, t: f64) -> usize {
        if t.is_finite() && t > 0.0 {
            ((t / self.width()) as usize).min(pc::BINS - 1)
        } else {
            0
        }
    }
}

/// A process's id: the crash-safe file's `pid=`, else the runtime's log
/// name (`<user>_<exe>_id<jobid>-<pid>_...`).
pub fn pid_of(p: &ProcessLog) -> Option<i64> {
    if let Some(pid) = meta_i64(&p.job, "pid") {
        return Some(pid);
    }
    let name = p.path.file_name()?.to_str()?;
    let tag = format!("_id{}-", p.job.jobid);
    let rest = &name[name.find(&tag)? + tag.len()..];
    rest.split('_').next()?.parse().ok().filter(|&pid: &i64| pid > 0)
}

/// Each process's role and the process it came from (-1: unknown), from
/// `fork_parent=`, `ppid=` and the ranks the processes say.
fn roles(procs: &[ProcessLog], ranks_by_start: bool) -> Vec<(Role, i64)> {
    let pids: Vec<Option<i64>> = procs.iter().map(pid_of).collect();
    let index: HashMap<i64, usize> = pids.iter().enumerate().filter_map(|(i, p)| Some(((*p)?, i))).collect();
    let in_job = |pid: Option<i64>| pid.and_then(|p| index.get(&p).copied());
    // Each process's children in the job, by parent pid (one pass: a job
    // of 10,000 processes is not compared pair by pair).
    let mut children: HashMap<i64, Vec<usize>> = HashMap::new();
    for (j, c) in procs.iter().enumerate() {
        if let Some(pp) = c.ppid {
            children.entry(pp).or_default().push(j);
        }
    }
    procs
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ppid = p.ppid.unwrap_or(-1);
            if ranks_by_start {
                return (Role::Rank, ppid);
            }
            if let Some(fp) = meta_i64(&p.job, "fork_parent") {
                return (Role::Forked, fp);
            }
            // Started by a process of its own rank (a rank that says its
            // rank started by one that does not is a launcher's rank).
            if in_job(p.ppid).is_some_and(|j| procs[j].rank == p.rank && procs[j].ranked == p.ranked) {
                return (Role::Spawned, ppid);
            }
            let starts_other_ranks = pids[i]
                .and_then(|pid| children.get(&pid))
                .is_some_and(|cs| cs.iter().any(|&c| procs[c].ranked && procs[c].rank != p.rank));
            if !p.ranked && starts_other_ranks {
                return (Role::Launcher, ppid);
            }
            (Role::Rank, ppid)
        })
        .collect()
}

/// Where a module keeps the figures a process's sums take.
struct Indices {
    reads: usize,
    writes: usize,
    bytes_read: usize,
    bytes_written: usize,
    read_time: usize,
    write_time: usize,
    meta_time: usize,
    read_start: usize,
    read_end: usize,
}

const POSIX_AT: Indices = Indices {
    reads: posix::READS,
    writes: posix::WRITES,
    bytes_read: posix::BYTES_READ,
    bytes_written: posix::BYTES_WRITTEN,
    read_time: posix::F_READ_TIME,
    write_time: posix::F_WRITE_TIME,
    meta_time: posix::F_META_TIME,
    read_start: posix::F_READ_START_TIMESTAMP,
    read_end: posix::F_READ_END_TIMESTAMP,
};

const STDIO_AT: Indices = Indices {
    reads: stdio::READS,
    writes: stdio::WRITES,
    bytes_read: stdio::BYTES_READ,
    bytes_written: stdio::BYTES_WRITTEN,
    read_time: stdio::F_READ_TIME,
    write_time: stdio::F_WRITE_TIME,
    meta_time: stdio::F_META_TIME,
    read_start: stdio::F_READ_START_TIMESTAMP,
    read_end: stdio::F_READ_END_TIMESTAMP,
};

/// One process's sums over its files (C's −1, "not recorded", counts 0).
struct Sums {
    c: [i64; pc::NUM_INDICES],
    f: [f64; pc::F_NUM_INDICES],
}

impl Sums {
    fn new() -> Sums {
        let mut f = [0.0; pc::F_NUM_INDICES];
        f[pc::F_FIRST_READ] = f64::INFINITY;
        f[pc::F_LAST_READ_END] = -1.0;
        Sums { c: [0; pc::NUM_INDICES], f }
    }

    fn add_file(&mut self, r: &Record, names: &NameTable, at: &Indices, shift: f64) {
        let c = |k: usize| r.counters.get(k).copied().unwrap_or(0).max(0);
        let f = |k: usize| r.fcounters.get(k).copied().filter(|v| v.is_finite() && *v > 0.0).unwrap_or(0.0);
        if is_software(names, r.id) {
            self.c[pc::SOFTWARE_FILES] += 1;
            self.c[pc::SOFTWARE_BYTES_READ] = self.c[pc::SOFTWARE_BYTES_READ].saturating_add(c(at.bytes_read));
            return;
        }
        for (to, from) in [(pc::READS, at.reads), (pc::WRITES, at.writes)] {
            self.c[to] = self.c[to].saturating_add(c(from));
        }
        for (to, from) in [(pc::BYTES_READ, at.bytes_read), (pc::BYTES_WRITTEN, at.bytes_written)] {
            self.c[to] = self.c[to].saturating_add(c(from));
        }
        for (to, from) in
            [(pc::F_READ_TIME, at.read_time), (pc::F_WRITE_TIME, at.write_time), (pc::F_META_TIME, at.meta_time)]
        {
            self.f[to] += f(from);
        }
        if c(at.reads) > 0 && f(at.read_start) > 0.0 {
            self.f[pc::F_FIRST_READ] = self.f[pc::F_FIRST_READ].min(f(at.read_start) + shift);
            self.f[pc::F_LAST_READ_END] = self.f[pc::F_LAST_READ_END].max(f(at.read_end) + shift);
        }
    }

    /// Reads into the timeline: DXT's data segments where the process has
    /// them, else its POSIX heat map's read bins.
    fn add_timeline(
        &mut self,
        log: &LogFile,
        names: &NameTable,
        clock: &Clock,
        shift: f64,
    ) -> Result<(), darshan_log::LogError> {
        let modules = log.modules_present();
        if modules.contains(&DXT_POSIX) {
            self.c[pc::TIMELINE_SOURCE] = pc::TIMELINE_DXT;
            for r in log.records(DXT_POSIX)?.iter().filter(|r| !is_software(names, r.id)) {
                if let Extra::Dxt { reads, .. } = &r.extra {
                    for s in reads {
                        self.add_to_bin(clock.bin(s.start_time + shift), s.length.max(0));
                    }
                }
            }
        } else if modules.contains(&HEATMAP) {
            let posix_map = darshan_log::record_id(b"heatmap:POSIX");
            for r in log.records(HEATMAP)?.iter().filter(|r| r.id == posix_map) {
                if let Extra::Heatmap { bin_width, read_bins, .. } = &r.extra {
                    self.c[pc::TIMELINE_SOURCE] = pc::TIMELINE_HEATMAP;
                    for (i, b) in read_bins.iter().enumerate() {
                        self.add_to_bin(clock.bin((i as f64 + 0.5) * bin_width + shift), (*b).max(0));
                    }
                }
            }
        }
        Ok(())
    }

    fn add_to_bin(&mut self, bin: usize, bytes: i64) {
        let k = pc::READ_BIN_0 + bin;
        self.c[k] = self.c[k].saturating_add(bytes);
    }
}

fn is_software(names: &NameTable, id: u64) -> bool {
    names.get(id).is_some_and(|n| software_loading(&String::from_utf8_lossy(n)).is_some())
}

/// One process's record: `index` its place in the job.
fn process_record(
    p: &ProcessLog,
    index: usize,
    role: (Role, i64),
    ranked_by_start: bool,
    clock: &Clock,
) -> Result<Record, MergeError> {
    let err = |e| MergeError::Log { path: p.path.clone(), source: e };
    let log = LogFile::open(&p.path).map_err(|e| MergeError::Unreadable { path: p.path.clone(), source: e })?;
    let names = log.names().map_err(err)?;
    let shift = (p.start_ns - clock.start_ns) as f64 / 1e9;
    let mut sums = Sums::new();
    for (module, at) in [(POSIX, &POSIX_AT), (STDIO, &STDIO_AT)] {
        if log.modules_present().contains(&module) {
            for r in log.records(module).map_err(err)? {
                sums.add_file(&r, &names, at, shift);
            }
        }
    }
    sums.add_timeline(&log, &names, clock, shift).map_err(err)?;
    let mut r = Record::zeroed(PROCESSES, index as u64, p.rank);
    r.counters = sums.c.to_vec();
    r.fcounters = sums.f.to_vec();
    r.counters[pc::PID] = pid_of(p).unwrap_or(-1);
    r.counters[pc::PARENT_PID] = role.1;
    r.counters[pc::ROLE] = role.0 as i64;
    r.counters[pc::RANKED_BY_START] = i64::from(ranked_by_start);
    if !r.fcounters[pc::F_FIRST_READ].is_finite() {
        r.fcounters[pc::F_FIRST_READ] = -1.0;
    }
    r.fcounters[pc::F_START] = shift;
    r.fcounters[pc::F_END] = (p.end_ns - clock.start_ns) as f64 / 1e9;
    r.fcounters[pc::F_BIN_WIDTH] = clock.width();
    Ok(r)
}

/// The PROCESSES records of a job's processes (in the job's order).
pub fn records(procs: &[ProcessLog], ranks_by_start: bool, clock: &Clock) -> Result<Vec<Record>, MergeError> {
    let roles = roles(procs, ranks_by_start);
    procs
        .iter()
        .zip(roles)
        .enumerate()
        .map(|(i, (p, role))| process_record(p, i, role, ranks_by_start, clock))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A process log as its runtime names and describes it: pid in the
    /// name, `job_rank=` when its launcher said one, `ppid=`, and
    /// `fork_parent=` when it was forked.
    fn process(pid: i64, rank: Option<i64>, ppid: i64, fork_parent: Option<i64>) -> ProcessLog {
        let mut meta = format!("ppid={ppid}\n");
        if let Some(r) = rank {
            meta.push_str(&format!("job_rank={r}\njob_size=2\n"));
        }
        if let Some(f) = fork_parent {
            meta.push_str(&format!("fork_parent={f}\n"));
        }
        let job = crate::job_inputs::tests::job(&meta, 7);
        ProcessLog {
            path: PathBuf::from(format!("/logs/u_python3_id7-{pid}_1-2-3-4_1.darshan")),
            rank: rank.unwrap_or(0),
            ranked: rank.is_some(),
            size: Some(2),
            key: "k".into(),
            mpi: false,
            job_log: false,
            start_ns: 0,
            end_ns: 0,
            ppid: Some(ppid),
            crash_safe: false,
            bytes: 0,
            job,
        }
    }

    #[test]
    fn a_launcher_its_ranks_and_their_forked_and_spawned_workers_are_told_apart() {
        let procs = [
            process(100, None, 1, None),           // starts the two ranks
            process(101, Some(0), 100, None),      // rank 0
            process(102, Some(1), 100, None),      // rank 1
            process(103, Some(0), 101, Some(101)), // forked by rank 0
            process(104, Some(1), 102, None),      // spawned (fork + exec) by rank 1
            process(105, Some(1), 55, None),       // rank 1 again, its parent not in the job
        ];
        let got: Vec<(Role, i64)> = roles(&procs, false);
        assert_eq!(
            got,
            [
                (Role::Launcher, 1),
                (Role::Rank, 100),
                (Role::Rank, 100),
                (Role::Forked, 101),
                (Role::Spawned, 102),
                (Role::Rank, 55)
            ]
        );
        assert_eq!(pid_of(&procs[3]), Some(103));
        // Logs that say nothing (C's): each a rank, in start order.
        assert!(roles(&procs, true).iter().all(|r| r.0 == Role::Rank));
    }
}
