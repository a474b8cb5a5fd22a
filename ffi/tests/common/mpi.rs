//! Running MPI jobs in tests, on Open MPI and on MPICH: mpicc at test
//! time, `mpirun -np 4` with the library preloaded and a time limit, and
//! the job's one log read back by record name.

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_log::counters::{mpiio as mx, posix as px, stdio as sx};
use darshan_log::modules::{HEATMAP, MPIIO, POSIX, STDIO};
use darshan_log::{LogFile, Record};

pub const NP: i64 = 4;

/// The two MPI families every MPI test runs on: Debian's Open MPI and
/// Debian's MPICH, installed side by side (scripts/setup.sh); Open MPI
/// owns the plain `mpicc`/`mpirun` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mpi {
    OpenMpi,
    Mpich,
}

pub use Mpi::{Mpich, OpenMpi};

impl Mpi {
    pub const ALL: [Mpi; 2] = [OpenMpi, Mpich];

    pub fn cc(self) -> &'static str {
        match self {
            OpenMpi => "mpicc",
            Mpich => "mpicc.mpich",
        }
    }

    pub fn fort(self) -> &'static str {
        match self {
            OpenMpi => "mpifort",
            Mpich => "mpifort.mpich",
        }
    }

    /// A short tag for scratch directory names.
    pub fn tag(self) -> &'static str {
        match self {
            OpenMpi => "ompi",
            Mpich => "mpich",
        }
    }

    /// `timeout 300 mpirun -np NP` with `env` given to every rank (and not
    /// to the launcher itself, which LD_PRELOAD would instrument too).
    pub fn launcher(self, env: &[(&str, String)]) -> Command {
        let mut cmd = Command::new("timeout");
        match self {
            OpenMpi => {
                cmd.args(["300", "mpirun", "--allow-run-as-root", "--oversubscribe", "-np", &NP.to_string()]);
                for (k, v) in env {
                    cmd.arg("-x").arg(format!("{k}={v}"));
                }
            }
            Mpich => {
                cmd.args(["300", "mpirun.mpich", "-np", &NP.to_string()]);
                for (k, v) in env {
                    cmd.arg("-genv").arg(k).arg(v);
                }
            }
        }
        cmd
    }
}

pub fn mpicc(mpi: Mpi, name: &str, dir: &Path) -> PathBuf {
    mpicc_with(mpi, name, dir, &[])
}

/// `mpicc` with extra flags (`-DUSE_MPI` for a program that is built
/// both ways).
pub fn mpicc_with(mpi: Mpi, name: &str, dir: &Path, flags: &[&str]) -> PathBuf {
    let out = dir.join(format!("{name}.{}", mpi.tag()));
    let src = super::root().join("tests/programs").join(format!("{name}.c"));
    let st = darshan_test_support::status(Command::new(mpi.cc()).arg("-O2").arg("-o").arg(&out).arg(&src).args(flags));
    assert!(st.success(), "{} {name} (are libopenmpi-dev and libmpich-dev installed? scripts/setup.sh)", mpi.cc());
    out
}

