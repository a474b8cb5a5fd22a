//! Regression tests for the ways the runtime could hurt the program it
//! lives in (issue 9): each is named after the failure it guards against.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::*;

/// Defined dynamic symbols of a shared object (version suffixes removed).
fn dynamic_symbols(path: &std::path::Path) -> BTreeSet<String> {
    let out = output(Command::new("nm").args(["-D", "--defined-only"]).arg(path));
    assert!(out.status.success(), "nm {}", path.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap_or(s).to_string())
        .collect()
}

fn libc_path() -> std::path::PathBuf {
    let out = output(Command::new("cc").arg("-print-file-name=libc.so.6"));
    std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// bzip2's `bz_internal_error` once leaked out of libdarshan.so and
/// replaced libbz2's own in every program. The library may export only
/// what it interposes (libc and MPI functions) and `darshan_` names.
#[test]
fn library_exports_no_foreign_symbol_like_bz_internal_error() {
    let ours = dynamic_symbols(&lib());
    let libc = dynamic_symbols(&libc_path());
    assert!(libc.contains("open") && libc.contains("fprintf"), "libc symbols read");
    // glibc >= 2.38 names that C23 programs call; this glibc may predate them.
    let newer_glibc = ["__isoc23_fscanf", "__isoc23_scanf", "__isoc23_vfscanf"];
    let foreign: Vec<&String> = ours
        .iter()
        .filter(|s| !s.starts_with("darshan_"))
        .filter(|s| !libc.contains(*s) && !newer_glibc.contains(&s.as_str()))
        .filter(|s| !((s.starts_with("MPI_") || s.starts_with("PMPI_")) && s.len() > 5))
        .collect();
    assert!(foreign.is_empty(), "exported symbols that are not interposed functions: {foreign:?}");
    // The MPI names are MPI's own: compare with libmpi when it is here.
    let mpi: Vec<&String> = ours.iter().filter(|s| s.starts_with("MPI_") || s.starts_with("PMPI_")).collect();
    assert!(mpi.iter().any(|s| *s == "MPI_File_open"), "MPI-IO wrappers exported");
    if let Some(libmpi) = libmpi() {
        let theirs = dynamic_symbols(&libmpi);
        let unknown: Vec<_> = mpi.iter().filter(|s| !theirs.contains(**s)).collect();
        assert!(unknown.is_empty(), "MPI names libmpi does not define: {unknown:?}");
    }
}

fn libmpi() -> Option<std::path::PathBuf> {
    // A short query that cannot hang; no mpicc means no MPI to compare with.
    let out = Command::new("mpicc").arg("-showme:libdirs").output().ok()?.stdout;
    String::from_utf8_lossy(&out)
        .split_whitespace()
        .map(|d| std::path::Path::new(d).join("libmpi.so"))
        .find(|p| p.exists())
}
