//! The processes a command leaves running when it exits: the JVM that
//! pyspark starts, which shuts down (and runs its `rm` hooks) as the
//! interpreter returns; a shell script's background jobs. darshan-run
//! merged the job log as soon as the command itself exited: such a
//! process was in it only as the snapshot its crash-safe file held then,
//! and its own log, written a moment later, stayed beside the job log.
//! Now darshan-run is their reaper (PR_SET_CHILD_SUBREAPER: an orphaned
//! descendant becomes its child, not init's) and waits for them, for a
//! time, before merging.

use std::time::{Duration, Instant};

use darshan_util::visible::visible;
use rustix::io::Errno;
use rustix::process::{getpid, set_child_subreaper, wait, WaitOptions};

/// Make this process the reaper of the command's descendants. Where the
/// kernel refuses, the wait below sees the command's children only, as
/// before: nothing to tell the user.
pub fn become_reaper() {
    let _ = set_child_subreaper(Some(getpid()));
}

/// The processes that are this process's children now, by name, as
/// `/proc` lists them (empty where it does not).
fn children() -> Vec<String> {
    let me = getpid().as_raw_nonzero().get();
    let list = std::fs::read_to_string(format!("/proc/self/task/{me}/children")).unwrap_or_default();
    list.split_whitespace()
        .map(|pid| {
            let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            format!("{} {pid}", visible(comm.trim()))
        })
        .collect()
}

/// Reap the command's descendants until none is left or `limit` has
/// passed; say once, unless `quiet`, what it waits for. Returns those
/// still running at the end (their I/O is then in the job log as far as
/// their crash-safe files hold it).
pub fn wait_for_rest(limit: Duration, quiet: bool, say: impl Fn(&str)) -> Vec<String> {
    let start = Instant::now();
    let mut told = false;
    loop {
        match wait(WaitOptions::NOHANG) {
            Ok(Some(_)) | Err(Errno::INTR) => continue,
            Ok(None) => {}
            // No child left (ECHILD), or none to wait for.
            Err(_) => return Vec::new(),
        }
        if start.elapsed() >= limit {
            return children();
        }
        // A JVM's shutdown takes a moment: say nothing for less.
        if !quiet && !told && start.elapsed() >= Duration::from_secs(1) {
            told = true;
            let left = children();
            say(&format!(
                "darshan-run: waiting up to {} s (--wait) for what the command left running: {}",
                limit.as_secs(),
                if left.is_empty() { "its other processes".to_string() } else { left.join(", ") }
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}
