//! darshan-run on a real command: the command's exit status comes back,
//! the log is where it says, and the summary matches the log.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_darshan-run"))
}

fn scratch(tag: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/run-tests")
        .join(format!("{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn lib() -> PathBuf {
    let p = bin().parent().unwrap().join("libdarshan.so");
    assert!(p.exists(), "build the workspace first: {} missing", p.display());
    p
}

#[test]
fn copies_a_file_and_reports_its_bytes() {
    let d = scratch("cp");
    let src = d.join("src.dat");
    std::fs::write(&src, vec![7u8; 300_000]).unwrap();
    let dst = d.join("dst.dat");
    let logs = d.join("logs");
    let out = darshan_test_support::output(
        Command::new(bin())
            .args(["--lib", lib().to_str().unwrap(), "--log-dir", logs.to_str().unwrap(), "--", "cp"])
            .arg(&src)
            .arg(&dst),
    );
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err.lines().find(|l| l.starts_with("darshan-run: log ")).expect(&err);
    let log_path =
        Path::new(line.trim_start_matches("darshan-run: log ").trim_end_matches("  (the command's own process)"));
    assert!(line.ends_with("(the command's own process)"), "{err}");
    assert!(err.contains("the command ran 1 instrumented process and wrote 1 log: cp"), "{err}");
    assert!(log_path.starts_with(logs.canonicalize().unwrap()), "{err}");
    let log = darshan_log::LogFile::open(log_path).unwrap();
    let names = log.names().unwrap();
    let recs = log.records(darshan_log::modules::POSIX).unwrap();
    let src_rec = recs.iter().find(|r| names.get(r.id) == Some(src.to_str().unwrap().as_bytes())).expect("src record");
    assert_eq!(src_rec.counters[darshan_log::counters::posix::BYTES_READ], 300_000);
    assert!(err.contains("busiest: "), "{err}");
    assert!(err.contains("292.97 KiB read"), "summary shows the bytes: {err}");
}

/// A pipeline's summary showed only the shell: it now counts every
/// process and log the command made and sums all of them.
#[test]
fn a_pipeline_is_summarized_over_all_its_processes() {
    let d = scratch("pipe");
    let src = d.join("src.dat");
    std::fs::write(&src, vec![7u8; 100_000]).unwrap();
    let logs = d.join("logs");
    let script =
        format!("cat {} > {}/a.dat; cat {}/a.dat > {}/b.dat", src.display(), d.display(), d.display(), d.display());
    let out = darshan_test_support::output(
        Command::new(bin())
            .args(["--lib", lib().to_str().unwrap(), "--log-dir", logs.to_str().unwrap(), "--", "sh", "-c"])
            .arg(&script),
    );
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the command ran 3 instrumented processes: cat x2, sh"), "{err}");
    assert!(err.contains("all 3 processes together:"), "{err}");
    // One log for the run: the job log, every member's records in it.
    let left: Vec<PathBuf> = std::fs::read_dir(&logs).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(left.len(), 1, "{left:?}");
    let job = &left[0].canonicalize().unwrap();
    assert!(job.to_string_lossy().ends_with("_job.darshan") && job.to_string_lossy().contains("/0_sh_id"), "{job:?}");
    assert!(err.contains(&format!("job log {}  (3 process logs merged into it)", job.display())), "{err}");
    assert!(
        err.contains(&format!("full report: darshan-summary {}", job.display())),
        "the diagnosis is the job's: {err}"
    );
    let log = darshan_log::LogFile::open(job).unwrap();
    let meta = String::from_utf8_lossy(&log.job.metadata).into_owned();
    assert!(meta.contains("job_processes=3\n") && meta.contains("job_key=run-"), "{meta}");
    assert_eq!(log.job.nprocs, 1, "no launcher gave ranks: the members are one task");
    let names = log.names().unwrap();
    let read_of = |path: &Path| {
        log.records(darshan_log::modules::POSIX)
            .unwrap()
            .iter()
            .filter(|r| names.get(r.id) == Some(path.to_str().unwrap().as_bytes()))
            .map(|r| r.counters[darshan_log::counters::posix::BYTES_READ])
            .sum::<i64>()
    };
    assert_eq!((read_of(&src), read_of(&d.join("a.dat"))), (100_000, 100_000), "each cat's read, from its own process");
    // Both cats' reads are in the POSIX sum: 100,000 bytes from src and
    // 100,000 from a.dat (the shell reads nothing of its own here). Their
    // writes go to stdout, a descriptor the shell opened before exec: no
    // process records those (as in Darshan; docs/runtime.md, limits).
    let posix = err.lines().find(|l| l.trim_start().starts_with("POSIX")).expect(&err);
    let words = posix.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("read 195.31 KiB written 0 B"), "{posix}");
}

/// --keep-process-logs keeps each member's log beside the job log.
#[test]
fn keep_process_logs_keeps_them_beside_the_job_log() {
    let d = scratch("pipe-keep");
    let logs = d.join("logs");
    let out = darshan_test_support::output(
        Command::new(bin())
            .args(["--lib", lib().to_str().unwrap(), "--log-dir", logs.to_str().unwrap(), "--keep-process-logs"])
            .args(["--", "sh", "-c", "cat /etc/hostname | cat > /dev/null"]),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut left: Vec<String> =
        std::fs::read_dir(&logs).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left.len(), 4, "sh, two cats and the job log: {left:?}");
    assert_eq!(left.iter().filter(|n| n.ends_with("_job.darshan")).count(), 1, "{left:?}");
}

/// A shell that starts a background job and exits: darshan-run merged
/// the job log as the shell exited, so the job's writes (half a second
/// later) were not in it and its processes' logs stayed beside it (what
/// pyspark's JVM, shutting down as the interpreter returns, also did).
/// darshan-run now reaps what the command leaves running and waits.
#[test]
fn a_background_job_outliving_the_shell_was_left_out_of_the_job_log() {
    let d = scratch("background");
    let logs = d.join("logs");
    let late = d.join("late.dat");
    let script = format!(
        "(sleep 0.5; dd if=/dev/zero of={} bs=4096 count=100 2>/dev/null) & cat /etc/hostname > /dev/null",
        late.display()
    );
    let out = darshan_test_support::output(
        Command::new(bin())
            .args(["--lib", lib().to_str().unwrap(), "--log-dir", logs.to_str().unwrap(), "--", "sh", "-c"])
            .arg(&script)
            .env("DARSHAN_MMAP_LOGPATH", d.join("mmap")),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let left: Vec<PathBuf> = std::fs::read_dir(&logs).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(left.len(), 1, "the job log alone: {left:?}");
    assert!(left[0].to_string_lossy().ends_with("_job.darshan"), "{left:?}");
    let log = darshan_log::LogFile::open(&left[0]).unwrap();
    let names = log.names().unwrap();
    let written: i64 = log
        .records(darshan_log::modules::POSIX)
        .unwrap()
        .iter()
        .filter(|r| names.get(r.id) == Some(late.to_str().unwrap().as_bytes()))
        .map(|r| r.counters[darshan_log::counters::posix::BYTES_WRITTEN])
        .sum();
    assert_eq!(written, 409_600, "the background dd's writes");
}

/// What the command leaves running past `--wait` is named, and
/// darshan-run returns the command's status without it.
#[test]
fn wait_names_what_is_still_running_after_it() {
    let d = scratch("wait-limit");
    let out = darshan_test_support::output(
        Command::new(bin())
            .args(["--lib", lib().to_str().unwrap(), "--log-dir", d.join("logs").to_str().unwrap(), "--wait", "2"])
            .args(["--", "sh", "-c", "sleep 5 & exit 3"])
            .env("DARSHAN_MMAP_LOGPATH", d.join("mmap")),
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("darshan-run: waiting up to 2 s (--wait) for what the command left running: sleep "), "{err}");
    assert!(err.contains("darshan-run: still running after 2 s: sleep "), "{err}");
}

#[test]
fn exit_status_and_bad_usage() {
    let d = scratch("status");
    // darshan-run with our library and log directory, then `args`.
    let run = |args: &[&str]| {
        let mut cmd = Command::new(bin());
        cmd.arg("--lib").arg(lib()).arg("--log-dir").arg(&d).args(args);
        darshan_test_support::status(&mut cmd)
    };
    assert_eq!(run(&["--quiet", "sh", "-c", "exit 7"]).code(), Some(7));
    let out = darshan_test_support::output(&mut Command::new(bin()));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("<COMMAND>"), "names what is missing");
    // An option of ours that does not exist is refused, not run as a
    // command; the command's own options (after its name) are its own.
    let out = darshan_test_support::output(Command::new(bin()).args(["--bogus", "true"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument '--bogus'"));
    // The command exits with its number of arguments: 1 when `--quiet`
    // reached it, 0 had darshan-run taken it.
    assert_eq!(run(&["sh", "-c", "exit $#", "sh", "--quiet"]).code(), Some(1), "--quiet after the command is its own");
    let out = darshan_test_support::output(Command::new(bin()).args(["--lib", "/no/such/lib.so", "true"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/lib.so"));
}

/// The terminal-escape names of hostile_names.c as our tools show them.
const NAMES: [&str; 3] = ["clear\\e[2Jscreen", "title\\e]0;owned\\abell", "line\\nbreak"];

/// darshan-run's summary and `darshan-summary --text` printed control
/// bytes from file names raw: a file named `\e[2J` cleared the reader's
/// screen, `\e]0;...\a` set the window's title. They show as escapes now.
#[test]
fn terminal_escapes_in_file_names_are_shown_not_sent() {
    let d = scratch("escapes");
    let prog = d.join("hostile_names");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs/hostile_names.c");
    let cc = darshan_test_support::output(Command::new("cc").arg("-O2").arg("-o").arg(&prog).arg(&src));
    assert!(cc.status.success(), "{}", String::from_utf8_lossy(&cc.stderr));
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let logs = d.join("logs");
    let out = darshan_test_support::output(
        Command::new(bin())
            .args(["--lib", lib().to_str().unwrap(), "--log-dir", logs.to_str().unwrap(), "--"])
            .arg(&prog)
            .arg(&data)
            .stdin(std::process::Stdio::null()),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = std::fs::read_dir(&logs).unwrap().next().unwrap().unwrap().path();
    let summary = darshan_test_support::output(
        Command::new(bin().with_file_name("darshan-summary")).args(["--text", "--top", "50", "-o", "-"]).arg(&log),
    );
    assert!(summary.status.success());
    // The program's own line on stderr, "to stderr", is not ours.
    let ours: Vec<u8> = out
        .stderr
        .split(|&b| b == b'\n')
        .filter(|l| *l != b"to stderr")
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect();
    for (what, text) in [("darshan-run", ours), ("darshan-summary --text", summary.stdout)] {
        let bad: Vec<u8> = text.iter().copied().filter(|&b| (b < 0x20 && b != b'\n') || b == 0x7f).collect();
        assert!(bad.is_empty(), "{what} sent control bytes {bad:?}");
        let t = String::from_utf8_lossy(&text);
        // The three move the most bytes: darshan-run's three busiest files
        // and the text report's top five by bytes.
        for shown in NAMES {
            assert!(t.contains(shown), "{what}: {shown} not shown: {t}");
        }
    }
}

/// `darshan-run --summary truncated.darshan` exited 0 saying "1 log(s)
/// could not be read" without why. It names the log and the reason, and
/// exits 1.
#[test]
fn a_summary_of_a_truncated_log_says_why_and_fails() {
    let d = scratch("truncated");
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs/imbalanced_io__imbalanced-io.darshan");
    let bytes = std::fs::read(&src).unwrap();
    let cut = d.join("truncated.darshan");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let out = darshan_test_support::output(Command::new(bin()).arg("--summary").arg(&cut).arg(&src));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let line = err.lines().find(|l| l.contains("cannot read")).expect(&err);
    assert!(line.contains("truncated.darshan") && line.contains("truncated or corrupt"), "{line}");
    // The readable one is still summarized.
    assert!(err.contains("POSIX"), "{err}");
    let ok = darshan_test_support::output(Command::new(bin()).arg("--summary").arg(&src));
    assert_eq!(ok.status.code(), Some(0));
}

/// `darshan-run --history DB`: the run against the command's earlier runs
/// in a darshan-ingest database. Six copies of one file, ingested; a
/// seventh copy is consistent with them; a copy of a file ten times the
/// size names the bytes that moved and the file.
#[test]
fn history_compares_a_run_with_the_commands_earlier_runs() {
    let d = scratch("history");
    let src = d.join("src.dat");
    std::fs::write(&src, vec![7u8; 1 << 20]).unwrap();
    let dst = d.join("dst.dat");
    let copy = |logs: &Path, history: Option<&Path>| -> String {
        let mut cmd = Command::new(bin());
        cmd.args(["--lib", lib().to_str().unwrap(), "--log-dir", logs.to_str().unwrap()]);
        if let Some(db) = history {
            cmd.arg("--history").arg(db);
        }
        let out = darshan_test_support::output(cmd.arg("--").arg("cp").arg(&src).arg(&dst));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let earlier = d.join("earlier");
    for _ in 0..6 {
        copy(&earlier, None);
    }
    let db = d.join("h.db");
    let mut store = darshan_ingest::store::Store::open(&db).unwrap();
    let opts = darshan_ingest::run::Options { jobs: 1, progress: false, commit_every: None, stop: None };
    let sum = darshan_ingest::run::ingest(&[earlier], &mut store, &opts).unwrap();
    assert_eq!(sum.ingested, 6, "{:?}", sum.errors);
    drop(store);
    let err = copy(&d.join("now"), Some(&db));
    assert!(
        err.contains("\nAgainst earlier runs\n  consistent with 6 earlier runs of executable cp: nothing moved"),
        "{err}"
    );
    std::fs::write(&src, vec![7u8; 10 << 20]).unwrap();
    let err = copy(&d.join("bigger"), Some(&db));
    assert!(err.contains("  POSIX bytes read: 10.00 MiB now, usually 1.00 MiB"), "{err}");
    assert!(err.contains(&format!("      {}: 10.00 MiB read now, usually 1.00 MiB", src.display())), "{err}");
}
