//! The BG/Q module through the whole runtime, with a recorded personality
//! (DARSHAN_BGQ_PERSONALITY; the hardware is retired and nothing here is
//! a BG/Q): the record it becomes, with and without MPI (4 ranks on both
//! MPIs: one job record, rank -1, the distinct I/O nodes counted), from a
//! killed job's crash-safe files through darshan-merge, and none at all
//! on Linux, when switched off, or from a bad recording.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::mpi::{self, Mpi, NP};
use common::*;
use darshan_log::counters::bgq as b;
use darshan_log::modules::BGQ;

const MIRA: &str = "\
job_id = 3288074
ranks_per_node = 16
io_node_id = 12 12 13 13
nodes = 128
dims = 2 2 4 4 2
torus = 1 1 1 1 0
ddr_mb = 16384
";

fn recording(dir: &Path, text: &str) -> PathBuf {
    let p = dir.join("personality.txt");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

/// `/bin/true` under the library, without MPI, with `env`: its one log.
fn serial_log(tag: &str, env: &[(&str, &Path)]) -> (darshan_log::LogFile, String) {
    let dir = scratch(tag);
    let mut cmd = instrumented(Path::new("/bin/true"), &dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = output(&mut cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (darshan_log::LogFile::open(only_log(&dir)).unwrap(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn bgq_records(log: &darshan_log::LogFile) -> Vec<darshan_log::Record> {
    if !log.modules_present().contains(&BGQ) {
        return Vec::new();
    }
    log.records(BGQ).unwrap()
}

/// The recorded counters, INODES as given.
fn assert_is_mira(r: &darshan_log::Record, inodes: i64) {
    let want = [3288074, 128, 16, 16384, inodes, 2, 2, 4, 4, 2, 0b01111];
    assert_eq!(r.counters, want);
    assert_eq!(r.id, darshan_log::record_id(b"darshan-bgq-record"));
}

#[test]
fn a_recorded_personality_becomes_the_bgq_record_of_a_serial_program() {
    let dir = scratch("bgq-serial-rec");
    let p = recording(&dir, MIRA);
    let (log, _) = serial_log("bgq-serial", &[("DARSHAN_BGQ_PERSONALITY", &p)]);
    let recs = bgq_records(&log);
    assert_eq!(recs.len(), 1);
    // Without MPI the record stays as captured: rank 0, its I/O node id.
    assert_eq!(recs[0].rank, 0);
    assert_is_mira(&recs[0], 12);
    let t = recs[0].fcounters[b::F_TIMESTAMP];
    let run = (log.job.end_time_sec - log.job.start_time_sec + 1) as f64;
    assert!((0.0..=run).contains(&t), "F_TIMESTAMP {t} outside the run");
    // Registered with an empty name, as the C module does; darshan-parser
    // prints what the C parser prints for it.
    assert_eq!(log.names().unwrap().get(recs[0].id), Some(&b""[..]));
}

#[test]
fn no_bgq_record_on_linux_when_switched_off_or_from_a_bad_recording() {
    let (log, _) = serial_log("bgq-linux", &[]);
    assert!(bgq_records(&log).is_empty(), "a BG/Q record on Linux");

    let dir = scratch("bgq-off-rec");
    let p = recording(&dir, MIRA);
    let off = dir.join("off.conf");
    std::fs::write(&off, "MOD_DISABLE BG/Q\n").unwrap();
    let (log, _) = serial_log("bgq-off", &[("DARSHAN_BGQ_PERSONALITY", &p), ("DARSHAN_CONFIG_PATH", &off)]);
    assert!(bgq_records(&log).is_empty(), "a BG/Q record with BG/Q switched off");

    let bad = recording(&scratch("bgq-bad-rec"), "job_id = 1\nnodes = many\n");
    let (log, err) = serial_log("bgq-bad", &[("DARSHAN_BGQ_PERSONALITY", &bad)]);
    assert!(bgq_records(&log).is_empty());
    assert_eq!(err.lines().filter(|l| l.contains("DARSHAN_BGQ_PERSONALITY")).count(), 1, "{err}");
    assert!(err.contains("line 2: `many` is not an integer"), "{err}");

    let (log, err) = serial_log("bgq-missing", &[("DARSHAN_BGQ_PERSONALITY", Path::new("/no/such/file"))]);
    assert!(bgq_records(&log).is_empty());
    assert!(err.contains("cannot read /no/such/file"), "{err}");
}

/// Four ranks on two I/O nodes (12, 13): one record, the job's.
fn four_ranks_write_one_bgq_job_record(m: Mpi) {
    let dir = scratch(&format!("bgq-mpi-{}", m.tag()));
    let p = recording(&dir, MIRA);
    let exe = mpi::mpicc(m, "mpi_mix", &dir);
    let data = dir.join("data");
    let env = [("DARSHAN_BGQ_PERSONALITY", p.to_str().unwrap())];
    let log = mpi::the_log(&mpi::mpirun(m, &exe, &[data.to_str().unwrap()], &dir, &env));
    let recs = bgq_records(&log.file);
    assert_eq!(recs.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![-1]);
    assert_is_mira(&recs[0], 2);
    assert_eq!(log.file.job.nprocs, NP);
}

/// A killed job's crash-safe files (here: a log directory that does not
/// exist) merge into the record the runtime would have written.
fn crash_safe_files_merge_into_one_bgq_job_record(m: Mpi) {
    let dir = scratch(&format!("bgq-merge-{}", m.tag()));
    // Every rank on its own I/O node but ranks 1 and 3.
    let p = recording(&dir, &MIRA.replace("12 12 13 13", "7 9 8 9"));
    let exe = mpi::mpicc(m, "mpi_mix", &dir);
    let mmap = dir.join("mmap");
    // A log directory that cannot take the log at the end (a missing one
    // is refused at start-up): the ranks' crash-safe files stay.
    let Some(_full) = common::full_log_dir(&dir.join("full")) else {
        eprintln!("SKIPPED: a full log directory needs a tmpfs mount (root)");
        return;
    };
    let mut cmd = m.launcher(&[
        ("LD_PRELOAD", lib().display().to_string()),
        ("DARSHAN_LOGPATH", dir.join("full").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", mmap.display().to_string()),
        ("DARSHAN_BGQ_PERSONALITY", p.display().to_string()),
    ]);
    let out = output(cmd.arg(&exe).arg(dir.join("data")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let left = files(&mmap);
    assert_eq!(left.len(), NP as usize, "{left:?}");
    let merged = dir.join("merged.darshan");
    let mo = output(Command::new(built("darshan-merge")).arg("--output").arg(&merged).args(&left));
    assert!(mo.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&mo.stderr));
    let recs = bgq_records(&darshan_log::LogFile::open(&merged).unwrap());
    assert_eq!(recs.iter().map(|r| r.rank).collect::<Vec<_>>(), vec![-1]);
    assert_is_mira(&recs[0], 3);
}

on_both_mpis!(four_ranks_write_one_bgq_job_record, crash_safe_files_merge_into_one_bgq_job_record);
