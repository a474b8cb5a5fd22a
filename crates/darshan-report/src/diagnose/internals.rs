//! Files the MPI library makes for itself beside the application's
//! (shared file pointers, lock tests, its shared-memory store and
//! segments: `darshan_log::software::mpi_internal`, the rule every tool
//! shares). They are small, touched by few ranks, and not the user's to
//! change, so file-level advice about them is noise: they are left out of
//! every file-level rule and named once (N01).

use std::collections::HashSet;

use darshan_log::NameTable;

use super::{finding, Ctx};
use crate::files::Files;
use crate::model::{Finding, Level};
use crate::units;

pub use darshan_log::software::mpi_internal;

/// Record ids of every name in the log an MPI library made for itself: each
/// name judged once, for the files' tables and the timespans alike.
pub fn named(names: &NameTable) -> HashSet<u64> {
    names.iter().filter(|(_, n)| mpi_internal(&String::from_utf8_lossy(n)).is_some()).map(|(id, _)| id).collect()
}

/// Those of `named` that are files of the report's tables.
pub fn find(files: &Files, named: &HashSet<u64>) -> HashSet<u64> {
    files.iter().filter(|e| named.contains(&e.id)).map(|e| e.id).collect()
}

/// N01: the library's files, named once.
pub fn named_once(cx: &Ctx) -> Option<Finding> {
    if cx.internal.is_empty() {
        return None;
    }
    let mut seen = HashSet::new();
    let mut files: Vec<(f64, &crate::files::FileAgg)> = Vec::new();
    let mut bytes = 0i64;
    for e in cx.files.iter().filter(|e| cx.internal.contains(&e.id)) {
        if seen.insert(e.id) {
            bytes += e.bytes_read() + e.bytes_written();
            files.push(((e.bytes_read() + e.bytes_written()) as f64, e));
        }
    }
    let n = seen.len();
    let ev = cx.worst(files, |name, _, b| {
        format!("{name} ({}, {})", mpi_internal(name).unwrap_or("MPI library"), units::bytes(b))
    });
    Some(finding(
        "N01",
        Level::Info,
        format!(
            "{n} files are the MPI library's own (shared file pointers, lock tests, shared memory; {} in all): left out of file-level advice",
            units::bytes(bytes as f64)
        ),
        ev,
        None,
    ))
}
