//! AutoPerf's MPI profile (APMPI) through the whole runtime, on both MPIs:
//! tests/programs/apmpi_calls.c makes known MPI calls on 4 ranks; every
//! counter of every rank's record is what its pattern gives (the rules of
//! C's darshan-apmpi.c; C 3.5.0 built with AutoPerf wrote the same
//! counters for this program, docs/runtime.md), the times add up as C's
//! shutdown adds them, rank 0 writes the header, the sync times appear
//! only when asked for, and a job that does not switch the module on has
//! no APMPI region. A job killed under a tree installed with
//! `--enable-apmpi-mod` leaves crash-safe files that darshan-merge makes
//! into its profile, the totals the shutdown would have added included.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::mpi::{self, Mpi, NP};
use common::scratch;
use darshan_log::autoperf::{Apmpi, ApmpiReader, Header, Perf};
use darshan_log::counters::apmpi as f;
use darshan_log::modules::APMPI;
use darshan_log::LogFile;

const ROUNDS: i64 = 2;

/// The counters every rank's record must hold after `ROUNDS` rounds of
/// apmpi_calls.c on `n` ranks: (operation, calls per round, bytes per
/// call, in the order the calls are made).
fn pattern(n: i64) -> Vec<(&'static str, Vec<i64>)> {
    let op = |name, sizes: &[i64]| (name, sizes.to_vec());
    let none = |name, calls: usize| (name, vec![0; calls]);
    vec![
        op("MPI_SEND", &[400]),
        op("MPI_SSEND", &[4]),
        // 100 ints (status), 1 int (no status: the count asked for), the
        // probed 10 ints, 5 ints.
        op("MPI_RECV", &[400, 4, 40, 20]),
        op("MPI_ISEND", &[16_384, 40, 20]),
        op("MPI_IRECV", &[16_384]),
        op("MPI_SENDRECV", &[600]),
        // What it sends and what it receives, in place.
        op("MPI_SENDRECV_REPLACE", &[560_000]),
        none("MPI_PROBE", 1),
        none("MPI_TEST", 1),
        none("MPI_WAIT", 6),
        none("MPI_WAITALL", 1),
        none("MPI_BARRIER", 2),
        op("MPI_BCAST", &[8_000]),
        op("MPI_REDUCE", &[12]),
        op("MPI_ALLREDUCE", &[4, 160_000]),
        op("MPI_ALLGATHER", &[8]),
        op("MPI_ALLGATHERV", &[12]),
        op("MPI_GATHER", &[16]),
        op("MPI_GATHERV", &[20]),
        op("MPI_SCATTER", &[24]),
        op("MPI_SCATTERV", &[28]),
        // What every rank receives from all.
        op("MPI_ALLTOALL", &[32 * n]),
        op("MPI_ALLTOALLV", &[36 * n]),
        op("MPI_ALLTOALLW", &[40 * n]),
        op("MPI_REDUCE_SCATTER", &[44 * n]),
        op("MPI_SCAN", &[48]),
        op("MPI_EXSCAN", &[52]),
        none("MPI_IBARRIER", 1),
        op("MPI_IBCAST", &[80]),
        op("MPI_IALLREDUCE", &[84]),
        op("MPI_IALLGATHER", &[88]),
        none("MPI_WIN_FENCE", 3),
        op("MPI_PUT", &[16]),
        op("MPI_GET", &[12]),
        op("MPI_ACCUMULATE", &[8]),
        none("MPI_WIN_LOCK", 1),
        none("MPI_FETCH_AND_OP", 1),
        none("MPI_WIN_FLUSH", 1),
        none("MPI_COMPARE_AND_SWAP", 1),
        none("MPI_WIN_UNLOCK", 1),
    ]
}

/// The counters `pattern` gives, in the record's order.
fn expected(n: i64) -> Vec<u64> {
    let mut c = vec![0i64; f::NUM_INDICES];
    for (name, sizes) in pattern(n) {
        let op = f::OPS.iter().find(|o| o.name == name).unwrap();
        c[op.calls] = ROUNDS * sizes.len() as i64;
        if let Some(b) = op.bytes {
            for s in sizes {
                c[b] += ROUNDS * s;
                let bucket = [256, 1024, 8192, 262_144, 1 << 20].iter().position(|&top| s <= top).unwrap_or(5);
                c[b + 1 + bucket] += ROUNDS;
            }
        }
    }
    c.into_iter().map(|v| v as u64).collect()
}

