//! darshan-replay round trips on known patterns: an MPI program run under
//! the runtime, its log turned into a fio job, fio run under the runtime,
//! and the replay's log within 5 % of the original in bytes, operations,
//! size buckets, sequential share and files (`darshan-replay --check`,
//! which exits 3 when a figure is off by more). IOR is not packaged here:
//! each `--ior` script is held to IOR's rules and its runs' requests, laid
//! out as IOR lays them (ior_rules), to the original's counters as
//! darshan-parser prints them.

mod common;
#[path = "../../crates/darshan-replay/tests/ior_rules/mod.rs"]
mod ior_rules;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::mpi::{self, Mpi};
use common::*;

/// The counters of `module` summed over the records of files under
/// `under`, as darshan-parser prints them (`POSIX_BYTES_WRITTEN` → sum).
fn parsed(log: &Path, module: &str, under: &Path) -> BTreeMap<String, f64> {
    let out = output_within(Command::new(built("darshan-parser")).arg(log), std::time::Duration::from_secs(60));
    assert!(out.status.success());
    let mut sums = BTreeMap::new();
    let under = format!("{}/", under.display());
    // darshan-parser's first column names MPI-IO with its dash.
    let module = if module == "MPIIO" { "MPI-IO" } else { module };
    for line in String::from_utf8_lossy(&out.stdout).lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() > 5 && f[0] == module && f[5].starts_with(&under) {
            *sums.entry(f[3].to_string()).or_insert(0.0) += f[4].parse::<f64>().unwrap_or(0.0);
        }
    }
    sums
}

fn within(what: &str, original: f64, replay: f64) {
    let ok = if original == 0.0 { replay == 0.0 } else { (replay / original - 1.0).abs() <= 0.05 };
    assert!(ok, "{what}: original {original}, the IOR runs {replay}");
}

