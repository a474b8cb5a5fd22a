//! darshan-summary --history on real runs: an MPI program run 8 times
//! under the runtime, with its own run-to-run noise, ingested into a
//! database; then (a) a 9th identical run is consistent with them, (b) a
//! run whose per-rank writes became 20 bytes instead of 1 MiB names the
//! size buckets and the files, (c) a run with an extra rank-0-only file
//! and a slow rank names both, (d) an application with 3 runs is too few
//! to judge. Each through darshan-summary's --json; the same database and
//! logs are left in target/history-test for the pages' check in Chromium
//! (tests/report/check_history.py, run by `just test`).
//!
//! One test: its runs must not share the machine with each other.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::mpi::{self, Mpi};
use common::*;
use serde_json::Value;

fn run(exe: &Path, data: &Path, dir: &Path, tag: &str, args: &[&str]) -> PathBuf {
    let rd = dir.join("runs").join(tag);
    std::fs::create_dir_all(rd.join("logs")).unwrap();
    std::fs::create_dir_all(rd.join("mmap")).unwrap();
    let mut a = vec![data.to_str().unwrap()];
    a.extend_from_slice(args);
    let logs = mpi::mpirun(Mpi::OpenMpi, exe, &a, &rd, &[]);
    assert_eq!(logs.len(), 1, "{tag}: one log: {logs:?}");
    logs[0].clone()
}

fn keep(log: &Path, dir: &Path, name: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let to = dir.join(name);
    std::fs::copy(log, &to).unwrap();
    to
}

fn history(db: &Path, log: &Path) -> Value {
    let out = output_within(
        Command::new(built("darshan-summary")).arg("--history").arg(db).args(["--json", "-o", "-"]).arg(log),
        std::time::Duration::from_secs(120),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["history"].clone()
}

fn changes(h: &Value) -> Vec<(String, String, String, Vec<String>)> {
    h["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let carriers = c["carriers"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
            (s(&c["scope"]), s(&c["fact"]), s(&c["direction"]), carriers)
        })
        .collect()
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn change<'a>(
    all: &'a [(String, String, String, Vec<String>)],
    scope: &str,
    fact: &str,
) -> &'a (String, String, String, Vec<String>) {
    all.iter().find(|c| c.0 == scope && c.1 == fact).unwrap_or_else(|| panic!("no change in {scope} {fact}: {all:?}"))
}

/// Eight runs of the usual program and three of one run rarely, in a new
/// database; then the four scenarios' logs: (the database, [same, small
/// writes, extra file and a slow rank, too few]).
fn history_and_scenarios() -> (PathBuf, [PathBuf; 4]) {
    let d = root().join("target/history-test");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let exe = mpi::mpicc(Mpi::OpenMpi, "history_app", &d);
    let few = d.join("history_few");
    std::fs::copy(&exe, &few).unwrap();
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let earlier = d.join("earlier");
    for i in 0..8 {
        keep(&run(&exe, &data, &d, &format!("h{i}"), &[]), &earlier, &format!("h{i}.darshan"));
    }
    for i in 0..3 {
        keep(&run(&few, &data, &d, &format!("f{i}"), &[]), &earlier, &format!("f{i}.darshan"));
    }
    let db = d.join("history.db");
    {
        let mut store = darshan_ingest::store::Store::open(&db).unwrap();
        let opts = darshan_ingest::run::Options { jobs: 2, progress: false, commit_every: None, stop: None };
        let sum = darshan_ingest::run::ingest(&[earlier], &mut store, &opts).unwrap();
        assert_eq!(sum.ingested, 11, "{:?}", sum.errors);
    }
    let scen = d.join("scenarios");
    let a = keep(&run(&exe, &data, &d, "a", &[]), &scen, "a-same.darshan");
    let b = keep(&run(&exe, &data, &d, "b", &["20"]), &scen, "b-small-writes.darshan");
    let c = keep(&run(&exe, &data, &d, "c", &["extra", "slow=2"]), &scen, "c-extra-file-slow-rank.darshan");
    let dd = keep(&run(&few, &data, &d, "d", &[]), &scen, "d-too-few.darshan");

    (db, [a, b, c, dd])
}

/// (b) 20-byte writes: the buckets that moved, and the files.
fn small_writes_are_named(db: &Path, log: &Path) {
    let h = history(db, log);
    assert_eq!(s(&h["status"]), "changed", "{h:#}");
    let all = changes(&h);
    let small = change(&all, "POSIX", "write_0_100");
    assert_eq!(small.2, "up");
    assert!(
        small.3.iter().any(|x| x.contains("rank#.dat: writes mostly 0-100 B now; 100 KiB-1 MiB in 8 of the 8")),
        "{small:?}"
    );
    assert_eq!(change(&all, "POSIX", "write_100K_1M").2, "down");
    assert_eq!(change(&all, "POSIX", "bytes_written").2, "down");
    assert!(!all.iter().any(|c| c.1 == "files"), "no file came or went: {all:?}");
}

/// (c) a rank-0-only file and a slow rank: both named.
fn a_new_file_and_a_slow_rank_are_named(db: &Path, log: &Path) {
    let h = history(db, log);
    assert_eq!(s(&h["status"]), "changed", "{h:#}");
    let all = changes(&h);
    let files = change(&all, "job", "files");
    assert!(files.3.iter().any(|x| x.contains("/extra.log: new in this run") && x.contains("by rank 0")), "{files:?}");
    let slow = change(&all, "job", "slowest_rank_time");
    // Which rank was usually the slowest is the earlier runs' noise: the
    // line names rank 2 either as the new slowest or as the usual one
    // with its new time.
    assert!(
        slow.3.iter().any(|x| x.starts_with("rank 2 is the slowest now") || x.starts_with("rank 2, the usual slowest")),
        "{slow:?}"
    );
    let ranks = h["ranks"].as_array().unwrap();
    assert!(ranks.iter().any(|r| r["scope"] == "job" && r["rank"] == 2), "{h:#}");
    let new: Vec<&Value> = h["files"].as_array().unwrap().iter().filter(|f| f["what"] == "new").collect();
    assert_eq!(new.len(), 1, "{h:#}");
    assert!(s(&new[0]["name"]).ends_with("/extra.log") && new[0]["rank"] == 0, "{h:#}");
}

#[test]
fn a_run_is_judged_against_its_own_history() {
    let (db, [a, b, c, dd]) = history_and_scenarios();
    // (a) the same run again: one line, nothing else.
    let h = history(&db, &a);
    assert_eq!(s(&h["status"]), "consistent", "{h:#}");
    assert!(s(&h["said"]).starts_with("consistent with 8 earlier runs of executable history_app.ompi"), "{h:#}");
    assert!(changes(&h).is_empty() && h["files"].as_array().unwrap().is_empty(), "{h:#}");

    small_writes_are_named(&db, &b);
    a_new_file_and_a_slow_rank_are_named(&db, &c);

    // (d) three runs: too few, the values shown.
    let h = history(&db, &dd);
    assert_eq!(s(&h["status"]), "too_few", "{h:#}");
    assert!(s(&h["said"]).starts_with("only 3 earlier runs of executable history_few"), "{h:#}");
    let values = h["values"].as_array().unwrap();
    assert!(!values.is_empty() && values.iter().all(|v| v["earlier_text"].as_array().unwrap().len() == 3), "{h:#}");
    assert!(changes(&h).is_empty());
}
