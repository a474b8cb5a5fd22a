//! darshan-run: run a command under the runtime (LD_PRELOAD, non-MPI mode,
//! a log directory), then say where the log is and what the command did.
//!
//! usage: darshan-run [--log-dir DIR] [--lib PATH] [--quiet] [--] command [args...]
//!        darshan-run --summary LOG...   (options parsed by clap: `Opts`)
#![forbid(unsafe_code)]

mod job;
mod rest;
mod summary;

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::Context;
use clap::Parser;

use darshan_util::cli;
use darshan_util::visible::{visible, visible_bytes};

/// darshan-run's options. The command is everything after the options
/// (or after `--`): its own options are never taken for ours.
#[derive(Parser)]
#[command(
    name = "darshan-run",
    version,
    about = "Run a command under the Darshan runtime, then say where its log is and what its I/O did",
    long_about = "Runs the command with libdarshan.so preloaded (DARSHAN_ENABLE_NONMPI=1), writes its \
                  Darshan log to the log directory, then prints the log's path and a summary of the \
                  command's I/O on stderr.",
    after_help = "Exit status: the command's own. With --summary: 0 when every log was read, 1 when some \
                  could not be (each is named, with why), 2 for a usage error or a missing file; 141 when \
                  the output's reader went away."
)]
struct Opts {
    /// Where the log goes (default: $DARSHAN_LOGPATH, else ./darshan-logs).
    #[arg(long, value_name = "DIR", env = "DARSHAN_LOGPATH", default_value = "darshan-logs", hide_env_values = true)]
    log_dir: PathBuf,
    /// The runtime library (default: $DARSHAN_RS_LIB, else the
    /// libdarshan.so installed with this program).
    #[arg(long, value_name = "PATH")]
    lib: Option<PathBuf>,
    /// Print nothing; only run the command and write its log.
    #[arg(short, long)]
    quiet: bool,
    /// Keep each process's log beside the job log (by default, when the
    /// command ran more than one process, their logs are merged into one
    /// job log and removed).
    #[arg(long)]
    keep_process_logs: bool,
    /// Seconds to wait, once the command has exited, for the processes it
    /// left running (a JVM shutting down, a script's background job)
    /// before merging the job log; their I/O after that is not in it.
    #[arg(long, value_name = "SECS", default_value_t = 60)]
    wait: u64,
    /// Compare the run with the command's earlier runs in this
    /// darshan-ingest database (as darshan-summary --history).
    #[arg(long, value_name = "DB", conflicts_with = "quiet")]
    history: Option<PathBuf>,
    /// What makes an earlier run the same application's: exe, command or
    /// meta:NAME (darshan-summary --help).
    #[arg(long, value_name = "KEY", default_value = "exe", requires = "history")]
    history_key: darshan_history::Key,
    /// Summarize logs already written instead of running a command.
    #[arg(long, value_name = "LOG", num_args = 1.., conflicts_with_all = ["command", "quiet", "lib", "keep_process_logs", "wait"])]
    summary: Vec<PathBuf>,
    /// The command and its arguments.
    #[arg(value_name = "COMMAND", trailing_var_arg = true, num_args = 1.., required_unless_present = "summary")]
    command: Vec<OsString>,
}

/// libdarshan.so: --lib, $DARSHAN_RS_LIB, next to this executable, or in
/// ../lib from it.
fn find_lib(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(p) = explicit {
        return p.canonicalize().with_context(|| format!("library {}", p.display()));
    }
    if let Some(p) = std::env::var_os("DARSHAN_RS_LIB") {
        return PathBuf::from(&p).canonicalize().with_context(|| format!("DARSHAN_RS_LIB {}", p.to_string_lossy()));
    }
    let exe = std::env::current_exe().context("cannot find my own path")?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for c in [dir.join("libdarshan.so"), dir.join("../lib/libdarshan.so"), dir.join("../libdarshan.so")] {
        if c.exists() {
            return c.canonicalize().with_context(|| c.display().to_string());
        }
    }
    anyhow::bail!("libdarshan.so not found next to {} (use --lib)", exe.display())
}