/// Run `exe` on NP ranks with the library preloaded, logs and crash-safe
/// files in `dir` (none left in /tmp by a failing test); the logs written.
pub fn mpirun(mpi: Mpi, exe: &Path, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Vec<PathBuf> {
    mpirun_said(mpi, exe, args, dir, env).0
}

/// [`mpirun`], and what the job wrote to its standard error.
pub fn mpirun_said(mpi: Mpi, exe: &Path, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> (Vec<PathBuf>, String) {
    let logs = dir.join("logs");
    let mut all = vec![
        ("LD_PRELOAD", super::lib().display().to_string()),
        ("DARSHAN_LOGPATH", logs.display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", dir.join("mmap").display().to_string()),
    ];
    all.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
    let out = darshan_test_support::output(mpi.launcher(&all).arg(exe).args(args));
    assert!(
        out.status.success(),
        "{mpi:?} mpirun: {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut found: Vec<PathBuf> = std::fs::read_dir(&logs).unwrap().map(|e| e.unwrap().path()).collect();
    found.sort();
    (found, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// One `#[test]` per MPI family for a test function taking an [`Mpi`]:
/// `on_both_mpis!(f)` makes `f::open_mpi` and `f::mpich`.
#[macro_export]
macro_rules! on_both_mpis {
    ($($f:ident),* $(,)?) => {$(
        mod $f {
            #[test]
            fn open_mpi() {
                super::$f($crate::common::mpi::OpenMpi)
            }
            #[test]
            fn mpich() {
                super::$f($crate::common::mpi::Mpich)
            }
        }
    )*};
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

/// The checks of mpi_mix's known pattern that do not depend on how the
/// job started.
pub fn check_mpi_mix(log: &Log, data: &Path) {
    check_mpi_mix_as(log, data, MixLog::Written)
}

/// How an mpi_mix log came to be, for what it can hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MixLog {
    /// Written by the job's MPI_Finalize.
    Written,
    /// The same, the runtime linked statically with --wrap against a
    /// shared libmpi: the POSIX calls the MPI library makes itself never
    /// pass the wrap.
    Static,
    /// darshan-merge --shared-redux of the ranks' crash-safe files: the
    /// rank variances are 0, as the C darshan-merge's accumulation sets
    /// them (darshan-posix-logutils.c).
    Merged,
}

pub fn check_mpi_mix_as(log: &Log, data: &Path, kind: MixLog) {
    let inside_mpi = kind != MixLog::Static;
    assert_eq!(log.file.job.nprocs, NP);
    assert_eq!(log.file.header.partial_flag, 0);
    check_shared_mpiio(log, data);
    check_fpp_mpiio(log, data, inside_mpi);
    // The POSIX side of the shared MPI-IO file (Open MPI's own pwrites):
    // shared too, with all of the bytes.
    if inside_mpi {
        let p = log.one(POSIX, &data.join("shared.dat"));
        assert_eq!((p.rank, c(p, px::BYTES_WRITTEN), c(p, px::BYTES_READ)), (-1, 2000 * NP, 1096 * NP));
        assert!(c(p, px::OPENS) >= NP);
    }

    check_posix_shared(log, data, kind);
    check_per_rank(log, data);
}

fn check_shared_mpiio(log: &Log, data: &Path) {
    // Shared MPI-IO file: one rank -1 record holding the sums.
    let s = log.one(MPIIO, &data.join("shared.dat"));
    assert_eq!(s.rank, -1);
    let want = [
        (mx::COLL_OPENS, NP),
        (mx::INDEP_OPENS, 0),
        (mx::COLL_WRITES, 2 * NP),
        (mx::INDEP_READS, NP),
        (mx::NB_READS, NP),
        (mx::COLL_READS, NP),
        (mx::HINTS, 0),
        (mx::BYTES_WRITTEN, 2000 * NP),
        (mx::BYTES_READ, 1096 * NP),
        (mx::RW_SWITCHES, NP),
        (mx::MODE, 1 | 8),
        (mx::SIZE_WRITE_AGG_100_1K, 2 * NP),
        (mx::SIZE_READ_AGG_0_100, 2 * NP),
        (mx::SIZE_READ_AGG_100_1K, NP),
        (mx::MAX_WRITE_TIME_SIZE, 1000),
        (mx::ACCESS1_ACCESS, 1000),
        (mx::ACCESS1_COUNT, 3 * NP),
        (mx::ACCESS2_ACCESS, 80),
        (mx::ACCESS2_COUNT, NP),
        (mx::ACCESS3_ACCESS, 16),
        (mx::ACCESS3_COUNT, NP),
        (mx::ACCESS4_COUNT, 0),
        (mx::FASTEST_RANK_BYTES, 3096),
        (mx::SLOWEST_RANK_BYTES, 3096),
    ];
    for (k, v) in want {
        assert_eq!(c(s, k), v, "MPIIO counter {k} of shared.dat");
    }
    assert!((0..NP).contains(&c(s, mx::FASTEST_RANK)) && (0..NP).contains(&c(s, mx::SLOWEST_RANK)));
    assert_eq!(s.fcounters[mx::F_VARIANCE_RANK_BYTES], 0.0, "every rank moved the same bytes");
    assert!(s.fcounters[mx::F_FASTEST_RANK_TIME] <= s.fcounters[mx::F_SLOWEST_RANK_TIME]);
    assert!(s.fcounters[mx::F_WRITE_TIME] > 0.0 && s.fcounters[mx::F_OPEN_START_TIMESTAMP] > 0.0);
}

fn check_fpp_mpiio(log: &Log, data: &Path, inside_mpi: bool) {
    // File per process through MPI-IO: one record per rank, that rank.
    for r in 0..NP {
        let f = log.one(MPIIO, &data.join(format!("fpp.{r}")));
        assert_eq!(f.rank, r);
        let want = [
            (mx::INDEP_OPENS, 1),
            (mx::COLL_OPENS, 0),
            (mx::INDEP_WRITES, 3),
            (mx::NB_WRITES, 1),
            (mx::SPLIT_WRITES, 1),
            (mx::SYNCS, 1),
            (mx::VIEWS, 1),
            (mx::HINTS, 1),
            (mx::MODE, 1 | 4),
            (mx::BYTES_WRITTEN, 300 + 64 + 32),
            (mx::FASTEST_RANK, 0),
        ];
        for (k, v) in want {
            assert_eq!(c(f, k), v, "MPIIO counter {k} of fpp.{r}");
        }
        // The POSIX record MPI-IO's own writes made: this rank's.
        if inside_mpi {
            let p = log.one(POSIX, &data.join(format!("fpp.{r}")));
            assert_eq!((p.rank, c(p, px::BYTES_WRITTEN)), (r, 396));
        } else {
            assert!(log.all(POSIX, &data.join(format!("fpp.{r}"))).is_empty());
        }
    }
}

fn check_posix_shared(log: &Log, data: &Path, kind: MixLog) {
    // POSIX-only shared file.
    let p = log.one(POSIX, &data.join("posix_shared.dat"));
    let want = [
        (px::OPENS, NP),
        (px::WRITES, NP),
        (px::BYTES_WRITTEN, 4096 * NP),
        (px::MAX_BYTE_WRITTEN, 4096 * NP - 1),
        (px::SIZE_WRITE_1K_10K, NP),
        (px::ACCESS1_ACCESS, 4096),
        (px::ACCESS1_COUNT, NP),
        (px::MODE, 0o644),
        (px::FASTEST_RANK_BYTES, 4096),
    ];
    assert_eq!(p.rank, -1);
    for (k, v) in want {
        assert_eq!(c(p, k), v, "POSIX counter {k} of posix_shared.dat");
    }
    // Bytes per rank 100, 200, 300, 400: population variance 12500; the
    // fastest and slowest ranks report their own bytes.
    let v = log.one(POSIX, &data.join("var.dat"));
    assert_eq!((v.rank, c(v, px::BYTES_WRITTEN), c(v, px::MAX_BYTE_WRITTEN)), (-1, 1000, 3399));
    let variance = if kind == MixLog::Merged { 0.0 } else { 12500.0 };
    assert!(
        (v.fcounters[px::F_VARIANCE_RANK_BYTES] - variance).abs() < 1e-6,
        "{}",
        v.fcounters[px::F_VARIANCE_RANK_BYTES]
    );
    for (rank, bytes) in
        [(c(v, px::FASTEST_RANK), c(v, px::FASTEST_RANK_BYTES)), (c(v, px::SLOWEST_RANK), c(v, px::SLOWEST_RANK_BYTES))]
    {
        assert_eq!(bytes, (rank + 1) * 100, "rank {rank}'s own bytes");
    }
}

fn check_per_rank(log: &Log, data: &Path) {
    // POSIX file per process.
    for r in 0..NP {
        let p = log.one(POSIX, &data.join(format!("posix_{r}.dat")));
        assert_eq!(
            (p.rank, c(p, px::WRITES), c(p, px::BYTES_WRITTEN), c(p, px::FASTEST_RANK)),
            (r, r + 1, 10 * (r + 1), 0)
        );
    }
    // Opened by ranks 0 and 1 only: not shared, one record each.
    let sub = log.all(POSIX, &data.join("subset.dat"));
    assert_eq!(sub.iter().map(|r| (r.rank, c(r, px::BYTES_WRITTEN))).collect::<Vec<_>>(), vec![(0, 7), (1, 7)]);
    // STDIO on rank 0 only.
    let st = log.one(STDIO, &data.join("stdio0.txt"));
    assert_eq!((st.rank, c(st, sx::OPENS), c(st, sx::WRITES), c(st, sx::BYTES_WRITTEN)), (0, 1, 1, 8));

    // Heatmaps keep every rank's own record.
    let heat_ranks: Vec<i64> =
        log.recs.iter().filter(|(m, n, _)| *m == HEATMAP && n == "heatmap:POSIX").map(|x| x.2.rank).collect();
    assert_eq!(heat_ranks.len(), NP as usize, "{heat_ranks:?}");
}

/// tests/programs/live_mpi.c as a 4-rank Open MPI job under the library,
/// writing for `secs` (logs in `dir/logs`, crash-safe files in
/// `dir/mmap`), started and past its "ready" line.
pub fn start_live_mpi(dir: &Path, secs: &str) -> std::process::Child {
    super::start_ready(&mut live_mpi(OpenMpi, dir, &[secs], &[])).0
}

/// tests/programs/live_mpi.c under the runtime at 4 ranks, its
/// crash-safe files in `dir/mmap`, its log in `dir/logs`: `args` after
/// its data directory, `env` added.
pub fn live_mpi(mpi: Mpi, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let exe = mpicc(mpi, "live_mpi", dir);
    let mut all = vec![
        ("LD_PRELOAD", super::lib().display().to_string()),
        ("DARSHAN_LOGPATH", dir.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", dir.join("mmap").display().to_string()),
    ];
    all.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
    let mut cmd = mpi.launcher(&all);
    cmd.arg(&exe).arg(dir.join("data")).args(args);
    cmd
}