/// The job's APMPI records: the header, then one per rank.
fn records(log: &Path) -> (Header, Vec<Perf>) {
    let file = LogFile::open(log).unwrap();
    let mut r = ApmpiReader::new(&file).unwrap();
    let Some(Apmpi::Header(h)) = r.next_record().unwrap() else { panic!("no APMPI header first") };
    let mut ranks = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        let Apmpi::Perf(p) = rec else { unreachable!() };
        ranks.push(*p);
    }
    (h, ranks)
}

fn run(mpi: Mpi, tag: &str, env: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch(&format!("apmpi_{tag}_{}", mpi.tag()));
    let exe = mpi::mpicc(mpi, "apmpi_calls", &dir);
    let logs = mpi::mpirun(mpi, &exe, &[&ROUNDS.to_string()], &dir, env);
    assert_eq!(logs.len(), 1, "{logs:?}");
    logs[0].clone()
}

/// The node's name as the kernel holds it (what MPI_Get_processor_name
/// gives on Linux; no `hostname` command on a minimal machine).
fn hostname() -> Vec<u8> {
    std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim_end().as_bytes().to_vec()
}

fn every_rank_counts_the_calls_its_pattern_makes(mpi: Mpi) {
    let log = run(mpi, "pattern", &[("DARSHAN_MOD_ENABLE", "APMPI")]);
    let (h, ranks) = records(&log);
    assert_eq!((h.rank, h.magic, h.sync_flag), (0, f::MAGIC, 0));
    assert!(h.variance_total_mpitime >= 0.0 && h.variance_total_mpisynctime == 0.0, "{h:?}");
    assert_eq!(ranks.iter().map(|p| p.rank).collect::<Vec<_>>(), (0..NP).collect::<Vec<_>>());
    let want = expected(NP);
    for p in &ranks {
        for (k, (got, want)) in p.counters.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "{mpi:?} rank {} {}", p.rank, f::NAMES[k]);
        }
        assert_eq!(p.node_name(), &hostname()[..hostname().len().min(f::NAME_MAX)]);
        for (k, t) in p.time.chunks_exact(3).enumerate() {
            let (total, least, most) = (t[0], t[1], t[2]);
            assert!(total >= most && most >= least && least >= 0.0, "{} {t:?}", f::OPS[k].name);
        }
        assert!(p.sync.iter().all(|&s| s == 0.0), "no sync times unless asked for");
        let total: f64 = p.time.iter().step_by(3).sum();
        assert!((p.global[0] - total).abs() <= 1e-9 * total.max(1.0) && total > 0.0, "{:?} vs {total}", p.global);
    }
}

fn collectives_synchronised_on_request_have_sync_times(mpi: Mpi) {
    let log = run(mpi, "sync", &[("DARSHAN_MOD_ENABLE", "APMPI"), ("DARSHAN_APMPI_COLL_SYNC", "1")]);
    let (h, ranks) = records(&log);
    assert_eq!(h.sync_flag, 1);
    for p in &ranks {
        assert_eq!(p.counters, expected(NP), "the barriers before collectives are not counted");
        let synced: Vec<&str> =
            f::F_SYNC_NAMES.iter().zip(&p.sync).filter(|(_, &s)| s > 0.0).map(|(n, _)| *n).collect();
        assert!(
            synced.contains(&"MPI_BARRIER_TOTAL_SYNC_TIME") && synced.contains(&"MPI_ALLTOALL_TOTAL_SYNC_TIME"),
            "{synced:?}"
        );
        let sync: f64 = p.sync.iter().sum();
        assert!((p.global[1] - sync).abs() <= 1e-12, "{:?} vs {sync}", p.global);
    }
}

