//! darshan-merge: the crash-safe files of one job (one per process, left
//! by a job that was killed) made into one compressed 3.41 log, as if the
//! job had ended normally: names united, records of every rank kept (or,
//! with `shared_redux`, the records every rank has combined into one), the
//! time counters in seconds, heatmaps of one width, partial flags only
//! where a process really ran out of room.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use darshan_log::crash_safe::FILE_ONLY_METADATA;
use darshan_log::job::EXE_LEN;
use darshan_log::modules::*;
use darshan_log::record::Extra;
use darshan_log::{Compression, Job, LogFile, LogWriter, NameTable, Record};

#[derive(Default)]
pub struct Options {
    pub shared_redux: bool,
    /// The log 0440, not 0400 (`--group-readable`): a site whose runtime
    /// is installed with group-readable logs (C's
    /// `--enable-group-readable-logs`) has its recovered and job logs
    /// readable by the same group.
    pub group_readable: bool,
    /// End time (seconds since the epoch) to record; else the latest end
    /// any input knows, else the inputs' last modification.
    pub job_end_time: Option<i64>,
}

/// One input, not held open: a killed job of thousands of ranks leaves
/// as many files, more than a process may hold descriptors for (each
/// stayed open for the whole merge: `Too many open files` past
/// RLIMIT_NOFILE). Each pass opens it again.
struct Input {
    path: PathBuf,
    job: Job,
    partial_flag: u64,
    modules: Vec<usize>,
    rank: i64,
    /// Last modification (s, ns): about when the process last recorded.
    mtime: (i64, i64),
}

impl Input {
    fn log(&self) -> Result<LogFile, MergeError> {
        LogFile::open(&self.path).map_err(|e| MergeError::Unreadable { path: self.path.clone(), source: e })
    }

    fn err(&self) -> impl Fn(darshan_log::LogError) -> MergeError + '_ {
        |e| MergeError::Log { path: self.path.clone(), source: e }
    }

    /// Its records of module `m` as a merge takes them ([`kept_records`]).
    fn records(&self, m: usize) -> Result<Vec<Record>, MergeError> {
        if !self.modules.contains(&m) {
            return Ok(Vec::new());
        }
        kept_module_records(&self.log()?, m).map_err(self.err())
    }
}

/// A log's records of module `m` as a merge takes them ([`kept_records`]).
/// Only STDIO's are filtered by name (the standard streams'): the name
/// table is read for them alone.
pub(crate) fn kept_module_records(log: &LogFile, m: usize) -> darshan_log::Result<Vec<Record>> {
    let names = if m == STDIO { log.names()? } else { NameTable::new() };
    Ok(kept_records(log.records(m)?, m, &names).collect())
}

/// Why the logs could not be merged: each kind with the file it is
/// about and, where there is one, the underlying error (kept as such).
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("no input logs")]
    NoInput,
    #[error("no crash-safe logs of job {jobid} in {}", dir.display())]
    NoJobFiles { jobid: String, dir: PathBuf },
    #[error("{}: not a readable Darshan log: {source}", path.display())]
    Unreadable { path: PathBuf, source: darshan_log::LogError },
    #[error("{}: {source}", path.display())]
    Log { path: PathBuf, source: darshan_log::LogError },
    #[error(
        "{} and {} are not from the same job (job id {} / {}, nprocs {} / {}, command lines differ: {commands_differ})",
        a.display(), b.display(), jobids.0, jobids.1, nprocs.0, nprocs.1
    )]
    NotOneJob { a: PathBuf, b: PathBuf, jobids: (i64, i64), nprocs: (i64, i64), commands_differ: bool },
    #[error("{} and {} are both rank {rank}", a.display(), b.display())]
    SameRank { a: PathBuf, b: PathBuf, rank: i64 },
    #[error("writing {}: {source}", path.display())]
    Write { path: PathBuf, source: darshan_log::LogError },
    #[error("cannot rename {} to {}: {source}", from.display(), to.display())]
    Rename { from: PathBuf, to: PathBuf, source: std::io::Error },
    #[error("{what} {}: {source}", path.display())]
    Io { what: &'static str, path: PathBuf, source: std::io::Error },
}

