//! The shutdown pipeline of a non-MPI process: finalize every module,
//! compress the names and module regions, pick the log name and open its
//! (unnamed) file, then build and compress the job record, which states
//! the shutdown's cost so far; the log (header, job, names, modules) is
//! written in one call and given its name when complete.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::time::Instant;

use darshan_log::cost::Cost;
use darshan_log::Job;

use crate::contract::module::FinalizeCtx;
use crate::finish::logname::{self, NameParts};
use crate::finish::pipeline::{self, ShutdownError};
use crate::finish::timing::{timed, Timing};
use crate::runtime;

/// The library version written as `lib_ver`: the Darshan release whose
/// log format and semantics we reproduce.
pub const LIB_VER: &str = "3.5.0";

pub struct Outcome {
    /// The log written (an MPI job's rank 0 only).
    pub path: String,
    /// What it took: C Darshan's ops, and our split (`split`: modules'
    /// finalize, the reduction of shared records (MPI), compressing every
    /// region (with building the job record and, without MPI, naming the
    /// log and opening its file), writing the file).
    pub timing: Timing,
    /// Records this process wrote, and records reduced across ranks.
    pub records: usize,
    pub shared: usize,
}

/// The counts written in the job's metadata when not zero: calls made
/// from signal handlers while the runtime was recording (not recorded),
/// then each module's own (`Module::metadata_counts`), in registry order.
pub(crate) fn metadata_counts(modules: &[&'static dyn crate::contract::module::Module]) -> Vec<(&'static str, u64)> {
    let mut v = vec![("lost_calls", runtime::core().lost_calls())];
    for m in modules {
        v.extend(m.metadata_counts());
    }
    v
}

/// The job record; `counts`: see [`metadata_counts`] (every rank's, in
/// an MPI job).
/// `mpi`: the log is an MPI job's; else the process's place in a job
/// without MPI is said (crate::launcher: rank, size, key, parent).
/// `cost`: the runtime's own (every rank's, in an MPI job), said right
/// after the hints so that a long metadata's truncation never drops it.
pub(crate) fn job_record(
    start: (i64, i64),
    end: (i64, i64),
    nprocs: i64,
    jobid: i64,
    counts: &[(&'static str, u64)],
    mpi: bool,
    cost: &Cost,
) -> Option<Job> {
    let sh = runtime::core().shared()?;
    let t = runtime::core().times();
    let mut metadata = format!("lib_ver={LIB_VER}\nh={}\n", sh.config.log_hints).into_bytes();
    let secs = |(s, ns): (i64, i64)| s as f64 + ns as f64 / 1e9;
    metadata.extend_from_slice(cost.lines(secs(end) - secs(start), nprocs).as_bytes());
    if t.fork_parent != 0 {
        metadata.extend_from_slice(format!("fork_parent={}\n", t.fork_parent).as_bytes());
    }
    if !mpi {
        metadata.extend_from_slice(sh.config.launch.metadata(t.ppid).as_bytes());
    }
    for (key, n) in counts.iter().filter(|(_, n)| *n != 0) {
        metadata.extend_from_slice(format!("{key}={n}\n").as_bytes());
    }
    metadata.truncate(darshan_log::job::METADATA_LEN - 1);
    Some(Job {
        uid: sh.platform.euid(),
        start_time_sec: start.0,
        start_time_nsec: start.1,
        end_time_sec: end.0,
        end_time_nsec: end.1,
        nprocs,
        jobid,
        metadata,
        exe_mnt: crate::counting::mounts::exe_mnt_string(&sh.cmdline, &sh.mounts),
    })
}

/// The job id of this run: the batch system's (DARSHAN_JOBID names the
/// variable) or `pid`.
pub(crate) fn job_id(cfg: &crate::config::Config, pid: i64) -> i64 {
    logname::job_id(&|n: &str| std::env::var(n).ok(), cfg.jobid_env.as_deref(), pid)
}

/// Write the job record into the crash-safe file (if there is one): the
/// start, the job id, `nprocs`, `end` (0 while running), the cost so far
/// (its calls are counted from the records when the file is merged) and,
/// while the time counters are still clock ticks, how long a tick is.
pub fn map_job(end: (i64, i64), nprocs: i64, ticks: Option<f64>, mpi: bool, cost: &Cost) {
    if !crate::store::logmap::reserved() {
        return;
    }
    let Some(sh) = runtime::core().shared() else { return };
    let t = runtime::core().times();
    let jobid = job_id(&sh.config, t.first_pid);
    let counts = metadata_counts(&runtime::core().modules());
    if let Some(mut job) = job_record(t.start, end, nprocs, jobid, &counts, mpi, cost) {
        if let Some(s) = ticks {
            // The process, for a live reader to tell a running process's
            // file from a killed one's (docs/live.md); the final log has
            // neither line.
            job.metadata.extend_from_slice(format!("ticks={s:e}\npid={}\n", t.pid).as_bytes());
            job.metadata.truncate(darshan_log::job::METADATA_LEN - 1);
        }
        crate::store::logmap::set_job(&job.encode());
    }
}

/// The crash-safe file's name: `<dir>/<user>_<exe>_id<jobid>_mmap-log-
/// <logmod>-<rank>.darshan` (docs/log-format.md §10), `logmod` a hash of the host
/// name and the time (rank 0's in an MPI job).
pub fn mmap_path(cfg: &crate::config::Config, cmdline: &str, pid: i64, rank: i64, logmod: u64) -> String {
    let jobid = job_id(cfg, pid);
    let euid = runtime::core().shared().map_or(0, |s| s.platform.euid());
    let user = logname::user_name(&|n: &str| std::env::var_os(n), cfg.username_env.as_deref(), euid);
    format!("{}/{user}_{}_id{jobid}_mmap-log-{logmod}-{rank}.darshan", cfg.mmap_log_path, logname::exe_short(cmdline))
}

/// The directory a log will be written under, as `log_paths` picks it:
/// DARSHAN_LOGFILE's directory, the flat DARSHAN_LOGPATH, or LOGPATH
/// itself (the root of the dated tree: the day's directory is only known
/// from the local time zone, and reading that at start-up sets up a
/// thread-local that is gone by the time the log is written at exit);
/// None when no log path is set.
pub fn log_root(cfg: &crate::config::Config) -> Option<String> {
    if let Some(f) = &cfg.log_file {
        return Some(dir_of(f));
    }
    cfg.log_path_flat.clone().or_else(|| cfg.log_path_dated.clone())
}

/// Where the log goes: (temporary path, final path).
pub(crate) fn log_paths(jobid: i64, start_sec: i64) -> Result<(String, String), ShutdownError> {
    let sh = runtime::core().shared().ok_or(ShutdownError::NotInitialised)?;
    let cfg = &sh.config;
    let t = runtime::core().times();
    if let Some(f) = &cfg.log_file {
        return Ok((format!("{f}.darshan_partial.{}", t.pid), f.clone()));
    }
    // Once: with TZ set, finding the zone asks the file system.
    let start = logname::local(start_sec);
    let dir = match (&cfg.log_path_flat, &cfg.log_path_dated) {
        (Some(d), _) => d.clone(),
        (None, Some(d)) => logname::dated_dir(d, start),
        (None, None) => return Err(ShutdownError::NoLogPath),
    };
    let user = logname::user_name(&|n: &str| std::env::var_os(n), cfg.username_env.as_deref(), sh.platform.euid());
    let (now_s, now_ns) = sh.platform.realtime();
    let usec = (now_s as u64).wrapping_mul(1_000_000).wrapping_add(now_ns as u64 / 1000);
    let host = sh.platform.hostname();
    let parts = NameParts {
        user: &user,
        exe: &logname::exe_short(&sh.cmdline),
        jobid,
        pid: t.pid,
        start,
        rand: darshan_log::hash::hash_with_level(host.as_bytes(), usec),
    };
    let mut base = format!("{dir}/{}", logname::base_name(&parts));
    if base.len() + 32 >= crate::counting::paths::PATH_MAX {
        base = format!("{dir}/id{jobid}");
    }
    Ok((format!("{base}.darshan_partial"), base))
}

/// Finalize the modules and write the log. Runs once, with the wrappers
/// passing calls through (the caller has set the state).
pub fn write_log(secs_per_tick: f64, end: (i64, i64), end_tick: i64) -> Result<Outcome, ShutdownError> {
    let sh = runtime::core().shared().ok_or(ShutdownError::NotInitialised)?;
    // Before any allocation, and while the crash-safe file says ticks.
    crate::finish::memory::enough()?;
    let t0 = Instant::now();
    let mut timing = Timing::new(sh.config.internal_timing);
    runtime::core().cost.settle(secs_per_tick);
    let modules = runtime::core().modules();
    let ctx = FinalizeCtx::one_process(secs_per_tick, end_tick);
    pipeline::finalize(&modules, &ctx, &mut timing.modules);
    let finalize_s = t0.elapsed().as_secs_f64();
    let t = runtime::core().times();
    let jobid = job_id(&sh.config, t.first_pid);
    let t1 = Instant::now();
    let names = pipeline::names_of_records(&runtime::core().ledger.names_copy(), &modules, &Default::default());
    let mut regions = pipeline::compress_regions(&names, &modules, &mut timing.modules);
    // The log's name and its file before the job record, so that the
    // shutdown it states includes them (a short process's exit is mostly
    // naming and writing its log).
    let paths = log_paths(jobid, t.start.0);
    let (unnamed, open_s) =
        timed(|| paths.as_ref().ok().and_then(|(tmp, _)| sh.platform.open_unnamed(&dir_of(tmp), sh.config.log_mode())));
    // The job record last: it says what the shutdown cost so far.
    let t_job = Instant::now();
    let cost = runtime::core().cost.cost(regions.calls, t0.elapsed());
    let job = job_record(t.start, end, 1, jobid, &metadata_counts(&modules), false, &cost)
        .ok_or(ShutdownError::NotInitialised)?;
    // The crash-safe file now holds seconds: its job record says so (the
    // final one, without `ticks=`), whether or not a log can be written.
    let job_bytes = job.encode();
    crate::store::logmap::set_job(&job_bytes);
    regions.set_job(Some(&job_bytes));
    let job_s = t_job.elapsed().as_secs_f64();
    let compress_s = t1.elapsed().as_secs_f64();
    let (tmp, final_base) = paths?;

    // The whole log is assembled in memory and written in one call.
    let t2 = Instant::now();
    let bytes = assemble(&regions, &tmp)?;
    // The log is written and renamed before the crash-safe file is removed
    // (Darshan removes it first), so no kill can lose both. With
    // DARSHAN_LOG_FSYNC=1 it is also on disk first (a node crash); not by
    // default, as in Darshan: it costs milliseconds on a local disk and far
    // more on a parallel file system, at every process's exit.
    let durable = sh.config.log_fsync && crate::store::logmap::has_file();
    // With an unnamed file the name is fixed before the write.
    let path = final_name(&sh.config, &final_base, compress_s + t2.elapsed().as_secs_f64());
    let to = Published { tmp: &tmp, path: &path, mode: sh.config.log_mode() };
    let write_s = write_and_publish(unnamed, &bytes, durable, to, t2)?;
    crate::store::logmap::remove();
    (timing.log_open, timing.job, timing.names) = (open_s, job_s, regions.names_s);
    (timing.write_log, timing.active, timing.all) =
        (t2.elapsed().as_secs_f64(), regions.active(), t0.elapsed().as_secs_f64());
    timing.split = [finalize_s, 0.0, compress_s, write_s];
    Ok(Outcome { path, timing, records: regions.records, shared: 0 })
}

/// Where a log goes: its temporary name, its final one and its mode.
struct Published<'a> {
    tmp: &'a str,
    path: &'a str,
    mode: u32,
}

/// The log's bytes written into the unnamed file and linked as `path`,
/// or (no unnamed file) into `tmp`, renamed to `path`. The seconds since
/// `t2` once the bytes are written.
fn write_and_publish(
    unnamed: Option<Box<dyn crate::store::platform::UnnamedLog>>,
    bytes: &[u8],
    durable: bool,
    to: Published,
    t2: Instant,
) -> Result<f64, ShutdownError> {
    let Published { tmp, path, mode } = to;
    let linked = match unnamed {
        Some(file) => {
            file.publish(bytes, durable, path).map_err(|e| ShutdownError::Write { path: path.into(), source: e })?
        }
        None => false,
    };
    let write_s = t2.elapsed().as_secs_f64();
    if !linked {
        write_new_file(tmp, bytes, durable)?;
        publish(tmp, path, mode, durable).map_err(|e| ShutdownError::Rename { to: path.into(), source: e })?;
    } else if durable {
        sync_dir(path);
    }
    Ok(write_s)
}

/// The directory a file `path` goes in (`.` for a bare name).
fn dir_of(path: &str) -> String {
    let dir = std::path::Path::new(path).parent().map(|p| p.display().to_string()).unwrap_or_default();
    if dir.is_empty() {
        ".".to_string()
    } else {
        dir
    }
}

/// One process's whole log in memory: header, regions, extension trailer;
/// refused (as a write to `tmp`) past the program's `ulimit -f`, where
/// writing it would bring the program SIGXFSZ at its exit.
fn assemble(regions: &pipeline::Regions, tmp: &str) -> Result<Vec<u8>, ShutdownError> {
    let sizes = regions.sizes();
    let (header, _) = pipeline::layout(&sizes, &regions.module_ids(), runtime::core().ledger.partial_flags());
    let mut bytes = header.encode();
    let trailer = darshan_log::extension::encode_trailer(&header);
    bytes.reserve(sizes.iter().sum::<u64>() as usize + trailer.len());
    regions.in_order().for_each(|r| bytes.extend_from_slice(r));
    bytes.extend_from_slice(&trailer);
    crate::store::fsize::fits(bytes.len() as u64).map_err(|e| ShutdownError::Write { path: tmp.into(), source: e })?;
    Ok(bytes)
}

/// The log's final name: DARSHAN_LOGFILE as given, else the base name
/// and how long compressing and writing took (whole seconds, plus one),
/// as Darshan names it. Shared by both shutdowns.
pub(crate) fn final_name(cfg: &crate::config::Config, base: &str, secs: f64) -> String {
    if cfg.log_file.is_some() {
        base.to_string()
    } else {
        format!("{base}_{}.darshan", secs as i64 + 1)
    }
}

/// A written log under its final name, read-only (`mode`: 0400, or 0440
/// with group-readable logs, as Darshan's: a chmod after the rename,
/// whatever the umask), and with `durable` the rename on disk. Shared by
/// both shutdowns.
pub(crate) fn publish(tmp: &str, path: &str, mode: u32, durable: bool) -> std::io::Result<()> {
    std::fs::rename(tmp, path)?;
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode));
    if durable {
        sync_dir(path);
    }
    Ok(())
}