fn a_job_that_does_not_ask_has_no_apmpi_region(mpi: Mpi) {
    let log = run(mpi, "off", &[]);
    let file = LogFile::open(&log).unwrap();
    assert_eq!((file.header.mod_map[APMPI].len, file.header.mod_ver[APMPI]), (0, 0));
}

/// The population variance of `x` (two passes).
fn variance(x: &[f64]) -> f64 {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / x.len() as f64
}

/// A tree installed with `--enable-apmpi-mod`: its library records APMPI
/// with nothing in the environment, its darshan-merge reads the records.
fn apmpi_tree(dir: &Path) -> PathBuf {
    let prefix = dir.join("prefix");
    let build = common::built("darshan-merge").parent().unwrap().to_path_buf();
    let install = common::root().join("scripts/install.sh");
    let out = darshan_test_support::output(Command::new(install).arg(&build).arg(&prefix).arg("--enable-apmpi-mod"));
    assert!(out.status.success(), "install.sh: {}", String::from_utf8_lossy(&out.stderr));
    // Its darshan-config says so, as C's configured so does.
    let answer = |arg: &str| {
        let out = darshan_test_support::output(Command::new(prefix.join("bin/darshan-config")).arg(arg));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!([answer("--apmpi-mod"), answer("--apmpi-coll-sync")], ["yes", "no"]);
    prefix
}

fn a_killed_jobs_files_merge_into_its_profile_with_the_shutdowns_totals(mpi: Mpi) {
    let dir = scratch(&format!("apmpi_killed_{}", mpi.tag()));
    let prefix = apmpi_tree(&dir);
    let exe = mpi::mpicc(mpi, "mpi_crash", &dir);
    let vars = [
        ("LD_PRELOAD", prefix.join("lib/libdarshan.so").display().to_string()),
        ("DARSHAN_LOGPATH", dir.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", dir.join("mmap").display().to_string()),
    ];
    std::fs::create_dir_all(dir.join("data")).unwrap();
    // mpi_crash's "print" mode makes one barrier and no I/O (MPICH's
    // ROMIO makes MPI calls of its own, which Darshan counts too), then
    // waits to be killed (after 4 s).
    let mut cmd = mpi.launcher(&vars);
    match mpi {
        Mpi::OpenMpi => cmd.args(["--timeout", "4"]),
        Mpi::Mpich => cmd.env("MPIEXEC_TIMEOUT", "4"),
    };
    let out = darshan_test_support::output(cmd.arg(&exe).arg(dir.join("data")).arg("print"));
    assert!(!out.status.success(), "the job was to be killed");
    let files = common::files(&dir.join("mmap"));
    assert_eq!(files.len(), NP as usize, "{files:?}");
    let merged = dir.join("merged.darshan");
    let out = darshan_test_support::output(
        Command::new(prefix.join("bin/darshan-merge")).arg("--output").arg(&merged).args(&files),
    );
    assert!(out.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&out.stderr));
    let (h, ranks) = records(&merged);
    assert_eq!((h.rank, h.magic), (0, f::MAGIC));
    let mut seen: Vec<i64> = ranks.iter().map(|p| p.rank).collect();
    seen.sort();
    assert_eq!(seen, (0..NP).collect::<Vec<_>>());
    let barrier = f::OPS.iter().find(|o| o.name == "MPI_BARRIER").unwrap().calls;
    let mut totals = Vec::new();
    for p in &ranks {
        assert_eq!(p.counters[barrier], 1, "rank {}", p.rank);
        let total: f64 = p.time.iter().step_by(3).sum();
        assert!(total > 0.0 && (p.global[0] - total).abs() <= 1e-12 * total.max(1.0), "{:?} {total}", p.global);
        totals.push(p.global[0]);
    }
    let want = variance(&totals);
    assert!(
        (h.variance_total_mpitime - want).abs() <= 1e-9 * want.max(1e-12),
        "{} vs {want}",
        h.variance_total_mpitime
    );
}

/// Threads of one rank calling MPI at once (MPI_THREAD_MULTIPLE):
/// tests/programs/apmpi_threads.c's 4 threads make 300 rounds each of
/// MPI_Allreduce (one int), MPI_Iprobe and MPI_Test. No call is lost or
/// counted twice, and no other operation is counted.
fn calls_from_threads_at_once_are_each_counted_once(mpi: Mpi) {
    const THREADS: u64 = 4;
    const ROUNDS: u64 = 300;
    let dir = scratch(&format!("apmpi_threads_{}", mpi.tag()));
    let exe = mpi::mpicc_with(mpi, "apmpi_threads", &dir, &["-pthread"]);
    let logs = mpi::mpirun(mpi, &exe, &[&ROUNDS.to_string()], &dir, &[("DARSHAN_MOD_ENABLE", "APMPI")]);
    assert_eq!(logs.len(), 1, "{logs:?}");
    let (_, ranks) = records(&logs[0]);
    assert_eq!(ranks.len() as i64, NP);
    let at = |name: &str| f::NAMES.iter().position(|n| *n == name).unwrap();
    let calls = THREADS * ROUNDS;
    for p in &ranks {
        let got = |name: &str| p.counters[at(name)];
        assert_eq!(got("MPI_ALLREDUCE_CALL_COUNT"), calls, "{mpi:?} rank {}", p.rank);
        assert_eq!(got("MPI_ALLREDUCE_TOTAL_BYTES"), calls * 4, "{mpi:?} rank {}", p.rank);
        assert_eq!(got("MPI_IPROBE_CALL_COUNT"), calls, "{mpi:?} rank {}", p.rank);
        assert_eq!(got("MPI_TEST_CALL_COUNT"), calls, "{mpi:?} rank {}", p.rank);
        let all: u64 = f::CALL_COUNTS.iter().map(|&k| p.counters[k]).sum();
        assert_eq!(all, 3 * calls, "{mpi:?} rank {}: other operations counted", p.rank);
    }
}

on_both_mpis!(
    a_killed_jobs_files_merge_into_its_profile_with_the_shutdowns_totals,
    every_rank_counts_the_calls_its_pattern_makes,
    collectives_synchronised_on_request_have_sync_times,
    a_job_that_does_not_ask_has_no_apmpi_region,
    calls_from_threads_at_once_are_each_counted_once,
);

/// A serial program built against an MPI stub library (mpi-serial's kind:
/// MPI_ functions that succeed and do nothing, no PMPI_ layer) had every
/// wrapped MPI call fail under the runtime: our wrappers looked for
/// PMPI_x alone and, finding none, returned MPI_ERR_OTHER. Now they pass
/// the call to the next MPI_x; with APMPI on or off, each call reaches
/// the stub and returns its 0.
#[test]
fn an_mpi_stub_library_without_pmpi_functions_had_its_calls_fail_in_our_wrappers() {
    let dir = scratch("apmpi_stub");
    let programs = common::root().join("tests/programs");
    let lib = dir.join("libmpi_stub.so");
    let cc = |args: &[&std::ffi::OsStr]| {
        let st = darshan_test_support::status(Command::new("cc").args(args));
        assert!(st.success(), "cc {args:?}");
    };
    cc(&[
        "-shared".as_ref(),
        "-fPIC".as_ref(),
        "-o".as_ref(),
        lib.as_os_str(),
        programs.join("mpi_stub.c").as_os_str(),
    ]);
    let exe = dir.join("mpi_stub_main");
    let rpath = format!("-Wl,-rpath,{}", dir.display());
    cc(&[
        "-o".as_ref(),
        exe.as_os_str(),
        programs.join("mpi_stub_main.c").as_os_str(),
        lib.as_os_str(),
        rpath.as_ref(),
    ]);
    for apmpi in ["", "APMPI"] {
        let out = darshan_test_support::output(
            Command::new(&exe)
                .env("LD_PRELOAD", common::lib())
                .env("DARSHAN_MOD_ENABLE", apmpi)
                .env("DARSHAN_LOGPATH", dir.join("logs"))
                .env("DARSHAN_MMAP_LOGPATH", dir.join("mmap")),
        );
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && said == "calls=8\n",
            "APMPI '{apmpi}': {said} {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