/// The crash-safe files of job `jobid` in `dir` (`*_id<jobid>_mmap-log-*`).
pub fn find_job_files(dir: &Path, jobid: &str) -> Result<Vec<PathBuf>, MergeError> {
    let pat = format!("_id{jobid}_mmap-log-");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| MergeError::Io { what: "cannot read", path: dir.into(), source: e })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(&pat) && n.ends_with(".darshan")))
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(MergeError::NoJobFiles { jobid: jobid.into(), dir: dir.into() });
    }
    Ok(v)
}

fn open(path: &Path) -> Result<Input, MergeError> {
    let log = LogFile::open(path).map_err(|e| MergeError::Unreadable { path: path.into(), source: e })?;
    let mtime = std::fs::metadata(path)
        .ok()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| (d.as_secs() as i64, d.subsec_nanos() as i64))
        .unwrap_or((0, 0));
    // Every record's rank is the process's rank: take the first one.
    let err = |e| MergeError::Log { path: path.into(), source: e };
    let mut rank = None;
    for m in log.modules_present().into_iter().filter(|&m| m != HEATMAP && readable(m)) {
        let mut first = Record::new(m);
        if log.module_reader(m).and_then(|mut rd| rd.next_into(&mut first)).map_err(err)? {
            rank = Some(first.rank);
            break;
        }
    }
    let (partial_flag, modules) = (log.header.partial_flag, log.modules_present());
    Ok(Input { path: path.to_path_buf(), job: log.job, partial_flag, modules, rank: rank.unwrap_or(-2), mtime })
}

fn exe(job: &Job) -> &[u8] {
    let n = job.exe_mnt.iter().position(|&c| c == b'\n').unwrap_or(job.exe_mnt.len());
    &job.exe_mnt[..n]
}

/// Whether the inputs look like the processes of one job (same job id,
/// command line and process count, no rank twice); if not, why. Not a
/// refusal: darshan-util's merge takes any logs (the first one's job
/// data, the earliest start, the latest end), and Darshan's own epilog
/// merges every crash-safe file of a batch job on the node, which may be
/// several job steps or processes without MPI, all rank 0.
fn not_one_job(inputs: &[Input]) -> Option<MergeError> {
    let j0 = &inputs[0].job;
    let mut seen = HashMap::new();
    for i in inputs {
        let j = &i.job;
        if j.jobid != j0.jobid || exe(j) != exe(j0) || j.nprocs != j0.nprocs {
            return Some(MergeError::NotOneJob {
                a: inputs[0].path.clone(),
                b: i.path.clone(),
                jobids: (j0.jobid, j.jobid),
                nprocs: (j0.nprocs, j.nprocs),
                commands_differ: exe(j) != exe(j0),
            });
        }
        if i.rank >= 0 {
            if let Some(p) = seen.insert(i.rank, &i.path) {
                return Some(MergeError::SameRank { a: p.to_path_buf(), b: i.path.clone(), rank: i.rank });
            }
        }
    }
    None
}

/// One input's records of module `m` as a merge takes them: the standard
/// streams' first in a STDIO region (a crash-safe file holds them in the
/// order they were made), those never read or written left out.
pub(crate) fn kept_records(mut recs: Vec<Record>, m: usize, names: &NameTable) -> impl Iterator<Item = Record> + '_ {
    if m == STDIO {
        darshan_log::names::std_streams_first(&mut recs, |r| r.id);
    }
    recs.into_iter().filter(move |r| !is_unused_std_stream(r, names))
}

fn is_unused_std_stream(r: &Record, names: &NameTable) -> bool {
    use darshan_log::counters::stdio as sx;
    r.module == STDIO
        && names.get(r.id).is_some_and(darshan_log::names::is_std_stream)
        && r.counters[sx::READS] == 0
        && r.counters[sx::WRITES] == 0
}

