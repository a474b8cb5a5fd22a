//! A run whose time went to MPI communication rather than to I/O is told
//! from its history: eight runs of one application with AutoPerf's APMPI
//! records, whose ranks spend about 10 s in MPI (8 s of it in
//! MPI_Allreduce), then a ninth like them (nothing moved) and a tenth whose
//! MPI_Allreduce takes 30 s per rank with the same calls and the same I/O
//! (the communication moved, and only it).

use std::path::{Path, PathBuf};

use darshan_history::{compare, Options, Status};
use darshan_ingest::{run, store::Store, synth};
use darshan_log::autoperf::{perf_from, Header, Perf};
use darshan_log::counters::apmpi as c;
use darshan_log::Job;

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("history-mpi").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn at(names: &[&str], name: &str) -> usize {
    names.iter().position(|n| *n == name).unwrap_or_else(|| panic!("{name}"))
}

/// One rank's record: `allreduce` seconds in 1,000 MPI_Allreduce calls,
/// 2 s in 50 MPI_Barrier calls.
fn rank(r: i64, allreduce: f64) -> Perf {
    let mut p = perf_from(&[0u8; c::PERF_SIZE], false);
    p.rank = r;
    p.counters[at(&c::NAMES, "MPI_ALLREDUCE_CALL_COUNT")] = 1000;
    p.counters[at(&c::NAMES, "MPI_ALLREDUCE_TOTAL_BYTES")] = 8000;
    p.time[at(&c::F_TIME_NAMES, "MPI_ALLREDUCE_TOTAL_TIME")] = allreduce;
    p.counters[at(&c::NAMES, "MPI_BARRIER_CALL_COUNT")] = 50;
    p.time[at(&c::F_TIME_NAMES, "MPI_BARRIER_TOTAL_TIME")] = 2.0;
    p.global = [allreduce + 2.0, 0.0];
    p.node_name[..5].copy_from_slice(b"nid01");
    p
}

/// Run `i` of the application (4 ranks, 100 s, the same POSIX I/O every
/// time), its ranks' MPI_Allreduce taking `allreduce` seconds each; None:
/// a run without AutoPerf (no APMPI records).
fn run_log(dir: &Path, i: i64, allreduce: impl Into<Option<f64>>) -> PathBuf {
    let job = Job {
        uid: 1000,
        start_time_sec: 1_700_000_000 + i * 1000,
        end_time_sec: 1_700_000_100 + i * 1000,
        nprocs: 4,
        jobid: 100 + i,
        exe_mnt: b"/apps/solver -n 64\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: b"lib_ver=3.5.0\n".to_vec(),
    };
    let io = (0..4).map(|r| synth::posix_io("/scratch/out.dat", r, 0, 100, 1 << 20, 1.0, 2.0)).collect();
    let path = dir.join(format!("alice_solver_id{}-{}_1-1-1-1_1.darshan", 100 + i, 100 + i));
    let Some(allreduce) = allreduce.into() else {
        synth::write_log(&path, &job, &darshan_log::NameTable::new(), io).unwrap();
        return path;
    };
    // Run-to-run noise: a few tenths of a second per rank.
    let ranks: Vec<Perf> = (0..4).map(|r| rank(r, allreduce + 0.05 * ((i + r) % 5) as f64)).collect();
    let header = Header { id: 1, rank: 0, magic: c::MAGIC, sync_flag: 0, ..Default::default() };
    synth::write_apmpi_log(&path, &job, io, &header, &ranks).unwrap();
    path
}

/// The runs written by `earlier`, ingested into a database of their own.
fn history_of(d: &Path, earlier: impl Fn(&Path, i64) -> PathBuf) -> Options {
    let tree = d.join("tree");
    for i in 0..8 {
        earlier(&tree, i);
    }
    let db = d.join("f.db");
    let mut store = Store::open(&db).unwrap();
    let opts = run::Options { jobs: 2, progress: false, commit_every: None, stop: None };
    assert_eq!(run::ingest(&[tree], &mut store, &opts).unwrap().failed, 0);
    Options::new(db)
}

#[test]
fn a_run_whose_mpi_communication_slowed_is_told_and_one_like_the_others_is_not() {
    let d = out_dir("slowed");
    let opts = history_of(&d, |tree, i| run_log(tree, i, 8.0));

    let like = compare(&run_log(&d.join("like"), 8, 8.0), &opts).unwrap();
    assert_eq!(like.status, Status::Consistent, "{}: {:?}", like.said, like.changes);

    let slow = compare(&run_log(&d.join("slow"), 9, 30.0), &opts).unwrap();
    assert_eq!(slow.status, Status::Changed, "{}", slow.said);
    let moved: Vec<(&str, &str, &str)> =
        slow.changes.iter().map(|c| (c.scope.as_str(), c.fact.as_str(), c.direction.as_str())).collect();
    for fact in ["comm_time", "slowest_rank_comm_time", "MPI_ALLREDUCE_time"] {
        assert!(moved.contains(&("APMPI", fact, "up")), "{fact} not among {moved:?}");
    }
    assert!(moved.iter().all(|m| m.0 == "APMPI" || m.1 == "run_time"), "only the communication moved: {moved:?}");
    assert!(!moved.iter().any(|m| m.1 == "MPI_ALLREDUCE_calls" || m.1.starts_with("MPI_BARRIER")), "{moved:?}");
    let allreduce = slow.changes.iter().find(|c| c.fact == "MPI_ALLREDUCE_time").unwrap();
    assert_eq!(allreduce.label, "time in MPI_ALLREDUCE, all ranks");
    // 4 ranks at 30 s and a little noise, against 4 at about 8 s.
    assert!((120.0..121.0).contains(&allreduce.now) && (32.0..33.0).contains(&allreduce.band.median), "{allreduce:?}");
    assert!(slow.said.contains("APMPI time in MPI communication, all ranks (up)"), "{}", slow.said);
}

/// The first run with AutoPerf after runs without it was told that every
/// MPI figure had gone up from 0 s: runs without APMPI records did not
/// spend no time in MPI, their communication is unknown. Neither that run
/// nor one without AutoPerf after runs with it is a change.
#[test]
fn runs_without_apmpi_records_made_every_mpi_figure_of_the_first_run_with_them_move() {
    let d = out_dir("first-with-autoperf");
    let opts = history_of(&d, |tree, i| run_log(tree, i, None));
    let first = compare(&run_log(&d.join("first"), 8, 30.0), &opts).unwrap();
    assert_eq!(first.status, Status::Consistent, "{}: {:?}", first.said, first.changes);

    let d = out_dir("autoperf-gone");
    let opts = history_of(&d, |tree, i| run_log(tree, i, 8.0));
    let without = compare(&run_log(&d.join("without"), 8, None), &opts).unwrap();
    assert_eq!(without.status, Status::Consistent, "{}: {:?}", without.said, without.changes);
}