/// Make `path` (mode 0400, never an existing file) holding `bytes`. A
/// truncated log helps nobody: on failure it is removed (what can be
/// recovered is in the crash-safe file, see recovery_hint).
fn write_new_file(path: &str, bytes: &[u8], durable: bool) -> Result<(), ShutdownError> {
    let mut file = crate::store::nofile::with_descriptor(|| {
        OpenOptions::new().write(true).create_new(true).mode(0o400).open(path)
    })
    .map_err(|e| ShutdownError::Create { path: path.into(), source: e })?;
    let written = file.write_all(bytes).and_then(|_| if durable { file.sync_all() } else { Ok(()) });
    written.map_err(|e| {
        let _ = std::fs::remove_file(path);
        ShutdownError::Write { path: path.into(), source: e }
    })
}

/// After a failed log write, where the records are and how to get the log
/// back, if the process has a crash-safe file: said without allocating
/// (the failure may be that memory ran out).
pub struct Recovery;

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::store::logmap::with_path(|p| {
            write!(f, "the records are kept in {p}; recover the log with: darshan-merge --output <log>.darshan {p}")
        })
        .unwrap_or(Ok(()))
    }
}

pub fn recovery_hint() -> Option<Recovery> {
    crate::store::logmap::with_path(|_| Recovery)
}