/// Give every heatmap of one source the widest width among the ranks
/// (folding pairs of bins), as readers require one width per source.
pub(crate) fn one_width(recs: &mut [Record]) {
    let mut widest: HashMap<u64, f64> = HashMap::new();
    for r in recs.iter() {
        if let Extra::Heatmap { bin_width, .. } = &r.extra {
            let w = widest.entry(r.id).or_insert(0.0);
            *w = w.max(*bin_width);
        }
    }
    for r in recs.iter_mut() {
        if let Extra::Heatmap { bin_width, write_bins, read_bins } = &mut r.extra {
            let target = widest[&r.id];
            // Only real widths are folded: a width of 0, negative or NaN
            // (a damaged log) would never reach the target. 64 foldings
            // leave at most one bin of any 64-bit count.
            if !(bin_width.is_finite() && *bin_width > 0.0 && target.is_finite()) {
                continue;
            }
            for _ in 0..64 {
                if *bin_width * 2.0 > target * 1.01 {
                    break;
                }
                for bins in [&mut *write_bins, &mut *read_bins] {
                    let folded: Vec<i64> =
                        bins.chunks(2).map(|c| c.iter().fold(0i64, |a, b| a.wrapping_add(*b))).collect();
                    *bins = folded;
                }
                *bin_width *= 2.0;
            }
            *bin_width = target;
        }
    }
}

/// Merge `paths` into the log `out`. Returns the number of records written.
/// BG/Q: the one record the runtime writes for a job (modules/bgq), with
/// or without --shared-redux: rank 0's; with more than one rank's, as the
/// job's (rank -1) with BGQ_INODES the number of distinct I/O node ids
/// the ranks' records hold.
pub(crate) fn bgq_job_record(recs: &mut Vec<Record>) {
    use darshan_log::counters::bgq::INODES;
    // Already the job's (a log, not a crash-safe file, among the inputs).
    if let Some(job) = recs.iter().position(|r| r.rank == -1) {
        *recs = vec![recs.swap_remove(job)];
        return;
    }
    let Some(first) = recs.iter().position(|r| r.rank == 0) else { return };
    if recs.len() < 2 {
        return;
    }
    let mut ids: Vec<i64> = recs.iter().filter_map(|r| r.counters.get(INODES).copied()).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut job = recs.swap_remove(first);
    job.rank = -1;
    if let Some(n) = job.counters.get_mut(INODES) {
        *n = ids.len() as i64;
    }
    *recs = vec![job];
}

/// One crash-safe file's cost: what its job record states (start-up; the
/// shutdown, if it got that far), with the `calls` its records count at
/// its per-call cost: a killed process never counted them itself.
fn process_cost(job: &darshan_log::Job, calls: u64) -> Option<darshan_log::cost::Cost> {
    darshan_log::cost::Cost::of_job(job).map(|c| c.with_calls(calls))
}

/// The calls a log's records count (`darshan_log::cost`), its unused
/// standard streams left out, read one record at a time: what a killed
/// process never counted itself.
pub(crate) fn calls_of(log: &LogFile, names: &NameTable) -> darshan_log::Result<u64> {
    let mut calls = 0u64;
    for m in log.modules_present().into_iter().filter(|&m| darshan_log::cost::counts_calls(m)) {
        if m == APMPI {
            calls = calls.saturating_add(crate::merge_apmpi::calls_of(log));
            continue;
        }
        let mut rd = log.module_reader(m)?;
        let mut r = Record::new(m);
        while rd.next_into(&mut r)? {
            if !is_unused_std_stream(&r, names) {
                calls = calls.saturating_add(darshan_log::cost::counters_calls(m, &r.counters));
            }
        }
    }
    Ok(calls)
}

/// Every input's names and cost, one input at a time.
fn names_and_costs(inputs: &[Input]) -> Result<(NameTable, Vec<darshan_log::cost::Cost>), MergeError> {
    let (mut names, mut costs) = (NameTable::new(), Vec::new());
    for i in inputs {
        let log = i.log()?;
        let t = log.names().map_err(i.err())?;
        for (id, n) in t.iter() {
            names.insert(id, n);
        }
        costs.extend(process_cost(&i.job, calls_of(&log, &t).map_err(i.err())?));
    }
    Ok((names, costs))
}

