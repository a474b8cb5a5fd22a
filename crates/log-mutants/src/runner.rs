//! One tool on one input, as a user's shell would run it but fenced in:
//! an address-space limit (an allocation the limit refuses aborts the
//! tool, which shows here as a signal), a wall-clock limit (the whole
//! process group is killed), its peak memory measured by GNU time, its
//! standard error kept to be judged.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::tools::Tool;

/// Limits every run is held to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub address_space: u64,
    pub timeout: Duration,
}

/// What one run did.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub peak_kib: u64,
    pub seconds: f64,
    pub stderr: String,
}

/// Why a run fails the harness, if it does.
pub fn verdict(tool: &Tool, o: &Outcome, size: u64) -> Option<String> {
    if o.timed_out {
        return Some(format!("timeout after {:.1} s", o.seconds));
    }
    if let Some(s) = o.signal {
        return Some(format!("killed by signal {s}: {}", first_line(&o.stderr)));
    }
    if o.stderr.contains("panicked at") || o.stderr.contains("internal error:") || o.stderr.contains("stack backtrace")
    {
        return Some(format!("panic: {}", first_line(&o.stderr)));
    }
    let code = o.code.unwrap_or(-1);
    if !tool.ok_codes.contains(&code) {
        return Some(format!("exit status {code} (documented: {:?}): {}", tool.ok_codes, first_line(&o.stderr)));
    }
    if tool.one_line_errors && code != 0 && o.stderr.trim_end().lines().count() != 1 {
        return Some(format!("error not one line: {:?}", o.stderr.chars().take(300).collect::<String>()));
    }
    if o.peak_kib > tool.limit_kib(size) {
        return Some(format!("peak memory {} KiB over its bound {} KiB", o.peak_kib, tool.limit_kib(size)));
    }
    None
}

fn first_line(s: &str) -> String {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(200).collect()
}

/// The child's status, waited for until `timeout` after `t0`; past it,
/// its process group is killed (the tool, not only GNU time), and the
/// second value is true.
fn wait_or_kill_group(child: &mut std::process::Child, t0: Instant, timeout: Duration) -> (Option<ExitStatus>, bool) {
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return (Some(st), false),
            Ok(None) if t0.elapsed() > timeout => {
                let _ = Command::new("kill").args(["-s", "KILL", "--"]).arg(format!("-{}", child.id())).status();
                return (child.wait().ok(), true);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => return (None, false),
        }
    }
}

/// Run `tool` on `input` with its scratch output at `scratch`.
pub fn run(bin: &Path, tool: &Tool, input: &Path, scratch: &Path, limits: Limits) -> Outcome {
    let time_out: PathBuf = scratch.with_extension("time");
    let err_out: PathBuf = scratch.with_extension("stderr");
    let t0 = Instant::now();
    let spawned = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&time_out)
        .arg("prlimit")
        .arg(format!("--as={}", limits.address_space))
        .arg("--core=0")
        .arg("--")
        .arg(bin.join(tool.exe))
        .args(tool.argv(input, scratch))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err_out).map(Stdio::from).unwrap_or(Stdio::null()))
        // Its own process group, so a timeout kills the tool, not just time.
        .process_group(0)
        .env("RUST_BACKTRACE", "1")
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return Outcome {
                code: None,
                signal: None,
                timed_out: false,
                peak_kib: 0,
                seconds: 0.0,
                stderr: format!("harness: cannot run /usr/bin/time: {e}"),
            }
        }
    };
    let (status, timed_out) = wait_or_kill_group(&mut child, t0, limits.timeout);
    let seconds = t0.elapsed().as_secs_f64();
    let time_text = std::fs::read_to_string(&time_out).unwrap_or_default();
    let stderr = std::fs::read(&err_out).map(|b| String::from_utf8_lossy(&b[..b.len().min(16 << 10)]).into_owned());
    let _ = std::fs::remove_file(&time_out);
    let _ = std::fs::remove_file(&err_out);
    // GNU time exits with the tool's status, or 128 + the signal, and says
    // "Command terminated by signal N" before the figure.
    let signal = time_text
        .lines()
        .find_map(|l| l.strip_prefix("Command terminated by signal "))
        .and_then(|s| s.trim().parse().ok());
    let peak_kib = time_text.lines().last().and_then(|l| l.trim().parse().ok()).unwrap_or(0);
    let code = if signal.is_some() { None } else { status.and_then(|s| s.code()) };
    Outcome { code, signal, timed_out, peak_kib, seconds, stderr: stderr.unwrap_or_default() }
}