/// `--ior` on the log: every run keeps IOR's rules, and the requests its
/// runs make (at the interface they use: `module`, POSIX or MPIIO) are
/// within 5 % of the original's in bytes, operations, size buckets and
/// (POSIX) sequential share. The script's text.
fn ior_round_trip(log: &Path, data: &Path, module: &str) -> String {
    let out =
        output_within(Command::new(built("darshan-replay")).arg("--ior").arg(log), std::time::Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let runs = ior_rules::parse_script(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let o = parsed(log, module, data);
    let agg = if module == "MPIIO" { "AGG_" } else { "" };
    for (dir, verb) in [("WRITE", 'w'), ("READ", 'r')] {
        let mut c = ior_rules::Counted::default();
        for r in runs.iter().filter_map(|r| if let ior_rules::Run::Ior(r) = r { Some(r) } else { None }) {
            if r.has(verb) && !r.setup && r.api == module {
                let n = ior_rules::counted(r);
                c.bytes += n.bytes;
                c.ops += n.ops;
                c.seq += n.seq;
                for (size, k) in n.sizes {
                    *c.sizes.entry(size).or_default() += k;
                }
            }
        }
        let g = |k: &str| o.get(&format!("{module}_{k}")).copied().unwrap_or(0.0);
        let bytes = if dir == "WRITE" { g("BYTES_WRITTEN") } else { g("BYTES_READ") };
        within(&format!("{module} bytes {dir}\n{text}"), bytes, c.bytes as f64);
        let ops = if module == "MPIIO" {
            ["INDEP", "COLL", "SPLIT", "NB"].iter().map(|k| g(&format!("{k}_{dir}S"))).sum()
        } else {
            g(&format!("{dir}S"))
        };
        within(&format!("{module} {dir}S\n{text}"), ops, c.ops as f64);
        for (size, k) in &c.sizes {
            let bucket = format!("SIZE_{dir}_{agg}{}", ior_rules::bucket(*size));
            within(&format!("{module}_{bucket}\n{text}"), g(&bucket), *k as f64);
        }
        if module == "POSIX" && ops > 0.0 {
            within(
                &format!("sequential share of {dir}S\n{text}"),
                g(&format!("SEQ_{dir}S")) / ops,
                c.seq as f64 / c.ops.max(1) as f64,
            );
        }
    }
    text
}

fn round_trip(pattern: &str, expect: &[&str]) -> (std::path::PathBuf, std::path::PathBuf) {
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
    (logs[0].clone(), d.join("data"))
}

/// Each rank writes its own file: 16 sequential 1 MiB writes.
#[test]
fn sequential_writes_of_a_file_per_rank_replay_exactly() {
    let (log, data) = round_trip("seq_fpp", &["bytes written", "writes of 100K_1M", "files", "sequential share"]);
    let ior = ior_round_trip(&log, &data, "POSIX");
    assert!(ior.contains("$MPIRUN -np 4 $IOR -a POSIX -F -w -k -t 1048576 -b 16777216 -s 1"), "{ior}");
}

/// `--ranks` and `--scale-bytes`: the sequential writer's 4 ranks × 16
/// MiB as 8 fio jobs of a quarter the bytes each, run under the runtime:
/// 8 files, 32 writes of 1 MiB (the known pattern, not the tool's own
/// figures); and as IOR, 8 tasks of 4 MiB.
#[test]
fn ranks_and_scale_bytes_scale_the_replay() {
    let d = scratch("replay-scaled");
    let exe = mpi::mpicc(Mpi::OpenMpi, "replay_patterns", &d);
    let logs = mpi::mpirun(Mpi::OpenMpi, &exe, &["seq_fpp", d.join("data").to_str().unwrap()], &d, &[]);
    let files = d.join("scaled-files");
    let job = d.join("scaled.fio");
    let scale = ["--ranks", "8", "--scale-bytes", "0.25", "--dir"];
    let made = output_within(
        Command::new(built("darshan-replay")).arg(&logs[0]).args(scale).arg(&files).arg("-o").arg(&job),
        std::time::Duration::from_secs(60),
    );
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    std::fs::create_dir_all(&files).unwrap();
    let replay_logs = d.join("scaled-logs");
    std::fs::create_dir_all(&replay_logs).unwrap();
    let run = output_within(
        Command::new("fio")
            .arg(&job)
            .env("LD_PRELOAD", lib())
            .env("DARSHAN_ENABLE_NONMPI", "1")
            .env("DARSHAN_LOGPATH", &replay_logs),
        std::time::Duration::from_secs(300),
    );
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let (mut written, mut writes, mut big, mut names) = (0.0, 0.0, 0.0, std::collections::BTreeSet::new());
    for l in files_in(&replay_logs) {
        let t = parsed(&l, "POSIX", &files);
        written += t.get("POSIX_BYTES_WRITTEN").copied().unwrap_or(0.0);
        writes += t.get("POSIX_WRITES").copied().unwrap_or(0.0);
        big += t.get("POSIX_SIZE_WRITE_100K_1M").copied().unwrap_or(0.0);
        let out = output_within(Command::new(built("darshan-parser")).arg(&l), std::time::Duration::from_secs(60));
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() > 5 && f[0] == "POSIX" && f[3] == "POSIX_BYTES_WRITTEN" && f[4] != "0" {
                names.insert(f[5].to_string());
            }
        }
    }
    assert_eq!((written, writes, big, names.len()), ((8 << 22) as f64, 32.0, 32.0, 8), "{names:?}");
    let ior = output_within(
        Command::new(built("darshan-replay")).arg("--ior").arg(&logs[0]).args(&scale[..4]),
        std::time::Duration::from_secs(60),
    );
    let text = String::from_utf8_lossy(&ior.stdout);
    assert!(text.contains("$MPIRUN -np 8 $IOR -a POSIX -F -w -k -t 1048576 -b 4194304 -s 1"), "{text}");
}

fn files_in(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect()
}

/// A program of both STDIO and POSIX: 2000 fwrite()s and 2000 fread()s of
/// 512 B per rank, and 32 POSIX writes of 64 KiB. fio has no streams: the
/// STDIO files are replayed as unbuffered requests of the same size, and
/// compared with the original's STDIO counters (bytes, operations,
/// files); the POSIX file as before, buckets and all.
#[test]
fn a_mixed_stdio_and_posix_program_replays_per_module() {
    let (log, _) = round_trip(
        "mixed",
        &[
            "stdio bytes written",
            "stdio bytes read",
            "stdio writes",
            "stdio reads",
            "stdio files",
            "bytes written",
            "writes of 10K_100K",
            "files",
        ],
    );
    let job = output_within(Command::new(built("darshan-replay")).arg(&log), std::time::Duration::from_secs(60));
    let text = String::from_utf8_lossy(&job.stdout);
    assert!(text.contains("STDIO streams replayed as unbuffered requests"), "{text}");
    assert!(text.contains("bssplit=512/100,512/100"), "{text}");
}

/// Rank 0 writes a shared file that all 4 ranks then read at random in
/// 4 KiB requests.
#[test]
fn random_reads_of_a_shared_file_replay_within_the_tolerance() {
    let (log, data) = round_trip("rand_shared", &["bytes read", "reads of 1K_10K", "bytes written", "files"]);
    let ior = ior_round_trip(&log, &data, "POSIX");
    assert!(ior.contains("$MPIRUN -np 4 $IOR -a POSIX -z -r -k -t 4096 -b 1048576 -s 1"), "{ior}");
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
    let job = String::from_utf8_lossy(&job.stdout).into_owned();
    assert!(job.contains("; Not reproduced: MPI-IO (fio has no MPI-IO"));
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
    // IOR has MPI-IO: the application's own requests, collective, 8 of
    // 1 MiB per rank each way.
    let ior = ior_round_trip(&logs[0], &d.join("data"), "MPIIO");
    assert!(ior.contains("$MPIRUN -np 4 $IOR -a MPIIO -c -w -k -t 1048576 -b 8388608 -s 1"), "{ior}");
    not_the_mpi_librarys_files(&logs[0], &[&job, &ior]);
}

/// Regression: an MPI job's replay took the MPI library's own files for
/// the application's (here OMPIO's shared file pointers,
/// `/tmp/ompi.*/…/c.dat_cid-*.sm`, and its lock tests,
/// `c.dat.locktest.<rank>`: fio jobs and mdtest series of their own). The
/// log has them; neither the job file nor the IOR script does.
fn not_the_mpi_librarys_files(log: &Path, replays: &[&str]) {
    let log = darshan_log::LogFile::open(log).unwrap();
    let names = log.names().unwrap();
    let own: Vec<String> = names
        .iter()
        .map(|(_, n)| String::from_utf8_lossy(n).into_owned())
        .filter(|n| (n.contains("/ompi.") && n.ends_with(".sm")) || n.contains(".locktest."))
        .collect();
    assert!(own.len() >= 2, "the log has no OMPIO files of its own: nothing to leave out here ({own:?})");
    for text in replays {
        for n in &own {
            let base = n.rsplit('/').next().unwrap_or(n);
            assert!(!text.contains(base), "{n} replayed:\n{text}");
        }
    }
}

/// A metadata storm: each of 4 ranks creates 50 empty files, stats them,
/// removes them. Replayed with fio's filecreate, filestat and filedelete
/// engines over 200 files: 200 opens, stats and unlinks, as the original
/// (fio's own process, which stats each file to set it up, is not one of
/// its jobs and its log is left out).
#[test]
fn a_metadata_storm_replays_its_creates_stats_and_unlinks() {
    let (log, _) =
        round_trip("meta_storm", &["files without data", "opens of them", "stats of them", "unlinks of them"]);
    // And as mdtest: 4 tasks, 50 files each, made, stat'ed and removed.
    let out =
        output_within(Command::new(built("darshan-replay")).arg("--ior").arg(&log), std::time::Duration::from_secs(60));
    let text = String::from_utf8_lossy(&out.stdout);
    let runs = ior_rules::parse_script(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let md: Vec<_> =
        runs.iter().filter_map(|r| if let ior_rules::Run::Mdtest(m) = r { Some(m) } else { None }).collect();
    assert_eq!(md.len(), 1, "{text}");
    assert_eq!((md[0].np * md[0].items, md[0].flags.as_str()), (200, "FuCTr"), "{text}");
}
