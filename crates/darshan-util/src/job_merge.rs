//! `darshan-merge --job`: the per-process logs of one job without MPI
//! (Slurm tasks, torchrun workers, their forked children, killed ones'
//! crash-safe files) made into the job's log, as an MPI job writes it:
//! nprocs the job's size, each record under its process's rank (the
//! records of one rank's several processes combined), the records every
//! rank has reduced to rank -1 by the runtime's own MPI reduction
//! (`darshan_log::reduce`, the modules' own rules), times relative to
//! the job's start.
//!
//! Phases: `plan` (which job, its ranks, size and start, from the job
//! records alone), then one module at a time `gather` (its records from
//! every input, shifted to the job's clock), combine and reduce (the
//! modules with reduction rules as flat words, job_words.rs; heat maps
//! and LUSTRE as records, `combine_ranks`), and write; DXT is written as
//! it is read, one input at a time (job_dxt.rs). Memory holds one
//! module's records (DXT's: one input's), and no input stays open
//! between modules.

use darshan_log::cost::Cost;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use darshan_log::modules::*;
use darshan_log::record::Extra;
use darshan_log::{Job, LogFile, NameTable, Record};

use crate::job_inputs::ProcessLog;
use crate::job_words::{combine_and_reduce, Flat};
use crate::merge::MergeError;

#[derive(Default)]
pub struct JobOptions {
    /// End time to record (seconds since the epoch), else the inputs'.
    pub job_end_time: Option<i64>,
    /// The job log 0440 (crate::merge::Options::group_readable).
    pub group_readable: bool,
}

/// What the merge made.
#[derive(Debug, Default)]
pub struct JobMerged {
    pub processes: usize,
    pub nprocs: i64,
    pub records: usize,
    pub shared: usize,
}

/// The job's plan: its processes sorted by rank then start, its size,
/// start and end.
struct Plan {
    procs: Vec<ProcessLog>,
    /// The processes' logs said nothing of their ranks: one rank each,
    /// in start order (crate::job_inputs::ranks_by_start).
    ranks_by_start: bool,
    nprocs: i64,
    start_ns: i128,
    end_ns: i128,
}

fn plan(mut procs: Vec<ProcessLog>, opt: &JobOptions) -> Result<Plan, MergeError> {
    if procs.is_empty() {
        return Err(MergeError::NoInput);
    }
    let ranks_by_start = crate::job_inputs::ranks_by_start(&mut procs);
    procs.sort_by(crate::job_inputs::process_order);
    let top = procs.iter().map(|p| if p.mpi { p.job.nprocs.saturating_sub(1) } else { p.rank }).max().unwrap_or(0);
    let said = procs.iter().filter_map(|p| p.size).max().unwrap_or(0);
    let nprocs = said.max(top.saturating_add(1));
    let start_ns = procs.iter().map(|p| p.start_ns).min().unwrap_or(0);
    let mut end_ns = procs.iter().map(|p| p.end_ns).max().unwrap_or(start_ns);
    if let Some(t) = opt.job_end_time {
        end_ns = i128::from(t) * 1_000_000_000;
    }
    Ok(Plan { procs, ranks_by_start, nprocs, start_ns, end_ns: end_ns.max(start_ns) })
}

impl Plan {
    /// Two processes of one rank (a launcher's forked workers): the
    /// processes are sorted by rank, so they are neighbours.
    fn ranks_shared(&self) -> bool {
        self.procs.windows(2).any(|w| w[0].rank == w[1].rank)
    }
}

/// Seconds from the job's start to this process's.
fn shift_of(p: &ProcessLog, plan: &Plan) -> f64 {
    (p.start_ns - plan.start_ns) as f64 / 1e9
}

/// A module's time-stamp fcounters (moved to the job's clock).
fn timestamp_fcounters(module: usize) -> Vec<usize> {
    let (_, f) = counter_names(module);
    f.iter().enumerate().filter(|(_, n)| n.contains("TIMESTAMP")).map(|(k, _)| k).collect()
}

/// Every input's records of `module`, under their process's rank, their
/// times on the job's clock, one input at a time.
fn gather(plan: &Plan, module: usize, sink: &mut dyn FnMut(Record)) -> Result<(), MergeError> {
    let stamps = timestamp_fcounters(module);
    for p in &plan.procs {
        process_records(plan, p, module, &stamps)?.into_iter().for_each(&mut *sink);
    }
    Ok(())
}

