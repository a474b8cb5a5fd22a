//! darshan-merge: one log from the crash-safe files of a job that did not
//! finish (see darshan_util::merge).
#![forbid(unsafe_code)]

use std::path::PathBuf;

use darshan_util::getopt::{getopt_long, Found, LongOpt};
use darshan_util::job_inputs::{find_logs, first_process, group_by_job, one_per_process};
use darshan_util::job_merge::{job_log_name, merge_job, JobOptions};
use darshan_util::merge::{find_job_files, merge, Options};
use darshan_util::visible::{visible, visible_bytes};

#[derive(Default)]
struct JobArgs {
    on: bool,
    key: Option<String>,
    out_dir: Option<PathBuf>,
    remove: bool,
}

fn shown(p: &std::path::Path) -> String {
    visible_bytes(p.as_os_str().as_encoded_bytes()).into_owned()
}

type Jobs = std::collections::BTreeMap<String, Vec<darshan_util::job_inputs::ProcessLog>>;

/// `--job`: the inputs grouped by job; one job log per job (into
/// `--output` when there is one job, or `--output-dir`). Exit status.
fn merge_jobs(inputs: &[PathBuf], out: Option<PathBuf>, a: JobArgs, opt: &Options) -> i32 {
    if inputs.is_empty() || out.is_some() == a.out_dir.is_some() {
        usage();
    }
    let logs = find_logs(inputs);
    let (jobs, mut leftovers) = jobs_to_merge(&logs, a.key.as_deref());
    if jobs.is_empty() {
        darshan_util::say!(
            "darshan-merge: no log of {} among {} file(s)",
            a.key.as_deref().map_or("any job".into(), |k| format!("job {k:?}")),
            logs.len()
        );
        return 1;
    }
    if out.is_some() && jobs.len() > 1 {
        let keys: Vec<String> = jobs.keys().take(5).map(|k| visible(k).into_owned()).collect();
        darshan_util::say!(
            "darshan-merge: the inputs hold {} jobs ({}{}): choose one with --job-key, or use --output-dir",
            jobs.len(),
            keys.join(", "),
            if jobs.len() > 5 { ", ..." } else { "" }
        );
        return 1;
    }
    let mut status = 0;
    for (key, procs) in jobs {
        let mut paths: Vec<PathBuf> = procs.iter().map(|p| p.path.clone()).collect();
        paths.extend(leftovers.remove(&key).unwrap_or_default());
        let target = match (&out, &a.out_dir) {
            (Some(o), _) => o.clone(),
            (None, Some(d)) => {
                let first = first_process(&procs).expect("a job has a process");
                d.join(job_log_name(&first.path, &first.job, &key))
            }
            (None, None) => unreachable!("checked above"),
        };
        let job_opt = JobOptions { job_end_time: opt.job_end_time, group_readable: opt.group_readable };
        if !merge_one_job(procs, &key, &target, &job_opt) {
            status = 1;
        } else if a.remove {
            for p in paths.iter().filter(|p| **p != target) {
                if let Err(e) = std::fs::remove_file(p) {
                    darshan_util::say!("darshan-merge: cannot remove {}: {e}", shown(p));
                }
            }
        }
    }
    status
}

