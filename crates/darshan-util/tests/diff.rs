//! darshan-diff against C Darshan 3.5.0's, byte for byte: every pair of
//! corpus logs in tests/c-darshan/diff/pairs.txt, whose C output (stdout,
//! stderr, exit status) record.sh there recorded; and the command line's
//! own cases (no logs, a log that does not exist).

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

fn recorded() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/c-darshan/diff")
}

fn ours(args: &[&str]) -> std::process::Output {
    darshan_test_support::output(Command::new(env!("CARGO_BIN_EXE_darshan-diff")).args(args).current_dir(corpus()))
}

/// C's recorded stdout (gzipped; the system gzip reads it), stderr and
/// exit status of case `name`.
fn c_case(name: &str) -> (Vec<u8>, Vec<u8>, i32) {
    let read = |ext: &str| std::fs::read(recorded().join(format!("{name}.{ext}"))).unwrap();
    let status = String::from_utf8(read("status")).unwrap().trim().parse().unwrap();
    let gz = std::fs::File::open(recorded().join(format!("{name}.out.gz"))).unwrap();
    let out = darshan_test_support::output(Command::new("gzip").arg("-dc").stdin(gz));
    assert!(out.status.success(), "gzip -dc {name}.out.gz");
    (out.stdout, read("err"), status)
}

fn same_as_c(name: &str, args: &[&str]) -> Result<(), String> {
    let (out, err, status) = c_case(name);
    let o = ours(args);
    let mut why = Vec::new();
    if o.stdout != out {
        let line = o.stdout.split(|&b| b == b'\n').zip(out.split(|&b| b == b'\n')).position(|(a, b)| a != b);
        why.push(format!("stdout differs (first at line {line:?}; {} bytes, C {})", o.stdout.len(), out.len()));
    }
    if o.stderr != err {
        why.push(format!("stderr: {:?}, C {:?}", String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&err)));
    }
    if o.status.code() != Some(status) {
        why.push(format!("status {:?}, C {status}", o.status.code()));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(format!("{name} ({}): {}", args.join(" "), why.join("; ")))
    }
}

#[test]
fn every_recorded_pair_of_corpus_logs_diffs_as_c_darshan_does() {
    let pairs = std::fs::read_to_string(recorded().join("pairs.txt")).unwrap();
    let mut failures = Vec::new();
    let mut n = 0;
    for line in pairs.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        n += 1;
        let mut w = line.split_whitespace();
        let (a, b) = (w.next().unwrap(), w.next().unwrap());
        if let Err(e) = same_as_c(&n.to_string(), &[a, b]) {
            failures.push(e);
        }
    }
    assert!(n >= 19, "the pairs: {n}");
    assert!(failures.is_empty(), "{} of {n} pairs differ from C:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn no_logs_and_a_missing_log_are_refused_as_c_darshan_does() {
    same_as_c("usage", &[]).unwrap();
    same_as_c("missing", &["no-such.darshan", "release_logs__mpi-io-test-x86_64-3.5.0.darshan"]).unwrap();
}

/// What 3.5.0 cannot do: a log with heat maps compared with itself
/// (3.5.0 dies in HEATMAP's missing diff function) prints an empty line
/// per record and nothing else, and exits 0.
#[test]
fn a_log_with_heat_maps_against_itself_shows_no_difference() {
    let log = "release_logs__mpi-io-test-x86_64-3.5.0.darshan";
    let o = ours(&[log, log]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.iter().all(|&b| b == b'\n') && !o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stdout));
}
