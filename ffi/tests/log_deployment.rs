//! The log's way into the site's tree, and what is said when it cannot
//! get there (issue 9's host safety, continued from host_safety.rs): a
//! log directory gone while the program runs, the job epilog that turns a
//! killed job's crash-safe files into logs, and the dated tree that
//! darshan-mk-log-dirs makes and docs/runtime.md's set-up uses.

mod common;

use std::process::Command;

use common::*;
use darshan_test_support::SpawnWatched;

/// A log directory that cannot be written left the crash-safe file in
/// place with no word of where it was. Now one line says why, where the
/// records are and the command that recovers the log — which works.
#[test]
fn an_unwritable_log_dir_says_once_where_the_records_are_and_how_to_recover_them() {
    let d = scratch("recover");
    let exe = compile("fill_records", &d, &[]);
    // A log directory there at start-up (one missing then is refused at
    // once: preload.rs) and removed while the program runs.
    let vanishing = d.join("vanishing");
    std::fs::create_dir_all(&vanishing).unwrap();
    let mut child = instrumented(&exe, &d)
        .env("DARSHAN_LOGPATH", &vanishing)
        .arg(d.join("data"))
        .arg("5")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn_watched();
    let mut ready = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut ready).unwrap();
    assert_eq!(ready.trim(), "ready");
    std::fs::remove_dir(&vanishing).unwrap();
    drop(child.stdin.take()); // EOF: the program makes no more files
    let status = wait_within(&mut child, LIMIT);
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(4), "the program's own exit status (no stdin line)");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{err}");
    let left = files(&d.join("mmap"));
    assert_eq!(left.len(), 1, "{left:?}");
    let kept = left[0].to_str().unwrap();
    assert!(lines[0].contains(&format!("cannot create log file {}/", vanishing.display())), "{err}");
    assert!(lines[0].contains(&format!("darshan-merge --output <log>.darshan {kept}")), "{err}");
    // Follow the advice.
    let out = d.join("logs/recovered.darshan");
    let m = output(std::process::Command::new(built("darshan-merge")).arg("--output").arg(&out).arg(kept));
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let log = darshan_log::LogFile::open(&out).unwrap();
    let names = log.names().unwrap();
    let recs = log.records(darshan_log::modules::POSIX).unwrap();
    let first = d.join("data/first");
    assert!(recs.iter().any(|r| names.get(r.id) == Some(first.to_str().unwrap().as_bytes())));
}

/// The job epilog turns the crash-safe files of a job's killed processes
/// into logs in the site's log tree and removes them; files of different
/// processes become different logs.
#[test]
fn the_job_epilog_collects_and_cleans_a_killed_jobs_files() {
    let d = scratch("epilog");
    let exe = compile("fill_records", &d, &[]);
    for k in 0..2 {
        let data = d.join(format!("data/{k}"));
        std::fs::create_dir_all(&data).unwrap();
        let (mut child, _lines) = start_ready(instrumented(&exe, &d).env("SLURM_JOB_ID", "4242").arg(&data).arg("1"));
        child.kill().unwrap();
        child.wait().unwrap();
    }
    assert_eq!(files(&d.join("mmap")).len(), 2);
    let tree = d.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    let merge_dir = built("darshan-merge").parent().unwrap().to_path_buf();
    let out = output(
        std::process::Command::new(root().join("scripts/darshan-mmap-epilog"))
            .env("SLURM_JOB_ID", "4242")
            .env("DARSHAN_MMAP_LOGPATH", d.join("mmap"))
            .env("DARSHAN_LOGPATH", &tree)
            .env("DARSHAN_MERGE", merge_dir.join("darshan-merge")),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(files(&d.join("mmap")).is_empty(), "crash-safe files removed");
    let day = tree.join(chrono_free_today());
    let logs = files(&day);
    assert_eq!(logs.len(), 2, "one log per process: {logs:?}");
    for l in &logs {
        let log = darshan_log::LogFile::open(l).unwrap();
        assert_eq!(log.job.jobid, 4242);
        assert_eq!(log.records(darshan_log::modules::POSIX).unwrap().len(), 1);
    }
}

/// YYYY/M/D of today, as `date` prints it.
fn chrono_free_today() -> String {
    let o = output(std::process::Command::new("date").arg("+%Y/%-m/%-d"));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn mk_log_dirs_makes_a_shared_dated_tree() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("mkdirs");
    let tree = d.join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    let out = output(std::process::Command::new(root().join("scripts/darshan-mk-log-dirs")).arg(&tree));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let today = tree.join(chrono_free_today());
    let mode = std::fs::metadata(&today).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o1777, "a day directory any user can add a log to");
    let missing = output(std::process::Command::new(root().join("scripts/darshan-mk-log-dirs")).arg(d.join("nope")));
    assert_eq!(missing.status.code(), Some(1));
}

/// docs/runtime.md's cluster set-up, as written there: the site makes the
/// dated tree with darshan-mk-log-dirs and names it with LOGPATH in its
/// config file; the job sets only DARSHAN_CONFIG_PATH. The log must land
/// in today's YYYY/M/D directory (the docs once set DARSHAN_LOGPATH,
/// which is a flat directory, so the tree they told sites to make was
/// never used).
#[test]
fn the_documented_cluster_setup_puts_logs_in_the_dated_tree() {
    let d = scratch("dated-tree");
    let tree = d.join("darshan-logs");
    std::fs::create_dir_all(&tree).unwrap();
    let out = output(Command::new(root().join("scripts/darshan-mk-log-dirs")).arg(&tree));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let docs = std::fs::read_to_string(root().join("docs/runtime.md")).unwrap();
    let line =
        docs.lines().find(|l| l.starts_with("LOGPATH ")).expect("docs/runtime.md names LOGPATH in a config file");
    let conf = d.join("darshan.conf");
    std::fs::write(&conf, line.replace("/lus/darshan-logs", tree.to_str().unwrap()) + "\n").unwrap();
    let exe = compile("fopen_once", &d, &[]);
    let file = d.join("data/existing.txt");
    std::fs::write(&file, b"x\n").unwrap();
    let out = output_within(
        Command::new(&exe)
            .arg(&file)
            .env("LD_PRELOAD", lib())
            .env("DARSHAN_ENABLE_NONMPI", "1")
            .env("DARSHAN_CONFIG_PATH", &conf)
            .env("DARSHAN_MMAP_LOGPATH", d.join("mmap")),
        LIMIT,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = files(&tree.join(chrono_free_today()));
    assert_eq!(logs.len(), 1, "one log in today's directory: {logs:?}");
    darshan_log::LogFile::open(&logs[0]).unwrap();
}