/// The jobs among `logs` (the one keyed `key`, if given), each with one
/// log per process; and per job the crash-safe files left over beside a
/// process's log (removed with the inputs under --remove-inputs).
fn jobs_to_merge(logs: &[PathBuf], key: Option<&str>) -> (Jobs, std::collections::BTreeMap<String, Vec<PathBuf>>) {
    let (mut jobs, bad) = group_by_job(logs);
    for (p, e) in &bad {
        darshan_util::say!("darshan-merge: {} skipped: {e}", shown(p));
    }
    if let Some(k) = key {
        jobs.retain(|key, _| key == k);
    }
    // MPI jobs' logs (their shutdown merged them) and job logs stay as
    // they are, and are never removed.
    for procs in jobs.values_mut() {
        procs.retain(|p| {
            if !p.is_process_log() {
                let why = if p.mpi { "an MPI job's log" } else { "already a job log" };
                darshan_util::say!("darshan-merge: {} left out: {why}", shown(&p.path));
            }
            p.is_process_log()
        });
    }
    jobs.retain(|_, procs| !procs.is_empty());
    // One process, one count: a process's log and its crash-safe file
    // (killed around its exit), a recovered log, a copy: the most
    // complete is merged; a left-over crash-safe file goes with the
    // inputs under --remove-inputs, a copy of a log stays.
    let mut leftovers = std::collections::BTreeMap::new();
    for (key, procs) in jobs.iter_mut() {
        let (kept, dropped) = one_per_process(std::mem::take(procs));
        for (p, standing) in dropped {
            darshan_util::say!("darshan-merge: {} left out: the same process as {}", shown(&p.path), shown(&standing));
            if p.crash_safe {
                leftovers.entry(key.clone()).or_insert_with(Vec::new).push(p.path);
            }
        }
        *procs = kept;
    }
    (jobs, leftovers)
}

/// One job's log at `target`, said on stderr; false if it failed.
fn merge_one_job(
    procs: Vec<darshan_util::job_inputs::ProcessLog>,
    key: &str,
    target: &std::path::Path,
    opt: &JobOptions,
) -> bool {
    match merge_job(procs, key, target, opt) {
        Ok(m) => {
            darshan_util::say!(
                "darshan-merge: job {}: {} logs, nprocs {}, {} records ({} shared) -> {}",
                visible(key),
                m.processes,
                m.nprocs,
                m.records,
                m.shared,
                shown(target)
            );
            true
        }
        Err(e) => {
            darshan_util::say!("darshan-merge: job {}: {}", visible(key), visible(&e.to_string()));
            false
        }
    }
}

fn usage() -> ! {
    darshan_util::say!("Usage: darshan-merge [options] <infile1> <infile2> ...");
    darshan_util::say!("       darshan-merge [options] --dir <directory> --jobid <id>");
    darshan_util::say!("       Merges Darshan logs (a job's crash-safe files) into a single log.");
    darshan_util::say!("       --output <file>         Output log (required).");
    darshan_util::say!("       --shared-redux          Reduce the records every rank has into one record.");
    darshan_util::say!("       --job-end-time <secs>   Job end time (seconds since the epoch) to record.");
    darshan_util::say!("       --dir <d> --jobid <id>  Take every crash-safe log of job <id> found in <d>.");
    darshan_util::say!("       --group-readable        The log readable by its owner's group too (0440).");
    darshan_util::say!("       darshan-merge --job [options] <log or directory> ...");
    darshan_util::say!("       Merges the per-process logs of a job without MPI (and its killed");
    darshan_util::say!("       processes' crash-safe files) into the job's log: ranks from the");
    darshan_util::say!("       launcher, records every rank has reduced as an MPI job's are.");
    darshan_util::say!("       --output <file>         The job log (one job among the inputs).");
    darshan_util::say!("       --output-dir <dir>      One job log per job found, named after it.");
    darshan_util::say!("       --job-key <key>         Only the job of this key (job_key= in the logs).");
    darshan_util::say!("       --remove-inputs         Remove the per-process logs once the job log is durable.");
    std::process::exit(1);
}

/// darshan-merge 3.5.0's options, and ours (--dir, --jobid, --job...,
/// --group-readable).
const OPTS: &[LongOpt] = &[
    LongOpt { name: "output", takes_value: true },
    LongOpt { name: "shared-redux", takes_value: false },
    LongOpt { name: "job-end-time", takes_value: true },
    LongOpt { name: "version", takes_value: false },
    LongOpt { name: "help", takes_value: false },
    LongOpt { name: "dir", takes_value: true },
    LongOpt { name: "jobid", takes_value: true },
    LongOpt { name: "job", takes_value: false },
    LongOpt { name: "job-key", takes_value: true },
    LongOpt { name: "output-dir", takes_value: true },
    LongOpt { name: "remove-inputs", takes_value: false },
    LongOpt { name: "group-readable", takes_value: false },
];

