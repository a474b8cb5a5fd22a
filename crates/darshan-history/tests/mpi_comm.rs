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

/// A straggler in MPI: the tenth run's rank 2 spends 30 s in
/// MPI_Allreduce, the others 8 s as before. History named the slowest
/// rank in I/O but not in communication; it names rank 2, against the
/// rank that was usually slowest (rank 3: the runs' noise, 0.05 s ×
/// ((run + rank) mod 5), puts it there in 4 of the 8 earlier runs).
#[test]
fn history_did_not_name_the_slowest_rank_in_mpi_communication() {
    let d = out_dir("straggler");
    let opts = history_of(&d, |tree, i| run_log(tree, i, 8.0));
    let log = run_log(&d.join("straggler"), 9, 8.0);
    // The same run, its rank 2 held up in MPI_Allreduce.
    let slow = straggler(&log, &d.join("slow"), 2, 30.0);
    let s = compare(&slow, &opts).unwrap();
    let note = s.ranks.iter().find(|r| r.scope == "APMPI").unwrap_or_else(|| panic!("{:?}", s.ranks));
    assert_eq!((note.rank, note.usual_rank), (2, Some(3)), "{note:?}");
    assert!((32.0..32.3).contains(&note.time), "{note:?}");
    assert!(
        note.said.starts_with("rank 2 is the slowest now, ")
            && note.said.contains(" in MPI communication; the slowest was usually rank 3"),
        "{}",
        note.said
    );
    let change = s.changes.iter().find(|c| c.fact == "slowest_rank_comm_time").unwrap();
    assert!(change.carriers.contains(&note.said), "{change:?}");

    // A database whose earlier runs were stored before the rank was:
    // which rank was usually slowest is not known, and not made up.
    let conn = rusqlite::Connection::open(&opts.db).unwrap();
    let gone = conn.execute("DELETE FROM job_facts WHERE module = 'APMPI' AND fact = 'slowest_rank'", []).unwrap();
    assert_eq!(gone, 8);
    drop(conn);
    let s = compare(&slow, &opts).unwrap();
    let note = s.ranks.iter().find(|r| r.scope == "APMPI").unwrap();
    assert_eq!((note.rank, note.usual_rank), (2, None), "{note:?}");
    assert!(note.said.contains("in MPI communication; the slowest rank usually had"), "{}", note.said);
}

/// `log` written again to `dir` with rank `r`'s MPI_Allreduce at
/// `seconds`.
fn straggler(log: &Path, dir: &Path, r: i64, seconds: f64) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let l = darshan_log::LogFile::open(log).unwrap();
    let mut reader = darshan_log::autoperf::ApmpiReader::new(&l).unwrap();
    let (mut header, mut ranks) = (None, Vec::new());
    while let Some(rec) = reader.next_record().unwrap() {
        match rec {
            darshan_log::autoperf::Apmpi::Header(h) => header = Some(h),
            darshan_log::autoperf::Apmpi::Perf(mut p) => {
                if p.rank == r {
                    let t = at(&c::F_TIME_NAMES, "MPI_ALLREDUCE_TOTAL_TIME");
                    p.global[0] += seconds - p.time[t];
                    p.time[t] = seconds;
                }
                ranks.push(*p);
            }
        }
    }
    let io = (0..4).map(|r| synth::posix_io("/scratch/out.dat", r, 0, 100, 1 << 20, 1.0, 2.0)).collect();
    let out = dir.join(log.file_name().unwrap());
    synth::write_apmpi_log(&out, &l.job, io, &header.unwrap(), &ranks).unwrap();
    out
}