fn run(o: Opts) -> anyhow::Result<ExitCode> {
    let lib = find_lib(o.lib.as_deref())?;
    std::fs::create_dir_all(&o.log_dir).with_context(|| format!("log directory {}", o.log_dir.display()))?;
    let log_dir = o.log_dir.canonicalize().with_context(|| format!("log directory {}", o.log_dir.display()))?;
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(old) if !old.is_empty() => format!("{}:{old}", lib.display()),
        _ => lib.display().to_string(),
    };
    let before = summary::logs_in(&log_dir);
    let started = std::time::SystemTime::now();
    // The command's orphaned descendants come back to us (rest.rs).
    rest::become_reaper();
    // Every process the command makes (pipeline members, children) says
    // it belongs to this run: their logs merge into one job log.
    let since_epoch = started.duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let key = format!("run-{}-{}", std::process::id(), since_epoch.as_nanos());
    let mut child = Command::new(&o.command[0])
        .args(&o.command[1..])
        .env("LD_PRELOAD", preload)
        .env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_JOB_KEY", &key)
        .env("DARSHAN_LOGPATH", &log_dir)
        .spawn()
        .with_context(|| format!("cannot run {}", visible_bytes(o.command[0].as_encoded_bytes())))?;
    let pid = child.id();
    let status = child.wait().context("waiting for the command")?;
    let left = rest::wait_for_rest(std::time::Duration::from_secs(o.wait), o.quiet, cli::say);
    if !left.is_empty() && !o.quiet {
        cli::say(&format!(
            "darshan-run: still running after {} s: {}; the job log holds their I/O as far as their crash-safe files do",
            o.wait,
            left.join(", ")
        ));
    }
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    let logs: Vec<PathBuf> = summary::logs_in(&log_dir).into_iter().filter(|l| !before.contains(l)).collect();
    let killed = job::crash_safe_files_since(started);
    let job = job::make_job_log(&log_dir, &logs, &killed, &key);
    if !o.quiet {
        // The command's own status is what darshan-run returns, even
        // when one of its logs cannot be read (that is said above).
        let args: Vec<String> = o.command[1..].iter().map(|a| a.to_string_lossy().into_owned()).collect();
        let run = summary::Run { args: &args, started };
        let job_log = job.as_ref().ok().and_then(|j| j.as_deref());
        cli::stderr(&summary::report(&logs, pid, Some(&run), job_log).0);
        if let Some(db) = &o.history {
            history(db, &o.history_key, job_log.or(logs.first().map(PathBuf::as_path)));
        }
    }
    match job {
        Ok(Some(_)) if !o.keep_process_logs => job::remove(&logs, &killed, &key),
        Ok(_) => {}
        Err(e) => cli::say(&format!("darshan-run: no job log: {}", visible(&cli::error_line(e.as_ref())))),
    }
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}

/// The run (its job log, or its one log) against its earlier runs.
fn history(db: &Path, key: &darshan_history::Key, log: Option<&Path>) {
    let Some(log) = log else {
        cli::say("darshan-run: history: the command wrote no log to compare");
        return;
    };
    let opts = darshan_history::Options { db: db.to_path_buf(), key: key.clone(), runs: darshan_history::DEFAULT_RUNS };
    match darshan_history::compare(log, &opts) {
        Ok(h) => {
            let mut o = String::new();
            darshan_report::render::text::history(&mut o, &h);
            cli::stderr(&o);
        }
        Err(e) => cli::say(&format!("darshan-run: history: {}", visible(&e))),
    }
}

/// `--summary`: 0 when every log was read, 1 when some could not be
/// (each named with why), 2 for missing files.
fn summarize(logs: &[PathBuf]) -> ExitCode {
    if let Some(bad) = logs.iter().find(|l| !l.is_file()) {
        cli::say(&format!("darshan-run: no such log: {}", visible_bytes(bad.as_os_str().as_encoded_bytes())));
        return ExitCode::from(2);
    }
    let (text, unreadable) = summary::report(logs, 0, None, None);
    cli::stderr(&text);
    ExitCode::from(if unreadable > 0 { 1 } else { 0 })
}

fn main() -> ExitCode {
    cli::one_line_panics("darshan-run");
    let opts = Opts::parse();
    if !opts.summary.is_empty() {
        return summarize(&opts.summary);
    }
    match run(opts) {
        Ok(c) => c,
        Err(e) => {
            cli::say(&format!("darshan-run: {}", visible(&cli::error_line(e.as_ref()))));
            ExitCode::from(2)
        }
    }
}
