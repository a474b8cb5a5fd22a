//! Software loading, told by a file's name: the interpreter's modules and
//! bytecode, installed packages and their metadata, shared libraries,
//! environments (conda, venv, Spack) and container images that a Python
//! or AI job reads as it starts. One rule for every tool: the report
//! leaves these files out of file-level findings, the job merge keeps the
//! application's data apart from them per process (`counters::processes`).

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
    let under_lib = dirs
        .windows(2)
        .any(|w| (w[0] == "lib" || w[0] == "lib64") && (w[1].starts_with("python3") || w[1].starts_with("python2")));
    under_lib.then_some("Python standard library")
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
