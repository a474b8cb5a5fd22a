//! Software loading: the interpreter's modules and bytecode, installed
//! packages and their metadata, shared libraries, environments (conda,
//! venv, Spack) and container images that a Python or AI job reads as it
//! starts. That is the cost of starting, not the application's I/O: it is
//! summed in one line (N02), with the import-storm advice at scale, and
//! left out of every file-level rule (a job whose four interpreters read
//! the same `.pyc` files was told to read them on one rank and broadcast).

use std::collections::HashSet;

use darshan_log::NameTable;

use super::{counted, finding, Ctx};
use crate::files::Files;
use crate::model::{Finding, Level};
use crate::units;

pub use darshan_log::software::software_loading;

/// Record ids of every name in the log that is software loading: each
/// name judged once, for the files' tables and the timespans alike.
pub fn named(names: &NameTable) -> HashSet<u64> {
    names.iter().filter(|(_, n)| software_loading(&String::from_utf8_lossy(n)).is_some()).map(|(id, _)| id).collect()
}

/// Those of `named` that are files of the report's tables.
pub fn find(files: &Files, named: &HashSet<u64>) -> HashSet<u64> {
    files.iter().filter(|e| named.contains(&e.id)).map(|e| e.id).collect()
}

/// A Python job: its command runs an interpreter (`python3 …`), or it
/// loaded Python's modules, bytecode or installed packages.
pub fn python(command_line: &str, names: &NameTable, software: &HashSet<u64>) -> bool {
    let program = command_line.split_whitespace().next().unwrap_or("");
    let interpreter = program.rsplit('/').next().unwrap_or(program).starts_with("python");
    interpreter
        || software.iter().filter_map(|id| names.get(*id)).any(|n| {
            software_loading(&String::from_utf8_lossy(n))
                .is_some_and(|k| k.contains("Python") || k == "installed package")
        })
}

/// Files read at start-up by so many processes that a shared file
/// system feels it (the import storm): processes × files.
const STORM: i64 = 100_000;

/// N02: the software loading, in one line.
pub fn summary(cx: &Ctx) -> Option<Finding> {
    if cx.software.is_empty() {
        return None;
    }
    let mut seen = HashSet::new();
    let (mut bytes, mut time, mut files) = (0i64, 0.0f64, Vec::new());
    for e in cx.files.iter().filter(|e| cx.software.contains(&e.id)) {
        bytes += e.bytes_read() + e.bytes_written();
        time += e.io_time;
        if seen.insert(e.id) {
            files.push(((e.bytes_read() + e.bytes_written()) as f64, e));
        }
    }
    let n = seen.len() as i64;
    let ev = cx.worst(files, |name, _, b| {
        format!("{name} ({}, {})", software_loading(name).unwrap_or("software"), units::bytes(b))
    });
    let storm = n.saturating_mul(cx.nprocs.max(1)) >= STORM;
    let title = format!(
        "Software loading: {}, {} read, {} in I/O calls; left out of file-level advice",
        counted(n, "file"),
        units::bytes(bytes as f64),
        units::secs(time)
    );
    let rec = storm.then_some(
        "An import storm: every process reads the same environment from the shared file system. Ship it as a \
         container or squashfs image, or copy the environment to node-local storage at job start",
    );
    Some(finding("N02", if storm { Level::Warn } else { Level::Info }, title, ev, rec))
}
