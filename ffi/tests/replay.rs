//! darshan-replay round trips on known patterns: an MPI program run under
//! the runtime, its log turned into a fio job, fio run under the runtime,
//! and the replay's log within 5 % of the original in bytes, operations,
//! size buckets, sequential share and files (`darshan-replay --check`,
//! which exits 3 when a figure is off by more).

mod common;

use std::process::Command;

use common::mpi::{self, Mpi};
use common::*;

fn round_trip(pattern: &str, expect: &[&str]) {
    let d = scratch(&format!("replay-{pattern}"));
    let exe = mpi::mpicc(Mpi::OpenMpi, "replay_patterns", &d);
    let logs = mpi::mpirun(Mpi::OpenMpi, &exe, &[pattern, d.join("data").to_str().unwrap()], &d, &[]);
    assert_eq!(logs.len(), 1, "{logs:?}");
    let out = output_within(
        Command::new(built("darshan-replay")).arg("--check").arg(&logs[0]).arg("--lib").arg(lib()),
        std::time::Duration::from_secs(300),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{pattern}: {:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    for e in expect {
        assert!(
            text.lines().any(|l| l.starts_with(e) && l.trim_end().ends_with("1.000")),
            "{pattern}: no {e:?} at 1.000 in\n{text}"
        );
    }
}

/// Each rank writes its own file: 16 sequential 1 MiB writes.
#[test]
fn sequential_writes_of_a_file_per_rank_replay_exactly() {
    round_trip("seq_fpp", &["bytes written", "writes of 100K_1M", "files", "sequential share"]);
}

/// Rank 0 writes a shared file that all 4 ranks then read at random in
/// 4 KiB requests.
#[test]
fn random_reads_of_a_shared_file_replay_within_the_tolerance() {
    round_trip("rand_shared", &["bytes read", "reads of 1K_10K", "bytes written", "files"]);
}

/// `--exact` on a DXT log: every DXT_POSIX segment replayed at its file,
/// operation, offset and length (fio's iolog per rank), checked in the
/// replay's own DXT trace.
#[test]
fn the_exact_replay_reproduces_every_dxt_segment() {
    let d = scratch("replay-exact");
    let exe = mpi::mpicc(Mpi::OpenMpi, "replay_patterns", &d);
    let logs = mpi::mpirun(
        Mpi::OpenMpi,
        &exe,
        &["rand_shared", d.join("data").to_str().unwrap()],
        &d,
        &[("DXT_ENABLE_IO_TRACE", "1")],
    );
    let out = output_within(
        Command::new(built("darshan-replay")).args(["--check", "--exact"]).arg(&logs[0]).arg("--lib").arg(lib()),
        std::time::Duration::from_secs(300),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    // Rank 0's write of the file, then 4 ranks × 256 reads.
    assert_eq!(
        text.trim(),
        "DXT_POSIX segments: 1025 in the log, 1025 in the replay, 1025 with the same file, operation, offset and length"
    );
}

/// A collective MPI-IO writer (tests/programs/collective_textbook.c: 8
/// blocks of 1 MiB per rank written with MPI_File_write_at_all, then read
/// back): fio has no MPI-IO, so the POSIX requests the MPI library made
/// are what is replayed, and they replay exactly (one fio process per job,
/// as ranks are: Darshan counts sequential requests per process).
#[test]
fn a_collective_mpi_io_writers_posix_requests_replay_exactly() {
    let d = scratch("replay-collective");
    let exe = mpi::mpicc(Mpi::OpenMpi, "collective_textbook", &d);
    let logs = mpi::mpirun(Mpi::OpenMpi, &exe, &[d.join("data/c.dat").to_str().unwrap(), "8"], &d, &[]);
    let job = output_within(Command::new(built("darshan-replay")).arg(&logs[0]), std::time::Duration::from_secs(60));
    assert!(String::from_utf8_lossy(&job.stdout).contains("; Not reproduced: MPI-IO (fio has no MPI-IO"));
    let out = output_within(
        Command::new(built("darshan-replay")).arg("--check").arg(&logs[0]).arg("--lib").arg(lib()),
        std::time::Duration::from_secs(300),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{:?}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    for e in ["bytes written", "bytes read", "writes of 1M_4M", "reads of 1M_4M", "sequential share"] {
        assert!(
            text.lines().any(|l| l.starts_with(e) && l.trim_end().ends_with("1.000")),
            "no {e:?} at 1.000 in\n{text}"
        );
    }
}

/// A metadata storm: each of 4 ranks creates 50 empty files, stats them,
/// removes them. Replayed with fio's filecreate, filestat and filedelete
/// engines over 200 files: 200 opens, stats and unlinks, as the original
/// (fio's own process, which stats each file to set it up, is not one of
/// its jobs and its log is left out).
#[test]
fn a_metadata_storm_replays_its_creates_stats_and_unlinks() {
    round_trip("meta_storm", &["files without data", "opens of them", "stats of them", "unlinks of them"]);
}
