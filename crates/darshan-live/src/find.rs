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