/// The command line, parsed.
struct Args {
    out: Option<String>,
    opt: Options,
    dir: Option<String>,
    jobid: Option<String>,
    job: JobArgs,
    files: Vec<PathBuf>,
}

fn main() {
    darshan_util::cli::one_line_panics("darshan-merge");
    let Args { out, opt, dir, jobid, job, files } = parse_args();
    if job.on {
        std::process::exit(merge_jobs(&files, out.map(PathBuf::from), job, &opt));
    }
    let Some(out) = out else { usage() };
    let files = inputs(files, dir, jobid);
    match merge(&files, out.as_ref(), &opt) {
        Ok(n) => darshan_util::say!("darshan-merge: {} logs, {n} records -> {out}", files.len()),
        Err(e) => {
            darshan_util::say!("darshan-merge: {e}");
            std::process::exit(1);
        }
    }
}

/// The options and operands (the usage, and exit, on a bad one).
fn parse_args() -> Args {
    let args: Vec<String> = std::env::args().collect();
    let exe = args.first().cloned().unwrap_or_else(|| "darshan-merge".into());
    let mut a =
        Args { out: None, opt: Options::default(), dir: None, jobid: None, job: JobArgs::default(), files: Vec::new() };
    let parsed = getopt_long(&exe, args.get(1..).unwrap_or_default(), OPTS);
    for f in parsed.found {
        match f {
            Found::Opt("output", v) => a.out = v,
            Found::Opt("shared-redux", _) => a.opt.shared_redux = true,
            Found::Opt("group-readable", _) => a.opt.group_readable = true,
            Found::Opt("job-end-time", Some(v)) => {
                a.opt.job_end_time = Some(v.parse().unwrap_or_else(|_| {
                    darshan_util::say!("darshan-merge: --job-end-time expects seconds since the epoch, got {v:?}");
                    std::process::exit(1)
                }));
            }
            Found::Opt("dir", v) => a.dir = v,
            Found::Opt("jobid", v) => a.jobid = v,
            Found::Opt("job", _) => a.job.on = true,
            Found::Opt("job-key", v) => a.job.key = v,
            Found::Opt("output-dir", v) => a.job.out_dir = v.map(PathBuf::from),
            Found::Opt("remove-inputs", _) => a.job.remove = true,
            Found::Opt("version", _) => {
                darshan_util::outln!("{}", darshan_util::DARSHAN_VERSION);
                std::process::exit(0);
            }
            Found::Bad(msg) => {
                darshan_util::say!("{msg}");
                usage()
            }
            _ => usage(),
        }
    }
    a.files = parsed.operands.iter().map(PathBuf::from).collect();
    a
}

/// The logs to merge: `files`, and with --dir and --jobid the job's files
/// found there; what is not a regular file is left out (exit 1 when
/// nothing is left).
fn inputs(mut files: Vec<PathBuf>, dir: Option<String>, jobid: Option<String>) -> Vec<PathBuf> {
    match (dir, jobid) {
        (Some(d), Some(j)) => match find_job_files(d.as_ref(), &j) {
            Ok(v) => files.extend(v),
            Err(e) => {
                darshan_util::say!("darshan-merge: {e}");
                std::process::exit(1);
            }
        },
        (None, None) => {}
        _ => usage(),
    }
    if files.is_empty() {
        usage();
    }
    // What is not a regular file (a FIFO or device in a log's place, a
    // link another user owns) is skipped with one line, not waited on.
    files.retain(|f| match darshan_log::safe_fs::open_input(f) {
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            darshan_util::say!("darshan-merge: {} skipped: {e}", shown(f));
            false
        }
        _ => true,
    });
    if files.is_empty() {
        darshan_util::say!("darshan-merge: no input log left to merge");
        std::process::exit(1);
    }
    files
}
