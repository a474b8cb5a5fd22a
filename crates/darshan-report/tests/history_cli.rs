//! `--history` without a usable database is a message, not an error: the
//! report is written, its history section says why there is nothing to
//! compare with, and standard error says it in one line.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn corpus_log() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs/imbalanced_io__imbalanced-io.darshan")
}

fn summary(args: &[&std::ffi::OsStr]) -> std::process::Output {
    darshan_test_support::output_within(
        Command::new(env!("CARGO_BIN_EXE_darshan-summary")).args(args),
        Duration::from_secs(60),
    )
}

#[test]
fn history_without_a_database_is_said_and_the_report_written() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("history-cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("no.db");
    let log = corpus_log();
    let o = summary(&[
        "--history".as_ref(),
        missing.as_os_str(),
        "--json".as_ref(),
        "-o".as_ref(),
        "-".as_ref(),
        log.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("darshan-summary: history: no history: ") && err.contains("is not there"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["history"]["status"], "no_database");
    assert!(v["module_stats"].as_array().is_some_and(|m| !m.is_empty()), "the report is whole");

    // A file that is not a darshan-ingest database: said the same way.
    let not_db = dir.join("notes.txt");
    std::fs::write(&not_db, "not a database").unwrap();
    let o = summary(&[
        "--history".as_ref(),
        not_db.as_os_str(),
        "--text".as_ref(),
        "-o".as_ref(),
        "-".as_ref(),
        log.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.starts_with("darshan-summary: history: no history: "), "{err}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("Against earlier runs\n  no history: "));

    // A key that is not one: a usage error (2), before anything is read.
    let o = summary(&[
        "--history".as_ref(),
        missing.as_os_str(),
        "--history-key".as_ref(),
        "user".as_ref(),
        log.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `--trace OUT.json`: the log's DXT segments as Trace Event JSON beside
/// the report (the same writer as darshan-dxt-parser --perfetto, whose
/// test checks it against C's segments); one line says what was written.
#[test]
fn the_report_writes_the_logs_trace_for_perfetto() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace-cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/logs/release_logs__mpi-io-test-x86_64-3.1.6.darshan");
    let out = dir.join("t.json");
    let o = summary(&[
        "--trace".as_ref(),
        out.as_os_str(),
        "--text".as_ref(),
        "-o".as_ref(),
        "-".as_ref(),
        log.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("t.json: 16 DXT segments, 0 heat map samples"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let x = v["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "X").count();
    assert_eq!(x, 16);
}
