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

/// A log of many records of one module (the mutant that found it: a
/// POSIX_META region repeated 130 times with ids of its own) kept
/// darshan-diff within the harness's bound of 16 MiB + 8 bytes per
/// unpacked byte: a list per module for every record id took 1.5 KB per
/// 240-byte record, 15 bytes per unpacked byte with both sides loaded.
#[test]
fn darshan_diff_of_many_one_module_records_stays_within_its_memory_bound() {
    use darshan_log::{Compression, Job, LogWriter, NameTable, Record};
    const N: u64 = 100_000;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-memory");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("meta.darshan");
    let job = Job { nprocs: 1, jobid: 1, exe_mnt: b"/bin/storm\n".to_vec(), ..Default::default() };
    let mut w =
        LogWriter::new(std::io::BufWriter::new(std::fs::File::create(&log).unwrap()), Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&NameTable::new()).unwrap();
    let recs: Vec<Record> = (0..N)
        .map(|i| {
            let mut r = Record::zeroed(darshan_log::modules::POSIX_META, i + 1, 0);
            r.counters[0] = 1;
            r
        })
        .collect();
    w.write_module(darshan_log::modules::POSIX_META, recs.iter()).unwrap();
    w.finish().unwrap();
    let unpacked = N * (2 + 24 + 4) * 8;
    let o = darshan_test_support::output_within(
        std::process::Command::new("/usr/bin/time")
            .args(["-f", "%M"])
            .arg(env!("CARGO_BIN_EXE_darshan-diff"))
            .arg(&log)
            .arg(&log),
        std::time::Duration::from_secs(120),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let peak_kib: u64 = String::from_utf8_lossy(&o.stderr).lines().last().unwrap().trim().parse().unwrap();
    let bound_kib = 16 * 1024 + 8 * unpacked / 1024;
    assert!(peak_kib < bound_kib, "peak {peak_kib} KiB, bound {bound_kib} KiB ({unpacked} unpacked bytes)");
}