pub fn merge(paths: &[PathBuf], out: &Path, opt: &Options) -> Result<usize, MergeError> {
    if paths.is_empty() {
        return Err(MergeError::NoInput);
    }
    let inputs: Vec<Input> = paths.iter().map(|p| open(p)).collect::<Result<_, _>>()?;
    if let Some(why) = not_one_job(&inputs) {
        crate::say!("darshan-merge: note: {why}; merged as darshan-util merges any logs: the first one's job data, the earliest start and the latest end");
    }
    let (names, costs) = names_and_costs(&inputs)?;
    let (modules, left_out) = readable_only(inputs.iter().flat_map(|i| i.modules.iter().copied()).collect());
    let partial = inputs.iter().fold(0, |p, i| p | i.partial_flag);
    let job = merged_job(&inputs, opt, &costs);
    // darshan-util's: a record is shared when the job's every process had
    // it, whether the inputs are the ranks' files or one log of every
    // rank's records (DARSHAN_DISABLE_SHARED_REDUCTION).
    let nprocs = usize::try_from(job.nprocs).unwrap_or(0);
    let count = write_new_log(out, darshan_log::defaults::log_mode(opt.group_readable), |w, werr| {
        w.write_job(&job).map_err(werr)?;
        w.write_names(&names).map_err(werr)?;
        drop(names);
        let mut count = 0;
        for &m in &modules {
            count += if m == DXT_POSIX || m == DXT_MPIIO {
                write_streamed(w, werr, &inputs, m)?
            } else if m == APMPI {
                write_apmpi(w, werr, inputs.iter().map(|i| i.path.as_path()))?
            } else {
                write_gathered(w, werr, &inputs, m, opt.shared_redux.then_some(nprocs))?
            };
        }
        w.set_partial_flag(partial);
        Ok(count)
    })?;
    say_left_out(left_out);
    Ok(count)
}

/// Module ids.
pub(crate) type Modules = std::collections::BTreeSet<usize>;

/// The modules of `present` whose records the format library reads, and
/// the others (AutoPerf's APXC and APMPI, ids it does not know), which a
/// merge leaves out as darshan-util leaves out what it has no reader for
/// (AutoPerf's modules, unless built with it). They stopped the whole
/// merge ("Invalid APMPI module version number").
pub(crate) fn readable_only(present: Modules) -> (Modules, Modules) {
    present.into_iter().partition(|&m| readable(m))
}

/// Whether the format library reads module `m`'s records (AutoPerf's
/// APMPI's where the install says so; never APXC's, whose routers a job
/// writes in one log: a merge leaves them out, with its note, in a tree
/// that reads them too).
fn readable(m: usize) -> bool {
    read_version(m) > 0 || (m == APMPI && crate::installed::reads_autoperf(m))
}

/// The APMPI records of the logs at `paths`, merged
/// (crate::merge_apmpi); how many.
pub(crate) fn write_apmpi<'a>(
    w: &mut NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    paths: impl Iterator<Item = &'a Path>,
) -> Result<usize, MergeError> {
    let mut g = crate::merge_apmpi::Gathered::default();
    for path in paths {
        let log = LogFile::open(path).map_err(|e| MergeError::Unreadable { path: path.into(), source: e })?;
        g.add(&log).map_err(|e| MergeError::Log { path: path.into(), source: e })?;
    }
    let Some(m) = g.merged() else { return Ok(0) };
    m.write(w).map_err(werr)?;
    Ok(m.len())
}

/// One note naming the modules a merge left out, once its log is
/// written (a merge that fails says its one line only).
pub(crate) fn say_left_out(left_out: Modules) {
    if !left_out.is_empty() {
        let names: Vec<String> = left_out
            .iter()
            .map(|&m| if is_known(m) { module_name(m).to_string() } else { format!("id {m}") })
            .collect();
        crate::say!(
            "darshan-merge: note: the {} records are left out: this darshan-merge does not read their layout (darshan-util leaves out what it has no reader for too)",
            names.join(", ")
        );
    }
}

/// Module `m`'s records from every input (one module's at a time),
/// combined by the module's rules (`redux`: the job's process count, when
/// records every process has are reduced); how many were written.
fn write_gathered(
    w: &mut NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    inputs: &[Input],
    m: usize,
    redux: Option<usize>,
) -> Result<usize, MergeError> {
    let mut recs = Vec::new();
    for i in inputs {
        recs.extend(i.records(m)?);
    }
    if m == HEATMAP {
        one_width(&mut recs);
    } else if m == BGQ {
        bgq_job_record(&mut recs);
    } else if let Some(nprocs) = redux.filter(|&n| {
        n >= 2 && (crate::accum::supported(m) || crate::combine::combines(m) || m == LUSTRE || m == POSIX_META)
    }) {
        reduce_shared_records(m, &mut recs, nprocs);
    }
    if !recs.is_empty() {
        w.write_module(m, recs.iter()).map_err(werr)?;
    }
    Ok(recs.len())
}

