//! darshan-study on ingested logs with known answers: the planted Cray
//! XE6 jobs (and only they) are found, the timeline's JSC and FSU figures
//! on two hand-made jobs, the HTML page and the JSON.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use darshan_ingest::synth::{self, Planted};
use darshan_ingest::{run, store::Store};
use darshan_log::counters::posix as p;
use darshan_log::{Job, NameTable};
use darshan_report::diagnose::Config;
use darshan_study::{study, Options, Study};

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("study").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ingest(tree: &Path, db: &Path) {
    let mut store = Store::open(db).unwrap();
    let opts = run::Options { jobs: 2, progress: false, commit_every: None, stop: None };
    let sum = run::ingest(&[tree.to_path_buf()], &mut store, &opts).unwrap();
    assert_eq!(sum.failed, 0, "{:?}", sum.errors);
}

fn jobids(s: &Study, table: &str) -> BTreeSet<i64> {
    let t = s.table(table).unwrap();
    (0..t.rows.len()).map(|i| t.num(i, "jobid") as i64).collect()
}

#[test]
fn the_planted_jobs_and_only_they_match_the_xe6_metrics() {
    let dir = out_dir("xe6");
    let gen = synth::generate(&dir.join("tree"), 3000, 5).unwrap();
    let db = dir.join("s.db");
    ingest(&dir.join("tree"), &db);
    let s = study(&db, &Options::default()).unwrap();
    let planted =
        |k: Planted| -> BTreeSet<i64> { gen.iter().filter(|g| g.planted == Some(k)).map(|g| g.jobid).collect() };
    assert_eq!(planted(Planted::RedundantReads).len(), 3);
    assert_eq!(jobids(&s, "redundant_reads"), planted(Planted::RedundantReads));
    assert_eq!(jobids(&s, "metadata_heavy"), planted(Planted::MetadataHeavy));
    assert_eq!(jobids(&s, "small_shared_writes"), planted(Planted::SmallSharedWrites));
    // 2 TiB read from a 1 GiB file: 2 TiB − 1 GiB redundant.
    let r = s.table("redundant_reads").unwrap();
    assert_eq!(r.num(0, "redundant_bytes") as i64, (2i64 << 40) - (1 << 30));
    let m = s.table("metadata_heavy").unwrap();
    assert!(m.num(0, "meta_seconds_per_process") > 40.0 && m.num(0, "metadata_ratio") > 0.9);
    // The tables add up: every job once in the size table.
    let sizes = s.table("jobs_by_size").unwrap();
    let jobs: f64 = (0..sizes.rows.len()).map(|i| sizes.num(i, "jobs")).sum();
    assert_eq!(jobs as i64, 3000);
    assert_eq!(s.logs.total, 3000);
}

/// Two jobs on a 600 s grid starting at T:
/// * A: 2 processes, rank 0 writes 1200 B in 12 writes over [0, 1200) s;
/// * B: starts at T + 600, 4 processes, a shared file read 4 × 1 MiB
///   over [0, 600) s.
fn hand_made(dir: &Path) -> PathBuf {
    const T: i64 = 1_790_812_800;
    let tree = dir.join("tree");
    let job = |jobid: i64, start: i64, nprocs: i64| Job {
        uid: 1000,
        start_time_sec: start,
        start_time_nsec: 0,
        end_time_sec: T + 1200,
        end_time_nsec: 0,
        nprocs,
        jobid,
        metadata: b"lib_ver=3.5.0\n".to_vec(),
        exe_mnt: b"/bin/app\nxfs /data".to_vec(),
    };
    let mut names = NameTable::new();
    names.insert(darshan_log::record_id(b"/data/a"), b"/data/a");
    let mut a = synth::posix_io("/data/a", 0, 0, 12, 100, 0.0, 1200.0);
    a.fcounters[p::F_WRITE_END_TIMESTAMP] = 1200.0;
    synth::write_log(&tree.join("alice_a_id1-1_11-1-0-1_1.darshan"), &job(1, T, 2), &names, vec![a]).unwrap();
    let mut names = NameTable::new();
    names.insert(darshan_log::record_id(b"/data/b"), b"/data/b");
    let b = synth::posix_io("/data/b", -1, 4, 0, 1 << 20, 0.0, 600.0);
    synth::write_log(&tree.join("bob_b_id2-2_11-1-600-2_1.darshan"), &job(2, T + 600, 4), &names, vec![b]).unwrap();
    tree
}

