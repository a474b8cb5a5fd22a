//! The installed tree the linking tests build against (`just install`
//! into a scratch prefix, once per test binary), and how their logs are
//! compared with the LD_PRELOAD run's.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use darshan_log::counters::posix as px;
use darshan_log::modules::{HEATMAP, POSIX};

/// One installed tree per test binary, from the release build the tests
/// run against.
pub fn prefix() -> &'static Path {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let d = super::scratch("install");
        let prefix = d.join("prefix");
        // The directory the tools were built in (target/release); the
        // library is built there too.
        let build = super::built("darshan-config").parent().unwrap().to_path_buf();
        let out = super::output(Command::new(super::root().join("scripts/install.sh")).arg(&build).arg(&prefix));
        assert!(out.status.success(), "install.sh: {}", String::from_utf8_lossy(&out.stderr));
        prefix
    })
}

pub fn bin(name: &str) -> PathBuf {
    prefix().join("bin").join(name)
}

pub fn config(args: &[&str]) -> std::process::Output {
    super::output(Command::new(bin("darshan-config")).args(args))
}

pub fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `cmd` run without the library preloaded (whatever the test's own
/// environment holds), non-MPI logs on, logs and crash-safe files in `dir`.
pub fn linked(cmd: &mut Command, dir: &Path) -> std::process::Output {
    cmd.env_remove("LD_PRELOAD")
        .env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", dir.join("logs"))
        .env("DARSHAN_MMAP_LOGPATH", dir.join("mmap"));
    super::output(cmd)
}

/// A log's comparable counters, by (module, name, rank).
pub type Counters = BTreeMap<(usize, String, i64), Vec<i64>>;

/// Every cell after the first (the LD_PRELOAD run) has the first's
/// counters; a cell `partial(how)` says sees fewer calls (static --wrap
/// against shared libraries) has a subset of its records, each equal.
pub fn assert_as_preloaded<H: std::fmt::Debug>(results: &[(H, Counters)], partial: impl Fn(&H) -> bool) {
    let (first, preload) = &results[0];
    for (how, c) in &results[1..] {
        if partial(how) {
            for (k, v) in c {
                assert_eq!(Some(v), preload.get(k), "{how:?}: {k:?} differs from {first:?}");
            }
        } else {
            assert_eq!(c, preload, "{how:?} differs from {first:?}");
        }
    }
}

/// Every record's integer counters that do not depend on timing or on
/// where the test ran, by (module, name with the data directory left out,
/// rank): the fastest / slowest rank fields and the size of the slowest
/// access follow the clock, a rename's source is a hash of its absolute
/// path, and mkstemp's file and Open MPI's session files have run-made
/// names. HEATMAP (timing) is left out.
pub fn counters(log: &Path, data: &Path) -> Counters {
    use darshan_log::counters::{h5d as dx, mpiio as mx, pnetcdf_var as vx, stdio as sx};
    use darshan_log::modules::{H5D, MPIIO, PNETCDF_VAR, STDIO};
    let log = super::mpi::read(log);
    let base = data.display().to_string();
    log.recs
        .iter()
        .filter(|(m, n, _)| *m != HEATMAP && !n.starts_with("/tmp/ompi."))
        .map(|(m, n, r)| {
            let mut name = n.replace(&base, "");
            let leaf = name.rsplit('/').next().unwrap_or("");
            if leaf.len() == 9 && leaf.starts_with("tmp") {
                name = name.replace(leaf, "tmpXXXXXX");
            }
            let mut c = r.counters.clone();
            let timed: &[usize] = match *m {
                POSIX => &[px::RENAMED_FROM, px::MAX_READ_TIME_SIZE, px::MAX_WRITE_TIME_SIZE],
                MPIIO => &[mx::MAX_READ_TIME_SIZE, mx::MAX_WRITE_TIME_SIZE],
                H5D => &[dx::MAX_READ_TIME_SIZE, dx::MAX_WRITE_TIME_SIZE],
                PNETCDF_VAR => &[vx::MAX_READ_TIME_SIZE, vx::MAX_WRITE_TIME_SIZE],
                _ => &[],
            };
            let ranks = match *m {
                POSIX => Some(px::FASTEST_RANK..=px::SLOWEST_RANK_BYTES),
                MPIIO => Some(mx::FASTEST_RANK..=mx::SLOWEST_RANK_BYTES),
                STDIO => Some(sx::FASTEST_RANK..=sx::SLOWEST_RANK_BYTES),
                H5D => Some(dx::FASTEST_RANK..=dx::SLOWEST_RANK_BYTES),
                PNETCDF_VAR => Some(vx::FASTEST_RANK..=vx::SLOWEST_RANK_BYTES),
                _ => None,
            };
            for k in timed.iter().copied().chain(ranks.into_iter().flatten()) {
                c[k] = 0;
            }
            ((*m, name, r.rank), c)
        })
        .collect()
}

#[allow(unused_imports)]
pub use super::only_log;

/// The variables `names` as environment-modules leaves them after
/// `module use <prefix>/<dir>; module load darshan` (scripts/setup.sh
/// installs environment-modules), one string each.
pub fn module_loaded(dir: &str, names: &[&str]) -> Vec<String> {
    let echo: Vec<String> = names.iter().map(|n| format!("printf '%s\\n' \"${n}\"")).collect();
    let script = format!(
        "source /usr/share/modules/init/bash && module use {}/{dir} && module load darshan && {}",
        prefix().display(),
        echo.join(" && ")
    );
    let o = super::output(Command::new("bash").arg("-c").arg(&script).env_remove("PKG_CONFIG_PATH"));
    assert!(o.status.success(), "module load from {dir}: {}", String::from_utf8_lossy(&o.stderr));
    stdout(&o).lines().map(String::from).collect()
}

/// A stand-in for C Darshan's tree as a program's link sees it: its
/// lib/libdarshan.so carries libtool's soname, libdarshan.so.0 (C's, by
/// readelf), which the program records and the loader then looks for.
pub fn c_darshan_link_dir(dir: &Path) -> PathBuf {
    let lib = dir.join("c-darshan-lib");
    std::fs::create_dir_all(&lib).unwrap();
    let src = lib.join("empty.c");
    std::fs::write(&src, "int darshan_c_standin;\n").unwrap();
    let out = super::output(
        Command::new("cc")
            .args(["-shared", "-fPIC", "-Wl,-soname,libdarshan.so.0", "-o"])
            .arg(lib.join("libdarshan.so"))
            .arg(&src),
    );
    assert!(out.status.success(), "stand-in: {}", String::from_utf8_lossy(&out.stderr));
    lib
}