/// A DXT module, whose traces are kept as they are: written as they are
/// read, one input's at a time (its traces are the largest part of a
/// log); how many were written.
fn write_streamed(
    w: &mut NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    inputs: &[Input],
    m: usize,
) -> Result<usize, MergeError> {
    let (mut failed, mut count) = (None, 0);
    let traces = OneInputAtATime::new(inputs.len(), |k| inputs[k].records(m), &mut failed);
    w.write_module(m, traces.inspect(|_| count += 1)).map_err(werr)?;
    failed.map_or(Ok(count), Err)
}

/// Records of several inputs, read one input at a time as a writer pulls
/// them: `load(k)` reads input `k`'s. A read that fails ends the records
/// and leaves its error in `failed`.
pub(crate) struct OneInputAtATime<'a, F> {
    load: F,
    next: usize,
    inputs: usize,
    current: std::vec::IntoIter<Record>,
    failed: &'a mut Option<MergeError>,
}

impl<'a, F: FnMut(usize) -> Result<Vec<Record>, MergeError>> OneInputAtATime<'a, F> {
    pub(crate) fn new(inputs: usize, load: F, failed: &'a mut Option<MergeError>) -> Self {
        OneInputAtATime { load, next: 0, inputs, current: Vec::new().into_iter(), failed }
    }
}

impl<F: FnMut(usize) -> Result<Vec<Record>, MergeError>> Iterator for OneInputAtATime<'_, F> {
    type Item = Record;

    fn next(&mut self) -> Option<Record> {
        loop {
            if let Some(r) = self.current.next() {
                return Some(r);
            }
            if self.next == self.inputs || self.failed.is_some() {
                return None;
            }
            self.next += 1;
            match (self.load)(self.next - 1) {
                Ok(v) => self.current = v.into_iter(),
                Err(e) => *self.failed = Some(e),
            }
        }
    }
}

/// Module `m`'s records of a file every one of the job's `nprocs`
/// processes holds become one shared record (rank -1), written before
/// the others as darshan-util writes them.
fn reduce_shared_records(m: usize, recs: &mut Vec<Record>, nprocs: usize) {
    let mut groups: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (k, r) in recs.iter().enumerate() {
        groups.entry(r.id).or_default().push(k);
    }
    let mut reduced = Vec::new();
    let mut drop = vec![false; recs.len()];
    // HDF5 and PnetCDF: darshan-util's pass over every record, whose
    // running variances do not stop at a file's records.
    let mut in_order = crate::combine::combines(m).then(|| crate::combine::aggregate_in_order(recs.iter()));
    for (id, idx) in groups.iter().filter(|(_, idx)| idx.len() == nprocs) {
        let group: Vec<&Record> = idx.iter().map(|&k| &recs[k]).collect();
        // LUSTRE: the first rank's layout, as darshan-util's aggregation
        // keeps it (ranks may see different ones).
        let reduced_one = if m == LUSTRE {
            group.first().map(|r| Record { rank: -1, ..(*r).clone() })
        } else if m == POSIX_META {
            posix_meta_reduced(&group)
        } else if let Some(aggs) = in_order.as_mut() {
            aggs.remove(id)
        } else {
            crate::accum::reduce_shared(&group)
        };
        if let Some(r) = reduced_one {
            reduced.push((idx[0], r));
            idx.iter().for_each(|&k| drop[k] = true);
        }
    }
    // darshan-util writes the shared records first, in the order of the
    // records they started from, then the others: a reader that sums
    // records in order (`--total`) gets the same figures.
    reduced.sort_unstable_by_key(|(first, _)| *first);
    let kept = recs.drain(..).zip(drop).filter(|(_, d)| !d).map(|(r, _)| r);
    *recs = reduced.into_iter().map(|(_, r)| r).chain(kept).collect();
}