#[test]
fn the_timeline_has_the_jsc_and_fsu_values_of_two_hand_made_jobs() {
    let dir = out_dir("timeline");
    let db = dir.join("t.db");
    ingest(&hand_made(&dir), &db);
    let config =
        Config::from_json(r#"{"fsu": {"a0_read": 0.5, "a1_read": 1e-6, "a0_write": 2, "a1_write": 0}}"#).unwrap();
    let s = study(&db, &Options { interval: 600.0, config }).unwrap();
    let tl = &s.timeline;
    assert_eq!(tl.intervals, 3, "T .. T+1200 on a 600 s grid");
    assert_eq!(tl.servers, "processes");
    assert_eq!(tl.points.len(), 2);
    let (i0, i1) = (&tl.points[0], &tl.points[1]);
    assert_eq!((i0.write_bytes, i1.write_bytes), (600.0, 600.0));
    assert_eq!((i0.read_bytes, i1.read_bytes), (0.0, 4194304.0));
    // c = 0: A's rank 0 alone, then A's rank 0 and B's four processes.
    assert_eq!(i0.active_servers, [1, 0, 0]);
    assert_eq!(i1.active_servers, [5, 4, 0], "B's 1 MiB per process is above 128 KiB, not above 1 MiB");
    assert_eq!(tl.parallel_intensity, [Some(3.0), Some(4.0), None]);
    // ρ: the busiest interval over the mean of the three.
    let mean0 = (600.0 + 600.0 + 4194304.0) / 3.0;
    assert_eq!(tl.burstiness[0], Some((600.0 + 4194304.0) / mean0));
    let mean1 = (600.0 + 4194304.0) / 3.0;
    assert_eq!(tl.burstiness[1], Some((600.0 + 4194304.0) / mean1));
    assert_eq!(tl.burstiness[2], Some(3.0));
    // FSU: interval 0 has 6 writes (2 s each); interval 1 has 6 writes
    // and 4 reads of 1 MiB (0.5 s + 1e-6 s/B each).
    let fsu0 = 100.0 / 600.0 * (6.0 * 2.0);
    let fsu1 = 100.0 / 600.0 * (6.0 * 2.0 + 4.0 * 0.5 + 4194304.0 * 1e-6);
    assert!((i0.fsu_percent - fsu0).abs() < 1e-9, "{} vs {fsu0}", i0.fsu_percent);
    assert!((i1.fsu_percent - fsu1).abs() < 1e-9, "{} vs {fsu1}", i1.fsu_percent);
    assert!((i1.bandwidth_percent - 100.0 / 600.0 * 4194304.0 * 1e-6).abs() < 1e-9);
    assert!((tl.fsu_mean_percent - (fsu0 + fsu1) / 3.0).abs() < 1e-9);
    // The sharing table sees A's file as unique and B's as shared.
    let sh = s.table("sharing_by_size").unwrap();
    let total = |c: &str| (0..sh.rows.len()).map(|i| sh.num(i, c)).sum::<f64>();
    assert_eq!((total("unique_files"), total("shared_files"), total("partially_shared_files")), (1.0, 1.0, 0.0));
}

#[test]
fn the_page_and_the_json_come_from_the_command() {
    let dir = out_dir("cli");
    let db = dir.join("t.db");
    ingest(&hand_made(&dir), &db);
    let exe = env!("CARGO_BIN_EXE_darshan-study");
    let html = dir.join("study.html");
    let out = darshan_test_support::output_within(
        std::process::Command::new(exe).arg("--db").arg(&db).arg("-o").arg(&html),
        Duration::from_secs(60),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&html).unwrap();
    for id in ["overview", "jobs_by_size", "interfaces_by_size", "redundant_reads", "timeline", "bad-logs"] {
        assert!(page.contains(&format!("<section id=\"{id}\">")), "section {id} missing");
    }
    assert!(page.contains("<svg") && !page.contains("http://") && !page.contains("https://"));
    let out = darshan_test_support::output_within(
        std::process::Command::new(exe).arg("--db").arg(&db).arg("--json"),
        Duration::from_secs(60),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "darshan-study/1");
    assert_eq!(v["logs"]["total"], 2);
    // The coefficients sit beside their source, as the page reads them.
    assert!(v["fsu"]["a0_read"].is_number() && v["fsu"]["source"].is_string(), "{}", v["fsu"]);
    // Bad input: a clear error, not a panic.
    let out = darshan_test_support::output_within(
        std::process::Command::new(exe).args(["--db", "/nonexistent/x.db"]),
        Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such database"));
}

/// A 200,000-record job that claims to have run for a year, its records
/// without times of their own, would spread each record over 52,704
/// ten-minute intervals: 10^10 pieces, hours of work from one log. The
/// timeline widens Δt to stay within its budget, and says so.
#[test]
fn a_year_long_job_of_many_records_widens_the_interval_instead_of_running_for_hours() {
    let dir = out_dir("widened");
    let db = dir.join("w.db");
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/big/open_storm_200k.darshan");
    let mut store = Store::open(&db).unwrap();
    let opts = run::Options { jobs: 2, progress: false, commit_every: None, stop: None };
    assert_eq!(run::ingest(&[log], &mut store, &opts).unwrap().ingested, 1);
    drop(store);
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "UPDATE jobs SET end_time = start_time + 31000000;
         UPDATE posix_records SET POSIX_F_READ_END_TIMESTAMP = 0, POSIX_F_WRITE_END_TIMESTAMP = 0;",
    )
    .unwrap();
    drop(c);
    let out = darshan_test_support::output_within(
        std::process::Command::new(env!("CARGO_BIN_EXE_darshan-study")).arg("--json").arg("--db").arg(&db),
        Duration::from_secs(600),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tl = &v["timeline"];
    assert_eq!(tl["requested_interval_seconds"], 600.0);
    let dt = tl["interval_seconds"].as_f64().unwrap();
    // 200,000 records over 31,000,000 s within the budget of pieces.
    let pieces = 200_000.0 * (31_000_000.0 / dt + 2.0);
    assert!(pieces <= darshan_study::timeline::SPREAD_BUDGET, "{dt}: {pieces}");
    assert!(
        dt < 4.0 * 31_000_000.0 * 200_000.0 / darshan_study::timeline::SPREAD_BUDGET,
        "not wider than needed: {dt}"
    );
    // Every byte is still placed.
    let written: f64 = tl["points"].as_array().unwrap().iter().map(|p| p["write_bytes"].as_f64().unwrap()).sum();
    let want: f64 = v["tables"].as_array().unwrap().iter().find(|t| t["name"] == "read_write_mix").unwrap()["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[4].as_f64().unwrap())
        .sum();
    assert!((written - want).abs() <= 1e-6 * want, "{written} against {want}");
}

/// The jobs and users with the most namespace operations (POSIX_META):
/// alice's job removes 500 files and lists their directory 4 times, bob's
/// renames 3 and makes 2 directories; carol's does none.
#[test]
fn the_busiest_namespace_jobs_and_users_come_first() {
    use darshan_log::counters::posix_meta as m;
    const T: i64 = 1_790_812_800;
    let dir = out_dir("namespace");
    let tree = dir.join("tree");
    let job = |jobid: i64, nprocs: i64| Job {
        uid: 1000 + jobid,
        start_time_sec: T,
        start_time_nsec: 0,
        end_time_sec: T + 100,
        end_time_nsec: 0,
        nprocs,
        jobid,
        metadata: b"lib_ver=3.5.0\n".to_vec(),
        exe_mnt: b"/bin/app\nxfs /data".to_vec(),
    };
    let meta = |name: &str, set: &[(usize, i64)]| {
        let mut names = NameTable::new();
        names.insert(darshan_log::record_id(name.as_bytes()), name.as_bytes());
        let mut r = synth::blank(darshan_log::modules::POSIX_META, name, -1);
        for &(k, v) in set {
            r.counters[k] = v;
        }
        (names, r)
    };
    let (n, a) = meta("/data/tmp", &[(m::UNLINKS, 500), (m::OPENDIRS, 4), (m::DIR_ENTRIES, 2008)]);
    synth::write_log(&tree.join("alice_a_id1-1_11-1-0-1_1.darshan"), &job(1, 4), &n, vec![a]).unwrap();
    let (n, b) = meta("/data/out", &[(m::RENAMES_FROM, 3), (m::MKDIRS, 2), (m::CHMODS, 9)]);
    synth::write_log(&tree.join("bob_b_id2-2_11-1-0-2_1.darshan"), &job(2, 1), &n, vec![b]).unwrap();
    let c = synth::posix_io("/data/c", 0, 1, 0, 100, 0.0, 1.0);
    let mut n = NameTable::new();
    n.insert(darshan_log::record_id(b"/data/c"), b"/data/c");
    synth::write_log(&tree.join("carol_c_id3-3_11-1-0-3_1.darshan"), &job(3, 1), &n, vec![c]).unwrap();
    let db = dir.join("n.db");
    ingest(&tree, &db);
    let s = study(&db, &Options::default()).unwrap();
    let jobs = s.table("namespace_jobs").unwrap();
    assert_eq!(jobs.rows.len(), 2, "carol's job has no namespace operations");
    assert_eq!((jobs.num(0, "jobid"), jobs.num(0, "namespace_ops")), (1.0, 504.0));
    assert_eq!((jobs.num(1, "jobid"), jobs.num(1, "namespace_ops")), (2.0, 5.0), "chmods are not namespace operations");
    let users = s.table("namespace_users").unwrap();
    assert_eq!((users.text(0, "username"), users.num(0, "namespace_ops")), ("alice".to_string(), 504.0));
    assert_eq!(users.text(1, "username"), "bob");
}

/// An application run 10 times with its own small noise, whose 9th run
/// wrote 4 KiB requests instead of 1 MiB ones (bucket 100K_1M: Darshan
/// counts 1 MiB in the bucket it ends): that run, and only it, is
/// in the regressions table, with the size buckets and bytes that moved;
/// an application run 3 times is not judged.
#[test]
fn the_one_run_that_changed_its_writes_is_the_regression() {
    const T: i64 = 1_790_812_800;
    let dir = out_dir("regressions");
    let tree = dir.join("tree");
    let job = |exe: &[u8], jobid: i64, start: i64| Job {
        uid: 1000,
        start_time_sec: start,
        end_time_sec: start + 60 + jobid % 4,
        nprocs: 4,
        jobid,
        metadata: b"lib_ver=3.5.0\n".to_vec(),
        exe_mnt: [exe, b"\nxfs /data".as_slice()].concat(),
        ..Default::default()
    };
    let mut names = NameTable::new();
    names.insert(darshan_log::record_id(b"/data/out"), b"/data/out");
    for i in 0..10i64 {
        let size = if i == 8 { 4096 } else { 1 << 20 };
        let rec = synth::posix_io("/data/out", 0, 0, 100 + i % 3, size, 0.0, 10.0 + (i % 3) as f64);
        let path = tree.join(format!("u_steady_id{}-1_1-1-1-1_1.darshan", 100 + i));
        synth::write_log(&path, &job(b"/bin/steady -n 4", 100 + i, T + 3600 * i), &names, vec![rec]).unwrap();
    }
    for i in 0..3i64 {
        let rec = synth::posix_io("/data/out", 0, 0, 100, 1 << 20, 0.0, 10.0);
        let path = tree.join(format!("u_rare_id{}-1_1-1-1-1_1.darshan", 200 + i));
        synth::write_log(&path, &job(b"/bin/rare", 200 + i, T + 3600 * i), &names, vec![rec]).unwrap();
    }
    let db = dir.join("r.db");
    ingest(&tree, &db);
    let g = study(&db, &Options::default()).unwrap().regressions;
    assert!(g.available);
    assert_eq!((g.judged, g.moved), (5, 1), "runs 6 to 10 of steady are judged: {g:#?}");
    assert_eq!(g.apps.iter().map(|a| a.app.as_str()).collect::<Vec<_>>(), ["steady"]);
    assert_eq!(g.runs.len(), 1);
    // Runs an hour apart from 2026-10-01: all in the week of Monday 2026-09-28.
    assert_eq!(g.weeks.len(), 1);
    assert_eq!((g.weeks[0].start, g.weeks[0].judged, g.weeks[0].moved), (1_790_553_600, 5, 1));
    let r = &g.runs[0];
    assert_eq!((r.jobid, r.earlier), (108, 8));
    let moved: BTreeSet<(&str, &str, &str)> =
        r.figures.iter().map(|f| (f.scope.as_str(), f.fact.as_str(), f.direction.as_str())).collect();
    for m in [("POSIX", "write_1K_10K", "up"), ("POSIX", "write_100K_1M", "down"), ("job", "bytes_written", "down")] {
        assert!(moved.contains(&m), "{m:?} not in {moved:?}");
    }
    assert!(!moved.iter().any(|m| m.1 == "run_time" || m.1 == "files"), "{moved:?}");
}

/// A study run as root opened its database by name through whatever the
/// name held: another user's link there had it read (and, opened
/// read-write, checkpoint into) the database the link named. Refused in
/// one line now; the tester's own link is followed, as open(2) would.
#[test]
fn a_study_as_root_opened_the_database_through_another_users_link() {
    let dir = out_dir("planted-link");
    let tree = dir.join("tree");
    synth::generate(&tree, 5, 2).unwrap();
    let db = dir.join("real.db");
    ingest(&tree, &db);
    let own = dir.join("own.db");
    std::os::unix::fs::symlink(&db, &own).unwrap();
    assert!(darshan_study::open(&own).is_ok(), "one's own link is followed");
    let planted = dir.join("planted.db");
    std::os::unix::fs::symlink(&db, &planted).unwrap();
    if std::os::unix::fs::lchown(&planted, Some(65534), Some(65534)).is_err() {
        eprintln!("not root: the link cannot be another user's; skipped");
        return;
    }
    let e = darshan_study::open(&planted).expect_err("opened through another user's link").to_string();
    assert!(e.contains("the database is a symbolic link owned by another user: not followed"), "{e}");
    let history = darshan_history::runs::open(&planted).expect_err("darshan-history opened it");
    assert!(history.contains("not followed"), "{history}");
}

/// The two corpus logs with AutoPerf's APMPI records: the study's MPI
/// tables hold both jobs; a database ingested before schema 5 (no
/// mpi_comm, no mpi_ops) is studied as one whose jobs have no such
/// records, the rest of the study unchanged.
#[test]
fn mpi_communication_is_studied_and_a_database_without_its_tables_still_is() {
    let dir = out_dir("mpi");
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    for log in ["apmpi__darshan-apmpi-2nodes-64mpi.darshan", "apmpi_apxc__mpi-io-test.darshan"] {
        std::fs::copy(corpus.join(log), tree.join(log)).unwrap();
    }
    let db = dir.join("f.db");
    ingest(&tree, &db);
    let s = study(&db, &Options::default()).unwrap();
    let share = s.table("mpi_comm_share").unwrap();
    let jobs: f64 = (0..share.rows.len()).map(|i| share.num(i, "jobs")).sum();
    assert_eq!(jobs, 2.0, "{:?}", share.rows);
    let ops = s.table("mpi_operations").unwrap();
    // Both jobs call MPI_BARRIER and MPI_ALLREDUCE (PyDarshan reads them:
    // tests/facility/check_mpi_comm_db.py); the shares add up to about all
    // of the ranks' communication seconds.
    let row = |op: &str| (0..ops.rows.len()).find(|&i| ops.text(i, "operation") == op).unwrap();
    assert_eq!(ops.num(row("MPI_BARRIER"), "jobs"), 2.0);
    assert_eq!(ops.num(row("MPI_ALLREDUCE"), "jobs"), 2.0);
    let pct: f64 = (0..ops.rows.len()).map(|i| ops.num(i, "percent_of_comm_time")).sum();
    assert!((90.0..=110.0).contains(&pct), "{pct}");
    {
        let c = rusqlite::Connection::open(&db).unwrap();
        c.execute_batch("DROP TABLE mpi_comm; DROP TABLE mpi_ops;").unwrap();
    }
    let old = study(&db, &Options::default()).unwrap();
    assert!(old.table("mpi_comm_share").unwrap().rows.is_empty());
    assert!(old.table("mpi_operations").unwrap().rows.is_empty());
    assert_eq!(old.table("jobs_by_size").unwrap().rows, s.table("jobs_by_size").unwrap().rows);
}

/// Two jobs of 4 processes each wrote 1,500,000 times to a shared file
/// without collective I/O, one in 512 KiB requests and one in 1 MiB
/// requests, a stripe each. The study listed both as "≥ 1 million small
/// (< 1 MiB) writes to shared files": the 100K_1M bucket holds requests
/// of exactly 1 MiB too. The records' common access size tells them
/// apart, as on a real log (`POSIX_ACCESS1_ACCESS`/`_COUNT`).
#[test]
fn a_million_shared_writes_of_exactly_1_mib_were_listed_as_small() {
    let dir = out_dir("mib");
    let tree = dir.join("tree");
    for (jobid, size) in [(1i64, 512i64 << 10), (2, 1 << 20)] {
        let name = format!("/lustre/out/{jobid}.dat");
        let mut names = NameTable::new();
        names.insert(darshan_log::record_id(name.as_bytes()), name.as_bytes());
        let mut r = synth::posix_io(&name, -1, 0, 1_500_000, size, 0.0, 100.0);
        (r.counters[p::ACCESS1_ACCESS], r.counters[p::ACCESS1_COUNT]) = (size, 1_500_000);
        let job = Job {
            uid: 1000,
            start_time_sec: 1_790_812_800,
            start_time_nsec: 0,
            end_time_sec: 1_790_812_900,
            end_time_nsec: 0,
            nprocs: 4,
            jobid,
            metadata: b"lib_ver=3.5.0\n".to_vec(),
            exe_mnt: b"/bin/app\nlustre /lustre".to_vec(),
        };
        let log = tree.join(format!("ann_app_id{jobid}-{jobid}_11-1-600-{jobid}_1.darshan"));
        std::fs::create_dir_all(&tree).unwrap();
        synth::write_log(&log, &job, &names, vec![r]).unwrap();
    }
    let db = dir.join("s.db");
    ingest(&tree, &db);
    let s = study(&db, &Options::default()).unwrap();
    assert_eq!(jobids(&s, "small_shared_writes"), BTreeSet::from([1]));
}