/// One input's records of `module` (`stamps`: its time-stamp fcounters),
/// under its process's rank, their times on the job's clock.
fn process_records(plan: &Plan, p: &ProcessLog, module: usize, stamps: &[usize]) -> Result<Vec<Record>, MergeError> {
    let log = LogFile::open(&p.path).map_err(|e| MergeError::Unreadable { path: p.path.clone(), source: e })?;
    if !log.modules_present().contains(&module) {
        return Ok(Vec::new());
    }
    let shift = shift_of(p, plan);
    let mut out = crate::merge::kept_module_records(&log, module)
        .map_err(|e| MergeError::Log { path: p.path.clone(), source: e })?;
    for r in out.iter_mut() {
        if !p.mpi {
            r.rank = p.rank;
        }
        for &k in stamps {
            if let Some(v) = r.fcounters.get_mut(k) {
                if *v > 0.0 {
                    *v += shift;
                }
            }
        }
        if let Extra::Dxt { writes, reads, .. } = &mut r.extra {
            for s in writes.iter_mut().chain(reads.iter_mut()) {
                s.start_time += shift;
                s.end_time += shift;
            }
        }
        if let Extra::Heatmap { bin_width, write_bins, read_bins } = &mut r.extra {
            shift_bins(*bin_width, shift, write_bins, read_bins);
        }
    }
    Ok(out)
}

/// The most leading empty bins a heat map is given to move it to the
/// job's clock: start times come from the logs, and 10,000 logs each
/// told to shift by a year must not make 10,000 huge vectors. A process
/// that started later than this many of its bins after the job is drawn
/// that far in (its bytes are all kept).
const MAX_SHIFT_BINS: usize = 1024;

/// A heat map starts at its process's start: leading empty bins put it
/// on the job's clock.
fn shift_bins(width: f64, shift: f64, w: &mut Vec<i64>, r: &mut Vec<i64>) {
    if !(width > 0.0 && shift > 0.0 && width.is_finite() && shift.is_finite()) {
        return;
    }
    let k = ((shift / width).floor() as usize).min(MAX_SHIFT_BINS);
    for bins in [w, r] {
        bins.splice(0..0, std::iter::repeat_n(0, k));
    }
}

/// Records of one (rank, id) from several processes as one (the modules
/// without reduction rules but DXT's, job_dxt.rs: heat maps added, else
/// the first process's).
fn combine_ranks(recs: Vec<Record>) -> Vec<Record> {
    let mut order: Vec<(i64, u64)> = Vec::new();
    let mut groups: HashMap<(i64, u64), Vec<Record>> = HashMap::new();
    for r in recs {
        let k = (r.rank, r.id);
        let g = groups.entry(k).or_default();
        if g.is_empty() {
            order.push(k);
        }
        g.push(r);
    }
    order
        .into_iter()
        .filter_map(|k| {
            let mut g = groups.remove(&k)?;
            if g.len() == 1 {
                return g.pop();
            }
            match &g[0].extra {
                Extra::Heatmap { .. } => Some(add_heatmaps(g)),
                // LUSTRE, BG/Q and the rest: the first process's.
                _ => g.into_iter().next(),
            }
        })
        .collect()
}

/// Bins of one width (already made so) added, the longest length kept.
fn add_heatmaps(g: Vec<Record>) -> Record {
    let mut it = g.into_iter();
    let mut first = it.next().expect("a group is never empty");
    if let Extra::Heatmap { write_bins, read_bins, .. } = &mut first.extra {
        for r in it {
            if let Extra::Heatmap { write_bins: w, read_bins: rd, .. } = r.extra {
                for (acc, add) in [(&mut *write_bins, w), (&mut *read_bins, rd)] {
                    if acc.len() < add.len() {
                        acc.resize(add.len(), 0);
                    }
                    acc.iter_mut().zip(add).for_each(|(a, b)| *a = a.wrapping_add(b));
                }
            }
        }
    }
    first
}

/// Every heat map of one source the same length (the runtime's ranks
/// agree on one bin count; readers lay the ranks' bins side by side).
fn same_length(recs: &mut [Record]) {
    let mut longest: HashMap<u64, usize> = HashMap::new();
    for r in recs.iter() {
        if let Extra::Heatmap { write_bins, read_bins, .. } = &r.extra {
            let l = longest.entry(r.id).or_default();
            *l = (*l).max(write_bins.len()).max(read_bins.len());
        }
    }
    for r in recs.iter_mut() {
        if let Extra::Heatmap { write_bins, read_bins, .. } = &mut r.extra {
            write_bins.resize(longest[&r.id], 0);
            read_bins.resize(longest[&r.id], 0);
        }
    }
}

