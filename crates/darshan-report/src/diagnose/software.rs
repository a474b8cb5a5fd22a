//! Software loading: the interpreter's modules and bytecode, installed
//! packages and their metadata, shared libraries, environments (conda,
//! venv, Spack) and container images that a Python or AI job reads as it
//! starts. That is the cost of starting, not the application's I/O: it is
//! summed in one line (N02), with the import-storm advice at scale, and
//! left out of every file-level rule (a job whose four interpreters read
//! the same `.pyc` files was told to read them on one rank and broadcast).

use std::collections::HashSet;

use darshan_log::NameTable;

use super::{finding, plural, Ctx};
use crate::files::{name_of, Files};
use crate::model::{Finding, Level};
use crate::units;

/// What loads software: by file name ending.
const ENDINGS: [(&str, &str); 8] = [
    (".py", "Python module"),
    (".pyc", "Python bytecode"),
    (".pyo", "Python bytecode"),
    (".pth", "Python path file"),
    (".so", "shared library"),
    (".sif", "container image"),
    (".squashfs", "container image"),
    (".sqsh", "container image"),
];

/// What loads software: by a directory on the path.
const DIRS: [(&str, &str); 6] = [
    ("site-packages", "installed package"),
    ("dist-packages", "installed package"),
    ("__pycache__", "Python bytecode"),
    ("conda-meta", "conda environment"),
    (".spack-env", "Spack environment"),
    ("site-python", "installed package"),
];

/// Why a file is software loading, by its name; None for the
/// application's own.
pub fn software_loading(name: &str) -> Option<&'static str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    for (end, what) in ENDINGS {
        if base.ends_with(end) {
            return Some(what);
        }
    }
    // A versioned shared library: libfoo.so.1.2.
    if base.contains(".so.") && base.starts_with("lib") {
        return Some("shared library");
    }
    if base == "pyvenv.cfg" {
        return Some("environment configuration");
    }
    let dirs: Vec<&str> = name.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    // The innermost telling directory first: site-packages/x.dist-info
    // under lib/python3.11 is package metadata, not the standard library.
    for d in dirs.iter().rev() {
        if d.ends_with(".dist-info") || d.ends_with(".egg-info") {
            return Some("package metadata");
        }
        if let Some((_, what)) = DIRS.iter().find(|(n, w)| d == n && !w.is_empty()) {
            return Some(what);
        }
    }
    // lib/python3.11/...: the interpreter's own library.
    let under_lib = dirs.windows(2).any(|w| {
        (w[0] == "lib" || w[0] == "lib64") && (w[1].starts_with("python3") || w[1].starts_with("python2"))
    });
    under_lib.then_some("Python standard library")
}

/// Record ids of every file that is software loading.
pub fn find(files: &Files, names: &NameTable) -> HashSet<u64> {
    files.iter().filter(|e| software_loading(&name_of(names, e.id)).is_some()).map(|e| e.id).collect()
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
        plural(n, "file"),
        units::bytes(bytes as f64),
        units::secs(time)
    );
    let rec = storm.then_some(
        "An import storm: every process reads the same environment from the shared file system. Ship it as a \
         container or squashfs image, or copy the environment to node-local storage at job start",
    );
    Some(finding("N02", if storm { Level::Warn } else { Level::Info }, title, ev, rec))
}

#[cfg(test)]
mod tests {
    use super::software_loading;

    #[test]
    fn interpreters_packages_and_libraries_are_software_data_is_not() {
        for s in [
            "/home/u/venv/lib/python3.11/site-packages/torch/__init__.py",
            "/home/u/venv/lib/python3.11/site-packages/numpy-2.0.dist-info/entry_points.txt",
            "/opt/conda/lib/python3.10/__pycache__/os.cpython-310.pyc",
            "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
            "/sw/env/lib/python3.12/json/decoder.py",
            "/images/pytorch.sif",
            "/home/u/venv/pyvenv.cfg",
        ] {
            assert!(software_loading(s).is_some(), "{s}");
        }
        for s in [
            "/lus/data/train/img_040_of_168.npz",
            "/scratch/run/output.h5",
            "/home/u/project/pyc_results.txt",
            "/scratch/python3_runs/data.bin",
            "/data/so/file.dat",
        ] {
            assert!(software_loading(s).is_none(), "{s}");
        }
    }
}
