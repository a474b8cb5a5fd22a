//! The job log of a command that ran several processes: their logs (and
//! the crash-safe files of members that were killed) merged with
//! `darshan-merge --job`'s library into one log in the log directory.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context;
use darshan_util::job_inputs::{first_process, group_by_job};
use darshan_util::job_merge::{job_log_name, merge_job, JobOptions};

/// Crash-safe files made since `start` in the runtime's crash-safe
/// directory (`DARSHAN_MMAP_LOGPATH`, else /tmp): a member killed before
/// it could write its log left one. Which of them are this run's is
/// decided by their job key.
pub fn crash_safe_files_since(start: SystemTime) -> Vec<PathBuf> {
    let dir = std::env::var_os("DARSHAN_MMAP_LOGPATH").map(PathBuf::from).unwrap_or_else(|| "/tmp".into());
    let Ok(rd) = std::fs::read_dir(&dir) else { return Vec::new() };
    rd.flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.contains("_mmap-log-") && n.ends_with(".darshan")
        })
        .filter(|e| e.metadata().ok().and_then(|m| m.modified().ok()).is_some_and(|t| t >= start))
        .map(|e| e.path())
        .collect()
}

/// The job log, when the run made more than one log: Ok(None) for one.
pub fn make_job_log(dir: &Path, logs: &[PathBuf], killed: &[PathBuf], key: &str) -> anyhow::Result<Option<PathBuf>> {
    let inputs: Vec<PathBuf> = logs.iter().chain(killed).cloned().collect();
    let (mut jobs, _) = group_by_job(&inputs);
    let Some(mut procs) = jobs.remove(key) else { return Ok(None) };
    procs.retain(|p| p.is_process_log());
    if procs.len() < 2 {
        return Ok(None);
    }
    let first = first_process(&procs).context("no process")?;
    let out = dir.join(job_log_name(&first.path, &first.job, key));
    merge_job(procs, key, &out, &JobOptions::default()).context("merging the processes' logs")?;
    Ok(Some(out))
}

/// The per-process logs once the job log holds them (only this run's:
/// a log of another key stays).
pub fn remove(logs: &[PathBuf], killed: &[PathBuf], key: &str) {
    let inputs: Vec<PathBuf> = logs.iter().chain(killed).cloned().collect();
    let (jobs, _) = group_by_job(&inputs);
    for p in jobs.get(key).into_iter().flatten().filter(|p| p.is_process_log()) {
        let _ = std::fs::remove_file(&p.path);
    }
}