/// LUSTRE: a layout every rank has becomes rank 0's, as rank -1 (what the
/// runtime's LUSTRE module writes).
fn reduce_lustre(recs: &mut Vec<Record>, nprocs: i64) -> usize {
    let mut ranks_of: HashMap<u64, BTreeSet<i64>> = HashMap::new();
    for r in recs.iter() {
        ranks_of.entry(r.id).or_default().insert(r.rank);
    }
    let shared: BTreeSet<u64> =
        ranks_of.into_iter().filter(|(_, s)| s.len() as i64 == nprocs).map(|(id, _)| id).collect();
    recs.retain(|r| !shared.contains(&r.id) || r.rank == 0);
    for r in recs.iter_mut().filter(|r| shared.contains(&r.id)) {
        r.rank = -1;
    }
    shared.len()
}

/// The job record: the first process's (lowest rank, earliest start),
/// with the job's size and times, and the job's lines in place of the
/// process's own (`job_rank`, `rank_env`, `ppid`, `fork_parent`, `ticks`).
fn job_record(plan: &Plan, key: &str, costs: &[Cost]) -> Job {
    let mut job = plan.procs[0].job.clone();
    job.nprocs = plan.nprocs;
    let (s, e) = (plan.start_ns, plan.end_ns);
    job.start_time_sec = s.div_euclid(1_000_000_000) as i64;
    job.start_time_nsec = s.rem_euclid(1_000_000_000) as i64;
    job.end_time_sec = e.div_euclid(1_000_000_000) as i64;
    job.end_time_nsec = e.rem_euclid(1_000_000_000) as i64;
    let per_process = ["job_rank=", "rank_env=", "ppid=", "fork_parent=", "job_key=", "job_size="]
        .into_iter()
        .chain(darshan_log::crash_safe::FILE_ONLY_METADATA);
    let meta = String::from_utf8_lossy(&job.metadata).into_owned();
    let mut m: String =
        meta.lines().filter(|l| !per_process.clone().any(|p| l.starts_with(p))).map(|l| format!("{l}\n")).collect();
    m.push_str(&format!("job_key={key}\njob_size={}\njob_processes={}\n", plan.nprocs, plan.procs.len()));
    if plan.ranks_by_start {
        // Said, so that a reader knows the ranks are not the launcher's.
        m.push_str("job_ranks=start_order\n");
    }
    // The job's cost: every process's, of every process's run time.
    let run_secs = (e - s) as f64 / 1e9;
    job.metadata = darshan_log::cost::merged_metadata(&m, costs, run_secs, plan.procs.len() as i64).into_bytes();
    job.metadata.truncate(darshan_log::job::METADATA_LEN - 1);
    job
}

/// What a process's log says it cost. A crash-safe file's calls are
/// counted here from its records (a killed process never counted them),
/// at the per-call cost it measured.
fn process_cost(p: &ProcessLog, log: &LogFile) -> Result<Option<Cost>, MergeError> {
    let Some(c) = Cost::of_job(&p.job) else { return Ok(None) };
    if !p.crash_safe {
        return Ok(Some(c));
    }
    let err = |e| MergeError::Log { path: p.path.clone(), source: e };
    let names = log.names().map_err(err)?;
    Ok(Some(c.with_calls(crate::merge::calls_of(log, &names).map_err(err)?)))
}

/// Merge the logs of one job (`procs`, all of key `key`) into `out`.
pub fn merge_job(procs: Vec<ProcessLog>, key: &str, out: &Path, opt: &JobOptions) -> Result<JobMerged, MergeError> {
    let plan = plan(procs, opt)?;
    // The names (written before any record) and which modules there are:
    // every input's job region and name table, read once.
    let mut names = NameTable::new();
    let mut modules = BTreeSet::new();
    let mut partial = 0u64;
    let mut costs = Vec::new();
    for p in &plan.procs {
        let log = LogFile::open(&p.path).map_err(|e| MergeError::Unreadable { path: p.path.clone(), source: e })?;
        partial |= log.header.partial_flag;
        modules.extend(log.modules_present());
        let t = log.names().map_err(|e| MergeError::Log { path: p.path.clone(), source: e })?;
        for (id, n) in t.iter() {
            names.insert(id, n);
        }
        costs.extend(process_cost(p, &log)?);
    }
    let (modules, left_out) = crate::merge::readable_only(modules);
    let mut done = JobMerged { processes: plan.procs.len(), nprocs: plan.nprocs, ..Default::default() };
    crate::merge::write_new_log(out, darshan_log::defaults::log_mode(opt.group_readable), |w, werr| {
        w.write_job(&job_record(&plan, key, &costs)).map_err(werr)?;
        w.write_names(&names).map_err(werr)?;
        drop(names);
        write_modules(w, werr, &plan, &modules, &mut done)?;
        w.set_partial_flag(partial);
        Ok(())
    })?;
    crate::merge::say_left_out(left_out);
    Ok(done)
}

