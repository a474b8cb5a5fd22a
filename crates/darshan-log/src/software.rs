//! Software loading, told by a file's name: the interpreter's modules and
//! bytecode, installed packages and their metadata, shared libraries,
//! environments (conda, venv, Spack) and container images that a Python
//! or AI job reads as it starts, and the Java archives a JVM reads its
//! classes from (Spark's 250 jars, read in small pieces at scattered
//! offsets). One rule for every tool: the report
//! leaves these files out of file-level findings, the job merge keeps the
//! application's data apart from them per process (`counters::processes`).
//!
//! And the files an MPI library makes for itself beside the
//! application's ([`mpi_internal`]): the report names them once (N01) and
//! leaves them out of file-level advice, darshan-replay does not replay
//! them.

/// What loads software: by file name ending.
const ENDINGS: [(&str, &str); 9] = [
    (".py", "Python module"),
    (".pyc", "Python bytecode"),
    (".pyo", "Python bytecode"),
    (".pth", "Python path file"),
    (".so", "shared library"),
    (".sif", "container image"),
    (".squashfs", "container image"),
    (".sqsh", "container image"),
    (".jar", "Java archive"),
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
    let under_lib = dirs
        .windows(2)
        .any(|w| (w[0] == "lib" || w[0] == "lib64") && (w[1].starts_with("python3") || w[1].starts_with("python2")));
    under_lib.then_some("Python standard library")
}

/// Which library made a file for itself, by its name; None for the
/// application's. Open MPI's OMPIO keeps a shared file pointer in
/// `<file>_cid-<c>-<pid>.sm` under its session directory and probes
/// locking with `<file>.locktest.<n>`; ROMIO (MPICH, and Open MPI's romio
/// component) keeps its shared file pointer in `.<file>.shfp.<n>[.<n>]`
/// beside the file. Open MPI's session directory also holds PMIx's
/// shared-memory store (`pmix_dstor_*`), which every rank maps at
/// MPI_Init; its shared-memory transports keep their segments in
/// `/dev/shm` (`vader_segment.*`, `sm_segment.*`), as MPICH does
/// (`mpich_shar_tmp*`). They are small, touched by few ranks or by the
/// library alone, and not the user's to change.
pub fn mpi_internal(name: &str) -> Option<&'static str> {
    let base = name.rsplit('/').next().unwrap_or(name);
    let in_session_dir = name.split('/').any(|c| c.starts_with("ompi.") || c.starts_with("openmpi-sessions-"));
    if base.ends_with(".sm") && base.contains("_cid-") && in_session_dir {
        return Some("Open MPI OMPIO shared file pointer");
    }
    if in_session_dir && name.split('/').any(|c| c.starts_with("pmix_dstor_")) {
        return Some("PMIx shared-memory store");
    }
    if ["vader_segment.", "sm_segment.", "mpich_shar_tmp"].iter().any(|p| base.starts_with(p)) {
        return Some("MPI shared-memory segment");
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

#[cfg(test)]
mod tests {
    use super::{mpi_internal, software_loading};

    #[test]
    fn the_mpi_librarys_files_are_told_from_the_applications() {
        assert!(mpi_internal("/tmp/ompi.vm.0/pid.17523/1/data.bin_cid-0-17527.sm").is_some());
        assert!(mpi_internal("/tmp/ompi.vm.0/pid.15564/1/fpp.0_cid--1-0.sm").is_some());
        assert!(mpi_internal("/scratch/run/fpp.0.locktest.0").is_some());
        assert!(mpi_internal("/scratch/run/.testfile.shfp.123.456").is_some());
        assert!(mpi_internal("/scratch/run/.testfile.shfp.123").is_some());
        // What every rank of a 4-rank Open MPI job here opened at MPI_Init,
        // and the shared-memory transports' segments.
        assert!(mpi_internal("/tmp/ompi.vm.0/pid.30553/pmix_dstor_ds12_30553/dstore_sm.lock").is_some());
        assert!(mpi_internal("/tmp/ompi.vm.0/pid.30553/pmix_dstor_ds21_30553/smseg-463929345-0").is_some());
        assert!(mpi_internal("/dev/shm/vader_segment.node1.a2b40001.3").is_some());
        assert!(mpi_internal("/dev/shm/sm_segment.node1.1000.8a230001.0").is_some());
        assert!(mpi_internal("/dev/shm/mpich_shar_tmpXYZ12").is_some());
        // The application's own files, however they are named.
        assert!(mpi_internal("/scratch/run/model.sm").is_none());
        assert!(mpi_internal("/scratch/run/a_cid-1-2.sm").is_none());
        assert!(mpi_internal("/scratch/run/notes.locktest.txt").is_none());
        assert!(mpi_internal("/scratch/run/testfile.shfp.1").is_none());
        assert!(mpi_internal("/scratch/run/data.bin").is_none());
        assert!(mpi_internal("/scratch/pmix_dstor_notes/data.bin").is_none());
        assert!(mpi_internal("/home/u/sm_segmentation.h5").is_none());
    }

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
            "/opt/spark-3.5.3/jars/spark-core_2.12-3.5.3.jar",
        ] {
            assert!(software_loading(s).is_some(), "{s}");
        }
        for s in [
            "/lus/data/train/img_040_of_168.npz",
            "/scratch/run/output.h5",
            "/home/u/project/pyc_results.txt",
            "/scratch/python3_runs/data.bin",
            "/data/so/file.dat",
            "/scratch/jar/results.csv",
        ] {
            assert!(software_loading(s).is_none(), "{s}");
        }
    }
}
