//! Which crash-safe files to read: `*_mmap-log-*.darshan` in the
//! crash-safe directories (the runtime's `DARSHAN_MMAP_LOGPATH`, default
//! /tmp), the reader's own, or everyone's when run by root.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The crash-safe directories: `DARSHAN_MMAP_LOGPATH` if set, else /tmp.
pub fn default_dirs() -> Vec<PathBuf> {
    match std::env::var_os("DARSHAN_MMAP_LOGPATH") {
        Some(d) if !d.is_empty() => vec![PathBuf::from(d)],
        _ => vec![PathBuf::from("/tmp")],
    }
}

fn is_crash_safe(p: &Path) -> bool {
    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains("_mmap-log-") && n.ends_with(".darshan"))
}

/// The crash-safe files in `dirs` that `uid` owns (all of them for uid 0),
/// sorted. Unreadable directories give none.
pub fn find_files(dirs: &[PathBuf], uid: u32) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if !is_crash_safe(&p) {
                continue;
            }
            match e.metadata() {
                Ok(m) if m.is_file() && (uid == 0 || m.uid() == uid) => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// This process's effective uid (from /proc: no libc call needed).
pub fn my_uid() -> u32 {
    std::fs::metadata("/proc/self").map(|m| m.uid()).unwrap_or(u32::MAX)
}

/// A positive, finite number of seconds (clap's value parser for the
/// tools' `--interval`).
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v.clamp(0.01, 3600.0)),
        _ => Err(format!("{s:?} is not a positive number of seconds")),
    }
}

/// Where the live tools read, and how often, as both take it on their
/// command line.
#[derive(Clone, Debug, clap::Args)]
pub struct Sources {
    /// Seconds between readings (0.01 to 3600).
    #[arg(long, default_value = "1", value_parser = seconds)]
    pub interval: f64,
    /// A crash-safe directory (repeatable; default $DARSHAN_MMAP_LOGPATH, else /tmp).
    #[arg(long = "dir", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where finished processes' logs are looked for (repeatable; a flat
    /// directory or the root of the dated tree; default $DARSHAN_LOGPATH).
    #[arg(long = "log-dir", value_name = "DIR")]
    pub log_dirs: Vec<PathBuf>,
    /// The most the records of the files followed may take, in MiB; a
    /// file past it is not followed (counted). Peak memory stays within
    /// this plus 512 MiB for the file being read (docs/live.md).
    #[arg(long, value_name = "MiB", default_value_t = crate::track::DEFAULT_MEMORY_LIMIT >> 20)]
    pub memory_limit: u64,
}

impl Sources {
    /// The crash-safe directories given, else the default.
    pub fn crash_safe_dirs(&self) -> Vec<PathBuf> {
        if self.dirs.is_empty() {
            default_dirs()
        } else {
            self.dirs.clone()
        }
    }

    /// A tracker following ended processes to their logs in the log
    /// directories given, else $DARSHAN_LOGPATH.
    pub fn tracker(&self) -> crate::Tracker {
        let mut logs = self.log_dirs.clone();
        if logs.is_empty() {
            logs.extend(std::env::var_os("DARSHAN_LOGPATH").map(PathBuf::from));
        }
        crate::Tracker::new(logs).with_memory_limit(self.memory_limit.saturating_mul(1 << 20))
    }
}