/// One module at a time: its records from every input, combined,
/// reduced, written, dropped.
fn write_modules(
    w: &mut crate::merge::NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    plan: &Plan,
    modules: &BTreeSet<usize>,
    done: &mut JobMerged,
) -> Result<(), MergeError> {
    // The job's processes (more than one): a region of their own, at its
    // id among the modules (written in id order).
    let mut modules = modules.clone();
    if plan.procs.len() > 1 {
        modules.insert(PROCESSES);
    }
    for &m in &modules {
        if m == PROCESSES {
            let clock = crate::job_processes::Clock {
                start_ns: plan.start_ns,
                run_secs: (plan.end_ns - plan.start_ns) as f64 / 1e9,
            };
            let recs = crate::job_processes::records(&plan.procs, plan.ranks_by_start, &clock)?;
            done.records += recs.len();
            w.write_module(m, recs.iter()).map_err(werr)?;
        } else if m == DXT_POSIX || m == DXT_MPIIO {
            let stamps = timestamp_fcounters(m);
            let read = |k: usize| process_records(plan, &plan.procs[k], m, &stamps);
            let inputs = (plan.procs.len(), plan.ranks_shared());
            done.records += crate::job_dxt::write(w, werr, m, inputs, &read)?;
        } else if m == APMPI {
            done.records += crate::merge::write_apmpi(w, werr, plan.procs.iter().map(|p| p.path.as_path()))?;
        } else if let Some(rules) = darshan_log::reduce::rules_of(m) {
            write_reduced(w, werr, plan, m, rules, done)?;
        } else {
            write_combined(w, werr, plan, m, done)?;
        }
    }
    Ok(())
}

/// A fixed-layout module with reduction rules: its records as flat
/// words, combined per file and reduced over the ranks (a record of
/// another length is kept as it is).
fn write_reduced(
    w: &mut crate::merge::NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    plan: &Plan,
    m: usize,
    rules: &dyn darshan_log::reduce::Reducer,
    done: &mut JobMerged,
) -> Result<(), MergeError> {
    let mut flat: Option<Flat> = None;
    let mut odd = Vec::new();
    gather(plan, m, &mut |r| {
        let f = flat.get_or_insert_with(|| Flat::new(&r));
        if !f.push(&r) {
            odd.push(r);
        }
    })?;
    let Some(flat) = flat else { return Ok(()) };
    let (flat, shared) = combine_and_reduce(flat, rules, plan.nprocs);
    done.shared += shared;
    done.records += flat.len() + odd.len();
    w.write_module(m, flat.records().chain(odd)).map_err(werr)
}

/// Any other module: its ranks' records of each file combined, with the
/// module's own rules (heat map widths, BG/Q's one job record, Lustre's
/// layouts).
fn write_combined(
    w: &mut crate::merge::NewLogWriter,
    werr: &dyn Fn(darshan_log::LogError) -> MergeError,
    plan: &Plan,
    m: usize,
    done: &mut JobMerged,
) -> Result<(), MergeError> {
    let mut recs = Vec::new();
    gather(plan, m, &mut |r| recs.push(r))?;
    if m == HEATMAP {
        crate::merge::one_width(&mut recs);
    }
    let mut recs = combine_ranks(recs);
    if m == HEATMAP {
        same_length(&mut recs);
    }
    if m == BGQ {
        crate::merge::bgq_job_record(&mut recs);
    } else if m == LUSTRE {
        done.shared += reduce_lustre(&mut recs, plan.nprocs);
    }
    done.records += recs.len();
    if !recs.is_empty() {
        w.write_module(m, recs.iter()).map_err(werr)?;
    }
    Ok(())
}

/// The job log's name: `<user>_<exe>_id<jobid>_<key>_job.darshan` from
/// the first process's log name and the key.
pub fn job_log_name(first: &Path, job: &Job, key: &str) -> PathBuf {
    let base = first.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = match base.find(&format!("_id{}", job.jobid)) {
        Some(k) => base[..k].to_string(),
        None => "job".into(),
    };
    let key: String =
        key.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
    PathBuf::from(format!("{stem}_id{}_{key}_job.darshan", job.jobid))
}