/// The mount table's text as darshan-util writes it: `\ntype\tpath` for
/// each entry (`(type, path)`, in the order readers list them), the last
/// first, while they fit in its buffer.
pub fn mount_table_text<'a>(mounts: impl DoubleEndedIterator<Item = (&'a [u8], &'a [u8])>) -> Vec<u8> {
    let mut text = Vec::new();
    let mut left = EXE_LEN;
    for (ty, path) in mounts.rev() {
        if ty.len() + path.len() + 2 >= left {
            break;
        }
        left -= ty.len() + path.len() + 2;
        text.extend_from_slice(&[b"\n", ty, b"\t", path].concat());
    }
    text
}

/// `job`'s command line and mount table as darshan-util's darshan-merge
/// writes them back: the table as readers list it (longest mount point
/// first), written from its end ([`mount_table_text`]). Unchanged when
/// the table cannot be read.
fn exe_and_mounts_rewritten(job: &Job) -> Vec<u8> {
    let Ok(mounts) = job.mounts() else { return job.exe_mnt.clone() };
    let mut out = exe(job).to_vec();
    out.extend(mount_table_text(mounts.iter().map(|m| (&m.fs_type[..], &m.path[..]))));
    out
}

/// The job: the first input's (its mount table as darshan-util writes it
/// back), with the earliest start, the end, and without the runtime's
/// tick note (times are seconds now); the cost metadata of every
/// process merged.
fn merged_job(inputs: &[Input], opt: &Options, costs: &[darshan_log::cost::Cost]) -> darshan_log::Job {
    let mut job = inputs[0].job.clone();
    job.exe_mnt = exe_and_mounts_rewritten(&job);
    let (mut s, mut ns) = (job.start_time_sec, job.start_time_nsec);
    let (mut e, mut ens) = (0i64, 0i64);
    for i in inputs {
        let j = &i.job;
        if (j.start_time_sec, j.start_time_nsec) < (s, ns) && j.start_time_sec > 0 {
            (s, ns) = (j.start_time_sec, j.start_time_nsec);
        }
        if (j.end_time_sec, j.end_time_nsec) > (e, ens) {
            (e, ens) = (j.end_time_sec, j.end_time_nsec);
        }
    }
    if let Some(t) = opt.job_end_time {
        (e, ens) = (t, 0);
    } else if e == 0 {
        (e, ens) = inputs.iter().map(|i| i.mtime).max().unwrap_or((s, ns));
    }
    if (e, ens) < (s, ns) {
        (e, ens) = (s, ns);
    }
    (job.start_time_sec, job.start_time_nsec, job.end_time_sec, job.end_time_nsec) = (s, ns, e, ens);
    if job.nprocs <= 0 {
        job.nprocs = inputs.len() as i64;
    }
    let meta: String = String::from_utf8_lossy(&job.metadata)
        .lines()
        .filter(|l| !FILE_ONLY_METADATA.iter().any(|k| l.starts_with(k)))
        .map(|l| format!("{l}\n"))
        .collect();
    let run_secs = (e - s) as f64 + (ens - ns) as f64 / 1e9;
    job.metadata = darshan_log::cost::merged_metadata(&meta, costs, run_secs, job.nprocs).into_bytes();
    job.metadata.truncate(darshan_log::job::METADATA_LEN - 1);
    job
}

/// The log writer a merge fills.
pub type NewLogWriter = LogWriter<std::io::BufWriter<std::fs::File>>;

/// Writes the log `out` as a new file (darshan_log::safe_fs::NewFile:
/// never through a link planted at its name, never over a file already
/// there), read-only (`mode`, given on its descriptor), durable with its
/// directory entry before this returns: only then may a merge's inputs
/// be removed. `fill` writes job, names and modules; it is handed how to
/// report a write error.
pub fn write_new_log<T>(
    out: &Path,
    mode: u32,
    fill: impl FnOnce(&mut NewLogWriter, &dyn Fn(darshan_log::LogError) -> MergeError) -> Result<T, MergeError>,
) -> Result<T, MergeError> {
    let (new, file) = darshan_log::safe_fs::NewFile::create(out).map_err(|e| MergeError::Io {
        what: "cannot create",
        path: out.to_path_buf(),
        source: e,
    })?;
    let tmp = new.temp_path();
    let werr = |e: darshan_log::LogError| MergeError::Write { path: tmp.clone(), source: e };
    let mut w = LogWriter::new(std::io::BufWriter::new(file), Compression::Zlib).map_err(werr)?;
    let done = fill(&mut w, &werr)?;
    let f = w.finish().map_err(werr)?;
    let f =
        f.into_inner().map_err(|e| MergeError::Io { what: "writing", path: tmp.clone(), source: e.into_error() })?;
    new.publish(f, mode).map_err(|e| MergeError::Io { what: "cannot publish", path: out.to_path_buf(), source: e })?;
    Ok(done)
}

