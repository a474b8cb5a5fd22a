//! Running MPI jobs in tests: mpicc at test time, `mpirun
//! --allow-run-as-root --oversubscribe -np 4` with the library preloaded
//! and a time limit, and the job's one log read back by record name.

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_log::{LogFile, Record};

pub const NP: i64 = 4;

pub fn mpicc(name: &str, dir: &Path) -> PathBuf {
    mpicc_with(name, dir, &[])
}

/// `mpicc` with extra flags (`-DUSE_MPI` for a program that is built
/// both ways).
pub fn mpicc_with(name: &str, dir: &Path, flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let src = super::root().join("tests/programs").join(format!("{name}.c"));
    let st = darshan_test_support::status(Command::new("mpicc").arg("-O2").arg("-o").arg(&out).arg(&src).args(flags));
    assert!(st.success(), "mpicc {name} (is libopenmpi-dev installed? scripts/setup.sh)");
    out
}

/// Run `exe` on NP ranks with the library preloaded; the logs written.
pub fn mpirun(exe: &Path, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Vec<PathBuf> {
    let logs = dir.join("logs");
    let mut cmd = Command::new("timeout");
    cmd.args(["300", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", &NP.to_string()]);
    cmd.arg("-x").arg(format!("LD_PRELOAD={}", super::lib().display()));
    cmd.arg("-x").arg(format!("DARSHAN_LOGPATH={}", logs.display()));
    for (k, v) in env {
        cmd.arg("-x").arg(format!("{k}={v}"));
    }
    let out = darshan_test_support::output(&mut cmd.arg(exe).args(args));
    assert!(
        out.status.success(),
        "mpirun: {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut found: Vec<PathBuf> = std::fs::read_dir(&logs).unwrap().map(|e| e.unwrap().path()).collect();
    found.sort();
    found
}

pub struct Log {
    pub file: LogFile,
    pub recs: Vec<(usize, String, Record)>,
}

pub fn read(path: &Path) -> Log {
    let file = LogFile::open(path).unwrap();
    let names = file.names().unwrap();
    let mut recs = Vec::new();
    for m in file.modules_present() {
        for r in file.records(m).unwrap() {
            let n = String::from_utf8_lossy(names.get(r.id).unwrap_or(b"?")).into_owned();
            recs.push((m, n, r));
        }
    }
    Log { file, recs }
}

impl Log {
    /// Every record of `module` for the file `name`, by rank.
    pub fn all(&self, module: usize, name: &Path) -> Vec<&Record> {
        let name = name.to_str().unwrap();
        let mut v: Vec<&Record> =
            self.recs.iter().filter(|(m, n, _)| *m == module && n == name).map(|x| &x.2).collect();
        v.sort_by_key(|r| r.rank);
        v
    }

    /// The one record of `module` for `name`.
    pub fn one(&self, module: usize, name: &Path) -> &Record {
        let v = self.all(module, name);
        assert_eq!(
            v.len(),
            1,
            "records of {} in module {module}: {:?}",
            name.display(),
            v.iter().map(|r| r.rank).collect::<Vec<_>>()
        );
        v[0]
    }
}

pub fn the_log(logs: &[PathBuf]) -> Log {
    assert_eq!(logs.len(), 1, "one log per job: {logs:?}");
    read(&logs[0])
}

pub fn c(r: &Record, k: usize) -> i64 {
    r.counters[k]
}