/// The same for an MPI job (rank 0 says it once for every rank): the
/// crash-safe files of all ranks, merged by job id.
pub fn recovery_hint_mpi() -> Option<RecoveryMpi> {
    let cfg = runtime::core().config()?;
    if !cfg.mmap_logs || !crate::store::logmap::has_file() {
        return None;
    }
    let t = runtime::core().times();
    Some(RecoveryMpi { jobid: job_id(cfg, t.first_pid), dir: &cfg.mmap_log_path })
}

/// The MPI job's recovery line, said without allocating.
pub struct RecoveryMpi {
    jobid: i64,
    dir: &'static str,
}

impl std::fmt::Display for RecoveryMpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (dir, jobid) = (self.dir, self.jobid);
        write!(
            f,
            "every rank's records are kept in {dir}/*_id{jobid}_mmap-log-*.darshan on its node; recover the job's log with: darshan-merge --shared-redux --dir {dir} --jobid {jobid} --output <log>.darshan (or run darshan-mmap-epilog {jobid} on each node)"
        )
    }
}

/// Make a rename durable: fsync the directory holding `path`.
pub(crate) fn sync_dir(path: &str) {
    if let Ok(d) = std::fs::File::open(dir_of(path)) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::dir_of;

    /// A bare `DARSHAN_LOGFILE` name's directory is the working directory:
    /// the log's unnamed file, its root and the fsync after the rename
    /// must all name the same one.
    #[test]
    fn a_bare_name_lies_in_the_working_directory() {
        assert_eq!(dir_of("job.darshan"), ".");
        assert_eq!(dir_of("logs/job.darshan"), "logs");
        assert_eq!(dir_of("/var/log/darshan/job.darshan"), "/var/log/darshan");
    }
}
