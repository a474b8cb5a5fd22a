//! Metadata storms, from the POSIX_META module (ours): the codes D01-D03.
//!
//! * D01: namespace operations (unlink, rename, mkdir, rmdir, directory
//!   opens, link, symlink) at a sustained rate above `metadata_ops_rate`
//!   per second, and at least `metadata_ops_absolute` of them: the load
//!   that slows a parallel file system's metadata servers for every job.
//! * D02: at least `temporary_files` files opened and removed within the
//!   run (a POSIX record and an unlink of the same path): scratch data
//!   that node-local storage or memory would keep off the shared file
//!   system.
//! * D03: a directory opened for listing at least `repeated_listings`
//!   times per process: a listing the program could keep.

use crate::diagnose::{counted, finding, Config};
use crate::model::Namespace;
use crate::model::{Finding, Level};
use crate::units;

pub fn findings(ns: &Namespace, cfg: &Config, nprocs: i64) -> Vec<Finding> {
    [storm(ns, cfg), temporary_files(ns, cfg), relisted(ns, cfg, nprocs)].into_iter().flatten().collect()
}

/// D01: namespace operations at a rate a metadata server feels.
fn storm(ns: &Namespace, cfg: &Config) -> Option<Finding> {
    let storm = ns.namespace_ops as f64 >= cfg.get("metadata_ops_absolute") && ns.rate > cfg.get("metadata_ops_rate");
    if !storm {
        return None;
    }
    let mut ev = vec![format!(
        "{} in {} ({:.0} per second; about {:.0} per second at the busiest moment, estimated from each path's \
         first and last call)",
        counted(ns.namespace_ops, "namespace operation"),
        units::secs(ns.end - ns.start),
        ns.rate,
        ns.peak_rate
    )];
    ev.extend(
        ns.busiest_dirs.iter().take(3).map(|d| {
            format!("busiest directory {}: {} ({} listings)", d.path, counted(d.ops, "operation"), d.listings)
        }),
    );
    Some(finding(
        "D01",
        Level::High,
        format!("Metadata storm: {:.0} namespace operations per second", ns.rate),
        ev,
        Some(
            "Create, rename and remove fewer files: aggregate many small files into fewer large ones (or an \
             HDF5/NetCDF container), spread the rest over several directories rather than one, and keep \
             scratch files on node-local storage",
        ),
    ))
}

/// D02: files the job made and removed within its run.
fn temporary_files(ns: &Namespace, cfg: &Config) -> Option<Finding> {
    let many = ns.temporary_files as f64 >= cfg.get("temporary_files");
    if !many {
        return None;
    }
    let mut ev = vec![format!(
        "{} opened by the job ({} written to them) and removed within the run",
        counted(ns.temporary_files as i64, "file"),
        units::bytes(ns.temporary_bytes_written as f64)
    )];
    ev.extend(ns.temporary_examples.iter().map(|p| format!("e.g. {p}")));
    Some(finding(
        "D02",
        Level::Warn,
        format!("{} opened and removed within the run", counted(ns.temporary_files as i64, "file")),
        ev,
        Some("Keep temporary files on node-local storage (/tmp, /dev/shm, a burst buffer) or in memory"),
    ))
}

/// D03: directories listed again and again (per process).
fn relisted(ns: &Namespace, cfg: &Config, nprocs: i64) -> Option<Finding> {
    let per_proc = nprocs.max(1) as f64;
    let relisted: Vec<String> = ns
        .relisted_dirs
        .iter()
        .filter(|d| d.listings as f64 / per_proc >= cfg.get("repeated_listings"))
        .map(|d| {
            format!(
                "{}: listed {} times ({} entries read)",
                d.path,
                units::count(d.listings),
                units::count(d.entries_read)
            )
        })
        .collect();
    (!relisted.is_empty()).then(|| {
        finding(
            "D03",
            Level::Warn,
            format!("{} listed again and again", counted(relisted.len() as i64, "directory")),
            relisted,
            Some("List a directory once and keep the result; each listing reads every entry from the metadata server"),
        )
    })
}
