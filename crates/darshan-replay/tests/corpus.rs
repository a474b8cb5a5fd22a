//! On corpus logs nobody here wrote (IOR, E3SM, HDF5, DLIO and the rest),
//! `darshan-replay --fio` writes a job file fio accepts (`fio
//! --parse-only`), which says what it left out.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

#[test]
fn every_corpus_logs_job_file_is_one_fio_accepts() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-corpus");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    let (mut written, mut nothing) = (0, 0);
    for log in &logs {
        let job = d.join(format!("{}.fio", log.file_stem().unwrap().to_string_lossy()));
        let o = darshan_test_support::output_within(
            Command::new(env!("CARGO_BIN_EXE_darshan-replay")).arg(log).arg("-o").arg(&job),
            Duration::from_secs(60),
        );
        let err = String::from_utf8_lossy(&o.stderr);
        if !o.status.success() {
            // A log without the application's POSIX reads and writes (or
            // one that cannot be read) is one clear line.
            assert_eq!((o.status.code(), err.lines().count()), (Some(1), 1), "{}: {err}", log.display());
            nothing += 1;
            continue;
        }
        let text = std::fs::read_to_string(&job).unwrap();
        assert!(text.contains("; Not reproduced: the time between requests"), "{}", log.display());
        let parsed = darshan_test_support::output_within(
            Command::new("fio").arg("--parse-only").arg(&job),
            Duration::from_secs(60),
        );
        assert!(
            parsed.status.success(),
            "{}: fio --parse-only refused {}:\n{}",
            log.display(),
            job.display(),
            String::from_utf8_lossy(&parsed.stderr)
        );
        written += 1;
    }
    assert!(written >= 50, "{written} job files, {nothing} logs with nothing to replay");
}

/// `--exact` on every corpus log with DXT_POSIX: a job file and iologs
/// fio accepts.
#[test]
fn every_corpus_dxt_logs_exact_replay_is_one_fio_accepts() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("replay-exact-corpus");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let mut done = 0;
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    for log in &logs {
        let has_dxt =
            darshan_log::LogFile::open(log).is_ok_and(|l| l.header.mod_map[darshan_log::modules::DXT_POSIX].len > 0);
        if !has_dxt {
            continue;
        }
        let out = d.join(log.file_stem().unwrap());
        let o = darshan_test_support::output_within(
            Command::new(env!("CARGO_BIN_EXE_darshan-replay"))
                .arg("--exact")
                .arg(log)
                .arg("-o")
                .arg(&out)
                .args(["--dir", "/tmp/x"]),
            Duration::from_secs(60),
        );
        assert!(o.status.success(), "{}: {}", log.display(), String::from_utf8_lossy(&o.stderr));
        let parsed = darshan_test_support::output_within(
            Command::new("fio").arg("--parse-only").arg(out.join("job.fio")),
            Duration::from_secs(60),
        );
        assert!(parsed.status.success(), "{}: {}", log.display(), String::from_utf8_lossy(&parsed.stderr));
        done += 1;
    }
    assert!(done >= 10, "{done} logs with DXT_POSIX");
}
