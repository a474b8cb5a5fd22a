//! darshan-ingest run as root over a facility's logs, its database and
//! Parquet dataset in directories other users may write: what another
//! user planted at a name the ingest writes is never followed, and a
//! FIFO in the database's place is never waited on.

use std::os::unix::fs::{lchown, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use darshan_ingest::{parquet_out, run, store::Store, synth};
use darshan_test_support::output_within;

/// Another user's id, given to the links a test plants.
const NOBODY: u32 = 65534;

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ingest-hostile").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A link at `at` to `to`, owned by another user (these tests run as root,
/// as a centre's ingest does; elsewhere the link stays the tester's).
fn planted_link(to: &Path, at: &Path) -> bool {
    symlink(to, at).unwrap();
    lchown(at, Some(NOBODY), Some(NOBODY)).is_ok()
}

fn ingested(dir: &Path, logs: usize) -> PathBuf {
    let tree = dir.join("tree");
    synth::generate(&tree, logs, 5).unwrap();
    let db = dir.join("d.db");
    let mut store = Store::open(&db).unwrap();
    let opts = run::Options { jobs: 1, progress: false, commit_every: None, stop: None };
    run::ingest(&[tree], &mut store, &opts).unwrap();
    db
}

fn entries(d: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(d).min_depth(1) {
        out.push(e.unwrap().into_path());
    }
    out
}

/// The export made each table's directory with `create_dir_all`, which
/// goes through a link at the name: another user's `pq/jobs -> /anywhere`
/// had root write the table's part files wherever the link pointed.
#[test]
fn a_link_planted_at_a_parquet_table_directory_was_written_through() {
    let dir = out_dir("table-link");
    let db = ingested(&dir, 40);
    let pq = dir.join("pq");
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&pq).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    if !planted_link(&elsewhere, &pq.join("jobs")) {
        eprintln!("not root: the link cannot be another user's; skipped");
        return;
    }
    let store = Store::open(&db).unwrap();
    let e = parquet_out::export(&store, &pq).unwrap_err().to_string();
    assert!(e.contains("not followed"), "{e}");
    assert!(e.contains("jobs"), "the message names the link: {e}");
    assert_eq!(entries(&elsewhere), Vec::<PathBuf>::new(), "written through another user's link");
    // The command says so in one line, and that the logs are in.
    drop(store);
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_darshan-ingest"))
            .args(["-q", "--db"])
            .arg(&db)
            .arg("--parquet")
            .arg(&pq)
            .arg(dir.join("tree")),
        Duration::from_secs(60),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), err.lines().count()), (Some(2), 1), "{err}");
    assert!(err.contains("the logs are ingested") && err.contains("not followed"), "{err}");
    assert_eq!(entries(&elsewhere), Vec::<PathBuf>::new(), "written through another user's link");
}

/// The same one level down, where a partition's directory is.
#[test]
fn a_link_planted_at_a_parquet_partition_directory_was_written_through() {
    let dir = out_dir("partition-link");
    let db = ingested(&dir, 40);
    let pq = dir.join("pq");
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let store = Store::open(&db).unwrap();
    parquet_out::export(&store, &pq).unwrap();
    // The partitions this data set has, each replaced by a link; then the
    // logs exported again (a new export overwrites overlapping parts).
    let years: Vec<PathBuf> = std::fs::read_dir(pq.join("jobs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("year="))
        .collect();
    assert!(!years.is_empty());
    for y in &years {
        std::fs::remove_dir_all(y).unwrap();
        if !planted_link(&elsewhere, y) {
            eprintln!("not root: the link cannot be another user's; skipped");
            return;
        }
    }
    store.conn().execute("DELETE FROM parquet_exported", []).unwrap();
    let e = parquet_out::export(&store, &pq).unwrap_err().to_string();
    assert!(e.contains("not followed"), "{e}");
    assert_eq!(entries(&elsewhere), Vec::<PathBuf>::new(), "written through another user's link");
}

/// A link to a directory inside the dataset was walked when the export
/// looked for an interrupted export's temporaries, and what matched there
/// was deleted: another user's `pq/logs/x -> /their/choice` had root
/// delete files named `.part-*.parquet*.tmp` in a directory they chose.
#[test]
fn the_parquet_export_deleted_files_through_a_linked_directory() {
    let dir = out_dir("walk-link");
    let db = ingested(&dir, 10);
    let pq = dir.join("pq");
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(pq.join("logs")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let theirs = elsewhere.join(".part-1-2.parquet.tmp");
    std::fs::write(&theirs, b"not the export's").unwrap();
    if !planted_link(&elsewhere, &pq.join("logs/x")) {
        eprintln!("not root: the link cannot be another user's; skipped");
        return;
    }
    let store = Store::open(&db).unwrap();
    parquet_out::export(&store, &pq).unwrap();
    assert!(theirs.exists(), "a file reached through a link was deleted");
}

/// SQLite opens its database with open(2), through whatever the name
/// holds: another user's link there had root's ingest write its tables
/// into the file the link named.
#[test]
fn a_link_planted_at_the_database_name_was_written_through() {
    let dir = out_dir("db-link");
    let victim = dir.join("victim");
    std::fs::write(&victim, b"").unwrap();
    let db = dir.join("facility.db");
    if !planted_link(&victim, &db) {
        eprintln!("not root: the link cannot be another user's; skipped");
        return;
    }
    let e = Store::open(&db).err().expect("opened through another user's link").to_string();
    assert!(e.contains("not followed"), "{e}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"", "written through the link");
}

/// A FIFO at the database's name: SQLite opened it (it could as well have
/// waited for a writer) and said "disk I/O error", which sends a centre
/// looking at its disks. One line saying what the name holds now.
#[test]
fn a_fifo_at_the_database_name_was_called_a_disk_io_error() {
    let dir = out_dir("db-fifo");
    let tree = dir.join("tree");
    synth::generate(&tree, 3, 9).unwrap();
    let db = dir.join("facility.db");
    assert!(Command::new("mkfifo").arg(&db).status().unwrap().success());
    let out = output_within(
        Command::new(env!("CARGO_BIN_EXE_darshan-ingest")).args(["-q", "--db"]).arg(&db).arg(&tree),
        Duration::from_secs(60),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
}

/// SQLite's files beside the database (its write-ahead log and shared
/// memory) are opened the same way. SQLite refused another user's link
/// at `-wal` itself, but as "unable to open database file": nothing said
/// which file or why. Refused before SQLite now, saying both.
#[test]
fn a_link_planted_beside_the_database_failed_without_saying_why() {
    let dir = out_dir("wal-link");
    let victim = dir.join("victim");
    std::fs::write(&victim, b"").unwrap();
    let db = dir.join("facility.db");
    if !planted_link(&victim, &dir.join("facility.db-wal")) {
        eprintln!("not root: the link cannot be another user's; skipped");
        return;
    }
    let e = Store::open(&db).err().expect("opened beside another user's link").to_string();
    assert!(e.contains("-wal is a symbolic link owned by another user: not followed"), "{e}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"", "written through the link");
}