/// Ranks' POSIX_META records of one path as one rank -1 record, by the
/// rules the runtime's MPI reduction uses (`counters::posix_meta`).
fn posix_meta_reduced(group: &[&Record]) -> Option<Record> {
    use darshan_log::counters::posix_meta::{Combine, F_COMBINE};
    let (first, rest) = group.split_first()?;
    let mut out = Record { rank: -1, ..(*first).clone() };
    for r in rest {
        for (a, b) in out.counters.iter_mut().zip(&r.counters) {
            *a = a.wrapping_add(*b);
        }
        for ((a, b), how) in out.fcounters.iter_mut().zip(&r.fcounters).zip(F_COMBINE) {
            *a = match how {
                Combine::MinNonzero if *a == 0.0 || (*b < *a && *b > 0.0) => *b,
                Combine::MinNonzero => *a,
                Combine::Max => a.max(*b),
                Combine::Sum => *a + *b,
            };
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::counters::posix_meta as c;

    /// Inputs read as the writer pulls them, in order, each once; a read
    /// that fails ends the records (no later input is read) and is kept.
    #[test]
    fn records_of_one_input_at_a_time_stop_at_the_first_that_cannot_be_read() {
        let read = std::cell::RefCell::new(Vec::new());
        let load = |k: usize| {
            read.borrow_mut().push(k);
            match k {
                1 => Err(MergeError::NoInput),
                _ => {
                    Ok((0..k + 2).map(|i| Record { rank: k as i64, id: i as u64, ..Record::new(DXT_POSIX) }).collect())
                }
            }
        };
        let mut failed = None;
        let got: Vec<(i64, u64)> = OneInputAtATime::new(3, load, &mut failed).map(|r| (r.rank, r.id)).collect();
        assert_eq!(got, [(0, 0), (0, 1)]);
        assert!(matches!(failed, Some(MergeError::NoInput)));
        assert_eq!(*read.borrow(), [0, 1], "input 2 never read");
        let mut failed = None;
        let all = OneInputAtATime::new(3, |k| Ok(vec![Record::new(DXT_POSIX); k]), &mut failed).count();
        assert_eq!((all, failed.is_none()), (3, true), "0 + 1 + 2 records, an empty input passed over");
    }

    fn rec(rank: i64, entries: i64, start: f64, end: f64, time: f64, max: f64) -> Record {
        let mut r = Record::new(POSIX_META);
        r.id = 7;
        r.rank = rank;
        r.counters = vec![0; c::NUM_INDICES];
        r.counters[c::DIR_ENTRIES] = entries;
        r.counters[c::OPENDIRS] = 1;
        r.fcounters = vec![0.0; c::F_NUM_INDICES];
        r.fcounters[c::F_START_TIMESTAMP] = start;
        r.fcounters[c::F_END_TIMESTAMP] = end;
        r.fcounters[c::F_TIME] = time;
        r.fcounters[c::F_MAX_TIME] = max;
        r
    }

    /// darshan-merge --shared-redux combines ranks' POSIX_META records of
    /// a path as the runtime's MPI reduction does: counts and time add
    /// up, the first start, the last end, the slowest call.
    #[test]
    fn posix_meta_records_of_every_rank_combine_as_the_runtime_combines_them() {
        let (a, b, z) = (rec(0, 6, 2.0, 3.0, 0.5, 0.25), rec(1, 6, 1.5, 4.0, 0.75, 0.5), rec(2, 6, 0.0, 0.0, 0.0, 0.0));
        let r = posix_meta_reduced(&[&a, &b, &z]).unwrap();
        assert_eq!((r.rank, r.counters[c::OPENDIRS], r.counters[c::DIR_ENTRIES]), (-1, 3, 18));
        assert_eq!(r.fcounters, vec![1.5, 4.0, 1.25, 0.5], "a rank with no call does not make the start 0");
    }
}
