//! Phase 1b: jobs without MPI are one job, not one per process. The
//! runtime's per-process logs of a job (those whose metadata has `ppid=`
//! and a `job_key=`; docs/runtime.md "Jobs without MPI") are ingested as
//! the job's log that `darshan-merge --job` makes of them, once:
//!
//! - when the job log is among the logs found (or already in the
//!   database), its processes' logs are only marked seen;
//! - otherwise their job log is made (in a temporary directory, by the
//!   same library as `darshan-merge --job`) and ingested in their place.
//!
//! So the study's job-size tables count such a job once, at its size,
//! whether or not it was merged before. Processes of one job that arrive
//! in different runs of the ingest are grouped within each run only.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use darshan_util::job_inputs::{first_process, one_per_process, ProcessLog};
use darshan_util::job_merge::{job_log_name, merge_job, JobOptions};

/// What to do with the logs found.
#[derive(Debug, Default)]
pub struct Grouped {
    /// Ingest these as they are (every other log, and the job logs made).
    pub ingest: Vec<PathBuf>,
    /// Per-process logs a job log stands for: marked seen, not ingested.
    pub absorbed: Vec<PathBuf>,
    /// Job logs that could not be made, with why (their processes are
    /// then ingested one by one).
    pub problems: Vec<(String, String)>,
}

fn meta_value(job: &darshan_log::Job, key: &str) -> Option<String> {
    job.metadata_pairs()
        .into_iter()
        .find(|(k, _)| *k == key.as_bytes())
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
}

/// A per-process log of a job without MPI (ours, with a job key).
fn is_process_log(p: &ProcessLog) -> bool {
    p.is_process_log() && p.ppid.is_some() && meta_value(&p.job, "job_key").is_some()
}

/// Sort `paths` into logs to ingest and per-process logs a job log
/// stands for; the job logs made go in `tmp`. `known_jobs`: job keys
/// whose job log the database already holds.
pub fn group(paths: Vec<PathBuf>, known_jobs: &HashSet<String>, tmp: &Path) -> Grouped {
    let mut out = Grouped::default();
    let mut by_key: BTreeMap<String, Vec<ProcessLog>> = BTreeMap::new();
    let mut job_logs: HashSet<String> = known_jobs.clone();
    for p in paths {
        match ProcessLog::read(&p) {
            Ok(l) if is_process_log(&l) => by_key.entry(l.key.clone()).or_default().push(l),
            Ok(l) => {
                if l.job_log {
                    job_logs.insert(l.key.clone());
                }
                out.ingest.push(p);
            }
            // Unreadable here: the ingest proper says why.
            Err(_) => out.ingest.push(p),
        }
    }
    for (key, procs) in by_key {
        // One process, one count (its log and a crash-safe file left by a
        // kill around its exit, a recovered log, a copy): the others are
        // marked seen with it.
        let (procs, dropped) = one_per_process(procs);
        out.absorbed.extend(dropped.into_iter().map(|(p, _)| p.path));
        if job_logs.contains(&key) {
            out.absorbed.extend(procs.into_iter().map(|p| p.path));
            continue;
        }
        if procs.len() < 2 {
            out.ingest.extend(procs.into_iter().map(|p| p.path));
            continue;
        }
        let Some(first) = first_process(&procs) else { continue };
        let target = tmp.join(job_log_name(&first.path, &first.job, &key));
        let paths: Vec<PathBuf> = procs.iter().map(|p| p.path.clone()).collect();
        match merge_job(procs, &key, &target, &JobOptions::default()) {
            Ok(_) => {
                out.ingest.push(target);
                out.absorbed.extend(paths);
            }
            Err(e) => {
                out.problems.push((key, e.to_string()));
                out.ingest.extend(paths);
            }
        }
    }
    out.ingest.sort();
    out
}

/// Job keys of the job logs a database holds (from the `jobs` table's
/// metadata column).
pub fn known_job_keys(metadata: impl Iterator<Item = String>) -> HashSet<String> {
    metadata
        .filter(|m| m.lines().any(|l| l.starts_with("job_processes=")))
        .filter_map(|m| m.lines().find_map(|l| l.strip_prefix("job_key=").map(str::to_string)))
        .collect()
}
