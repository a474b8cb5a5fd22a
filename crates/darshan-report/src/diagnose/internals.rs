//! Files the MPI library makes for itself beside the application's: Open
//! MPI's OMPIO keeps a shared file pointer in `<file>_cid-<c>-<pid>.sm`
//! under its session directory and probes locking with
//! `<file>.locktest.<n>`; ROMIO (MPICH, and Open MPI's romio component)
//! keeps its shared file pointer in `.<file>.shfp.<n>[.<n>]` beside the
//! file. They are small, touched by few ranks, and not the user's to
//! change, so file-level advice about them is noise: they are left out of
//! every file-level rule and named once (N01).

use std::collections::HashSet;

use darshan_log::NameTable;

use super::{finding, Ctx};
use crate::files::{name_of, Files};
use crate::model::{Finding, Level};
use crate::units;

/// Which library made a file, by its name; None for the application's.
pub fn mpi_internal(name: &str) -> Option<&'static str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    let in_session_dir = name.split('/').any(|c| c.starts_with("ompi.") || c.starts_with("openmpi-sessions-"));
    if base.ends_with(".sm") && base.contains("_cid-") && in_session_dir {
        return Some("Open MPI OMPIO shared file pointer");
    }
    if let Some((_, n)) = base.rsplit_once(".locktest.") {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            return Some("Open MPI OMPIO lock test");
        }
    }
    if base.starts_with('.') {
        if let Some((_, n)) = base.rsplit_once(".shfp.") {
            if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                return Some("ROMIO shared file pointer");
            }
        }
    }
    None
}

/// Record ids of every file an MPI library made for itself.
pub fn find(files: &Files, names: &NameTable) -> HashSet<u64> {
    files.iter().filter(|e| mpi_internal(&name_of(names, e.id)).is_some()).map(|e| e.id).collect()
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
            "{n} files are the MPI library's own (shared file pointers, lock tests; {} in all): left out of file-level advice",
            units::bytes(bytes as f64)
        ),
        ev,
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::mpi_internal;

    #[test]
    fn the_mpi_librarys_files_are_told_from_the_applications() {
        assert!(mpi_internal("/tmp/ompi.vm.0/pid.17523/1/data.bin_cid-0-17527.sm").is_some());
        assert!(mpi_internal("/tmp/ompi.vm.0/pid.15564/1/fpp.0_cid--1-0.sm").is_some());
        assert!(mpi_internal("/scratch/run/fpp.0.locktest.0").is_some());
        assert!(mpi_internal("/scratch/run/.testfile.shfp.123.456").is_some());
        assert!(mpi_internal("/scratch/run/.testfile.shfp.123").is_some());
        // The application's own files, however they are named.
        assert!(mpi_internal("/scratch/run/model.sm").is_none());
        assert!(mpi_internal("/scratch/run/a_cid-1-2.sm").is_none());
        assert!(mpi_internal("/scratch/run/notes.locktest.txt").is_none());
        assert!(mpi_internal("/scratch/run/testfile.shfp.1").is_none());
        assert!(mpi_internal("/scratch/run/data.bin").is_none());
    }
}
