//! darshan-run: run a command under the runtime (LD_PRELOAD, non-MPI mode,
//! a log directory), then say where the log is and what the command did.
//!
//! usage: darshan-run [--log-dir DIR] [--lib PATH] [--quiet] [--] command [args...]
//!        darshan-run --summary LOG...
#![forbid(unsafe_code)]

mod summary;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use darshan_util::cli;
use darshan_util::visible::{visible, visible_bytes};

const USAGE: &str = "usage: darshan-run [--log-dir DIR] [--lib PATH] [--quiet] [--] command [args...]
       darshan-run --summary LOG...      (the same summary of logs already written)

Runs the command with libdarshan.so preloaded (DARSHAN_ENABLE_NONMPI=1),
writes its Darshan log to DIR (default: $DARSHAN_LOGPATH, else ./darshan-logs),
then prints the log's path and a summary of the command's I/O on stderr.
Exits with the command's exit status. With --summary: 0 when every log
was read, 1 when some could not be (each is named, with why), 2 for a
usage error or a missing file; 141 when the output's reader went away.";

struct Opts {
    log_dir: PathBuf,
    lib: Option<PathBuf>,
    quiet: bool,
    cmd: Vec<String>,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        log_dir: std::env::var_os("DARSHAN_LOGPATH").map(PathBuf::from).unwrap_or_else(|| "darshan-logs".into()),
        lib: None,
        quiet: false,
        cmd: Vec::new(),
    };
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--" => {
                o.cmd = args[i + 1..].to_vec();
                break;
            }
            "--log-dir" | "--lib" => {
                let v = args.get(i + 1).ok_or(format!("{} needs a value", args[i]))?;
                if args[i] == "--lib" {
                    o.lib = Some(v.into());
                } else {
                    o.log_dir = v.into();
                }
                i += 2;
            }
            "--quiet" | "-q" => {
                o.quiet = true;
                i += 1;
            }
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            _ => {
                o.cmd = args[i..].to_vec();
                break;
            }
        }
    }
    if o.cmd.is_empty() {
        return Err("no command given".into());
    }
    Ok(o)
}

/// libdarshan.so: --lib, $DARSHAN_RS_LIB, next to this executable, or in
/// ../lib from it.
fn find_lib(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return p.canonicalize().map_err(|e| format!("library {}: {e}", p.display()));
    }
    if let Some(p) = std::env::var_os("DARSHAN_RS_LIB") {
        return PathBuf::from(&p).canonicalize().map_err(|e| format!("DARSHAN_RS_LIB {}: {e}", p.to_string_lossy()));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    for c in [dir.join("libdarshan.so"), dir.join("../lib/libdarshan.so"), dir.join("../libdarshan.so")] {
        if c.exists() {
            return c.canonicalize().map_err(|e| e.to_string());
        }
    }
    Err(format!("libdarshan.so not found next to {} (use --lib)", exe.display()))
}

fn run(o: Opts) -> Result<ExitCode, String> {
    let lib = find_lib(o.lib.as_deref())?;
    std::fs::create_dir_all(&o.log_dir).map_err(|e| format!("log directory {}: {e}", o.log_dir.display()))?;
    let log_dir = o.log_dir.canonicalize().map_err(|e| e.to_string())?;
    let preload = match std::env::var("LD_PRELOAD") {
        Ok(old) if !old.is_empty() => format!("{}:{old}", lib.display()),
        _ => lib.display().to_string(),
    };
    let before = summary::logs_in(&log_dir);
    let started = std::time::SystemTime::now();
    let mut child = Command::new(&o.cmd[0])
        .args(&o.cmd[1..])
        .env("LD_PRELOAD", preload)
        .env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", &log_dir)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", o.cmd[0]))?;
    let pid = child.id();
    let status = child.wait().map_err(|e| e.to_string())?;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    if !o.quiet {
        let logs: Vec<PathBuf> = summary::logs_in(&log_dir).into_iter().filter(|l| !before.contains(l)).collect();
        // The command's own status is what darshan-run returns, even
        // when one of its logs cannot be read (that is said above).
        cli::stderr(&summary::report(&logs, pid, Some(&summary::Run { args: &o.cmd[1..], started })).0);
    }
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}

/// `--summary`: 0 when every log was read, 1 when some could not be
/// (each named with why), 2 for usage errors and missing files.
fn summarize(logs: &[PathBuf]) -> ExitCode {
    if logs.is_empty() {
        cli::say(USAGE);
        return ExitCode::from(2);
    }
    if let Some(bad) = logs.iter().find(|l| !l.is_file()) {
        cli::say(&format!("darshan-run: no such log: {}", visible_bytes(bad.as_os_str().as_encoded_bytes())));
        return ExitCode::from(2);
    }
    let (text, unreadable) = summary::report(logs, 0, None);
    cli::stderr(&text);
    ExitCode::from(if unreadable > 0 { 1 } else { 0 })
}

fn main() -> ExitCode {
    cli::one_line_panics("darshan-run");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--summary") {
        let logs: Vec<PathBuf> = args[1..].iter().map(PathBuf::from).collect();
        return summarize(&logs);
    }
    let opts = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                cli::say(&format!("darshan-run: {e}"));
            }
            cli::say(USAGE);
            return ExitCode::from(if e.is_empty() { 0 } else { 2 });
        }
    };
    match run(opts) {
        Ok(c) => c,
        Err(e) => {
            cli::say(&format!("darshan-run: {}", visible(&e)));
            ExitCode::from(2)
        }
    }
}
