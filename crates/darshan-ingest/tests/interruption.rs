//! darshan-ingest killed at any moment, run twice at once, and its exit
//! statuses: the database is never left with half a log, a rerun gives
//! exactly what one uninterrupted run gives, and every outcome has its
//! documented status and stream.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use darshan_ingest::synth;
use darshan_test_support::output;
use darshan_test_support::SpawnWatched;
use rusqlite::types::ValueRef;
use rusqlite::Connection;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ingest-interruption").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// darshan-ingest, its scratch directory under the test's own: an ingest
/// killed with SIGKILL cannot remove it, and these tests left one in /tmp
/// per run (/tmp/darshan-ingest-jobs-<pid>-0).
fn ingest_cmd() -> Command {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ingest-interruption").join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_darshan-ingest"));
    cmd.env("TMPDIR", tmp);
    cmd
}

/// The corpus (heat maps, STDIO, LUSTRE, partial and unreadable-in-part
/// logs) and generated logs, with one duplicate of a corpus log.
fn tree(dir: &Path, generated: usize) -> PathBuf {
    let t = dir.join("tree");
    synth::generate(&t.join("gen"), generated, 21).unwrap();
    std::fs::create_dir_all(t.join("corpus")).unwrap();
    for e in std::fs::read_dir(corpus()).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, t.join("corpus").join(p.file_name().unwrap())).unwrap();
    }
    std::fs::copy(corpus().join("imbalanced_io__imbalanced-io.darshan"), t.join("zz_copy.darshan")).unwrap();
    t
}

/// Every table of the database as sorted text rows, each log_id replaced
/// by its log's content key (ids depend on the order workers finish in),
/// without the ingest time.
fn snapshot(db: &Path) -> BTreeMap<String, Vec<String>> {
    let c = Connection::open(db).unwrap();
    let keys: BTreeMap<i64, String> = {
        let mut st = c.prepare("SELECT log_id, content_key FROM logs").unwrap();
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let tables: Vec<String> = {
        let mut st = c.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").unwrap();
        let rows = st.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let mut out = BTreeMap::new();
    for t in tables {
        let mut st = c.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
        let cols: Vec<String> = st.column_names().into_iter().map(str::to_string).collect();
        let mut rows = st.query([]).unwrap();
        let mut text = Vec::new();
        while let Some(r) = rows.next().unwrap() {
            let mut cells = Vec::new();
            for (i, col) in cols.iter().enumerate() {
                if col == "ingested_at" {
                    continue;
                }
                let v = r.get_ref(i).unwrap();
                cells.push(match (col.as_str(), v) {
                    ("log_id", ValueRef::Integer(id)) => {
                        keys.get(&id).cloned().unwrap_or_else(|| format!("log {id} not in logs"))
                    }
                    (_, ValueRef::Integer(x)) => x.to_string(),
                    (_, ValueRef::Real(x)) => format!("{x:e}"),
                    (_, ValueRef::Text(s)) => String::from_utf8_lossy(s).into_owned(),
                    (_, ValueRef::Null) => "NULL".into(),
                    (_, ValueRef::Blob(b)) => format!("{b:?}"),
                });
            }
            text.push(cells.join("|"));
        }
        text.sort();
        out.insert(t, text);
    }
    out
}

fn differences(a: &BTreeMap<String, Vec<String>>, b: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let mut d = Vec::new();
    for (t, rows) in a {
        match b.get(t) {
            None => d.push(format!("table {t} missing")),
            Some(other) if other != rows => d.push(format!("table {t}: {} rows against {}", other.len(), rows.len())),
            _ => {}
        }
    }
    d
}

/// The failure of the first transactional-ingest report: killed at a
/// random moment of a 1,048-log ingest and run again, the rerun failed
/// with a UNIQUE constraint, or exited 0 with heat-map and STDIO rows
/// missing. Now: killed at many moments spread over a whole run, one
/// rerun gives every table exactly as an uninterrupted run does.
#[test]
fn a_rerun_after_sigkill_at_any_moment_equals_an_uninterrupted_ingest() {
    let dir = out_dir("sigkill");
    let tree = tree(&dir, 963);
    let clean = dir.join("clean.db");
    let t0 = Instant::now();
    let st = output(ingest_cmd().args(["-q", "-j", "2", "--db"]).arg(&clean).arg(&tree));
    let whole = t0.elapsed();
    assert_eq!(st.status.code(), Some(0), "{}", String::from_utf8_lossy(&st.stderr));
    let want = snapshot(&clean);
    assert!(want["logs"].len() >= 1_040 && want["heatmap"].len() > 100 && want["stdio_records"].len() > 100);
    let points = 12;
    let mut killed_mid_way = 0;
    // The clean run's time stands for a run's; one on a machine that got
    // busier or quieter since is slower or faster (CI once saw 5 of 12
    // kills land after the end): a kill that came too late is tried again
    // at the same fraction of a shorter run, up to three times.
    let mut run_time = whole;
    for k in 0..points {
        for again in 0..4 {
            if kill_and_rerun(&dir, &tree, &want, (k, again), run_time.mul_f64((k as f64 + 0.5) / points as f64)) {
                killed_mid_way += 1;
                break;
            }
            run_time = run_time.mul_f64(0.75);
        }
    }
    assert!(killed_mid_way >= points / 2, "only {killed_mid_way} of {points} kills hit a running ingest");
}

/// An ingest of `tree` killed after `at`, then run again: the rerun gives
/// `want`. Whether the kill came while it ran.
fn kill_and_rerun(
    dir: &Path,
    tree: &Path,
    want: &BTreeMap<String, Vec<String>>,
    (k, again): (usize, usize),
    at: Duration,
) -> bool {
    let db = dir.join(format!("killed-{k}-{again}.db"));
    // Commits every 10 ms, so a kill finds logs committed and logs not.
    let mut child = ingest_cmd()
        .args(["-q", "-j", "2", "--commit-every", "0.01", "--db"])
        .arg(&db)
        .arg(tree)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn_watched();
    std::thread::sleep(at);
    let finished = child.try_wait().unwrap().is_some();
    let _ = child.kill();
    let _ = child.wait();
    if !finished {
        // No log is ever visible half-written, or as 'loading'.
        let c = Connection::open(&db).unwrap();
        let loading: i64 = c
            .query_row("SELECT COUNT(*) FROM logs WHERE status NOT IN ('ok', 'partial', 'error')", [], |r| r.get(0))
            .unwrap_or(0);
        assert_eq!(loading, 0, "kill {k}");
    }
    let rerun = output(ingest_cmd().args(["-q", "-j", "2", "--db"]).arg(&db).arg(tree));
    assert_eq!(rerun.status.code(), Some(0), "kill {k}: {}", String::from_utf8_lossy(&rerun.stderr));
    let got = snapshot(&db);
    let diff = differences(want, &got);
    assert!(diff.is_empty(), "killed at point {k} (try {again}): {diff:?}");
    !finished
}

/// An ingest stopped by SIGTERM left its temporary directory
/// (/tmp/darshan-ingest-jobs-<pid>-0) behind. Now it stops at its next
/// log, says so in one line, leaves nothing in the temporary directory,
/// and a rerun gives what one uninterrupted run gives.
#[test]
fn an_ingest_stopped_by_sigterm_leaves_nothing_behind() {
    let dir = out_dir("sigterm");
    let tree = tree(&dir, 600);
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let clean = dir.join("clean.db");
    let t0 = Instant::now();
    assert_eq!(output(ingest_cmd().args(["-q", "-j", "2", "--db"]).arg(&clean).arg(&tree)).status.code(), Some(0));
    let whole = t0.elapsed();
    let want = snapshot(&clean);
    let mut stopped = 0;
    for k in 0..4 {
        let db = dir.join(format!("term-{k}.db"));
        let mut child = ingest_cmd()
            .args(["-q", "-j", "2", "--commit-every", "0.01", "--db"])
            .arg(&db)
            .arg(&tree)
            .env("TMPDIR", &tmp)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn_watched();
        std::thread::sleep(whole.mul_f64((k as f64 + 0.5) / 4.0));
        let st = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
        assert!(st.success());
        let status = darshan_test_support::wait(&mut child);
        let mut err = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
        if status.code() != Some(0) {
            stopped += 1;
            assert!(err.contains("stopped by a signal") && err.trim().lines().count() == 1, "{status:?}: {err}");
        }
        let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().path()).collect();
        assert!(left.is_empty(), "left behind: {left:?}");
        let rerun = output(ingest_cmd().args(["-q", "-j", "2", "--db"]).arg(&db).arg(&tree));
        assert_eq!(rerun.status.code(), Some(0), "{}", String::from_utf8_lossy(&rerun.stderr));
        assert!(differences(&want, &snapshot(&db)).is_empty(), "stopped at point {k}");
    }
    assert!(stopped >= 2, "only {stopped} of 4 signals reached a running ingest");
}

/// A SIGTERM that came while the ingest opened its database (tens of
/// milliseconds on a busy machine) ended it without a word: its handler
/// was set only after the open. CI48 failed so (status 15, no line);
/// signalled 10 ms after its start, the ingest died so in 24 of 30 runs.
/// strace, a real tracer, shows the order now: SIGTERM's handler is set
/// before the database is first opened.
#[test]
fn a_sigterm_while_the_ingest_opened_its_database_ended_it_without_a_word() {
    let dir = out_dir("sigterm-early");
    let tree = tree(&dir, 2);
    let (db, trace) = (dir.join("early.db"), dir.join("strace.txt"));
    let o = output(
        Command::new("strace")
            .args(["-f", "-e", "trace=rt_sigaction,openat", "-o"])
            .arg(&trace)
            .arg(env!("CARGO_BIN_EXE_darshan-ingest"))
            .args(["-q", "--db"])
            .arg(&db)
            .arg(&tree),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&trace).unwrap();
    let at = |what: &dyn Fn(&str) -> bool| text.lines().position(what);
    let handler = at(&|l| l.contains("rt_sigaction(SIGTERM, {sa_handler=0x"));
    let opened = at(&|l| l.contains("openat(") && l.contains(db.to_str().unwrap()));
    assert!(
        matches!((handler, opened), (Some(h), Some(o)) if h < o),
        "SIGTERM's handler (line {handler:?}) set before the database's open (line {opened:?})"
    );
}

/// Two ingests into one database at once: the second died with
/// `UNIQUE constraint failed: logs.log_id`. Now it says in one line that
/// the database is in use (status 3), and the first one's database is
/// whole.
#[test]
fn a_second_ingest_into_a_database_in_use_says_so_in_one_line() {
    let dir = out_dir("two");
    let tree = tree(&dir, 600);
    let db = dir.join("shared.db");
    let mut first = ingest_cmd().args(["-q", "-j", "1", "--db"]).arg(&db).arg(&tree).spawn_watched();
    // Wait until the first holds the database (it exists and has tables).
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(30) {
        let ready = Connection::open(&db)
            .and_then(|c| c.query_row("SELECT COUNT(*) FROM sqlite_master WHERE name = 'logs'", [], |r| r.get(0)))
            .unwrap_or(0i64);
        if ready == 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let second = output(ingest_cmd().args(["-q", "--db"]).arg(&db).arg(&tree));
    let first_status = darshan_test_support::wait(&mut first);
    assert_eq!(first_status.code(), Some(0));
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(3), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("in use"), "{err}");
    let clean = dir.join("clean.db");
    assert_eq!(output(ingest_cmd().args(["-q", "--db"]).arg(&clean).arg(&tree)).status.code(), Some(0));
    assert!(differences(&snapshot(&clean), &snapshot(&db)).is_empty());
}

/// `darshan-ingest` exited 0 for a missing path, for a directory of
/// unreadable files and for a tree with unreadable logs, printed its
/// errors on stdout, and `-q` did not silence them.
#[test]
fn exit_status_and_streams_say_what_happened() {
    let dir = out_dir("status");
    let run = |args: &[&Path]| {
        let mut c = ingest_cmd();
        c.arg("-q").arg("--db").arg(dir.join("s.db"));
        c.args(args);
        output(&mut c)
    };
    // A missing path: a usage error, one line naming it, nothing written.
    let missing = dir.join("no-such-tree");
    let o = run(&[&missing]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no-such-tree") && err.lines().count() == 1, "{err}");
    assert!(o.stdout.is_empty());
    // A directory where no file can be read (dangling links: this test
    // may run as root, who reads any mode).
    let bad = dir.join("unreadable");
    std::fs::create_dir_all(&bad).unwrap();
    for i in 0..14 {
        std::os::unix::fs::symlink(dir.join(format!("gone-{i}")), bad.join(format!("log{i}.darshan"))).unwrap();
    }
    let o = run(&[&bad]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 14, "each unreadable log on a line of its own: {err}");
    for i in 0..14 {
        assert!(err.contains(&format!("log{i}.darshan: ")), "{err}");
    }
    assert!(o.stdout.is_empty(), "-q prints nothing but errors: {}", String::from_utf8_lossy(&o.stdout));
    // A good tree with those inside: still 1, the good logs in.
    let mixed = dir.join("mixed");
    std::fs::create_dir_all(&mixed).unwrap();
    std::fs::copy(corpus().join("imbalanced_io__imbalanced-io.darshan"), mixed.join("good.darshan")).unwrap();
    std::fs::write(mixed.join("garbage.darshan"), b"this is not a darshan log, only text").unwrap();
    let o = run(&[&mixed, &bad]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("garbage.darshan: not a Darshan log"));
    // Everything readable: 0, and without -q the summary is on stdout.
    let o = output(ingest_cmd().arg("--db").arg(dir.join("ok.db")).arg(mixed.join("good.darshan")));
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 ingested"));
    assert!(o.stderr.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    // Run again: nothing new is not an error.
    let o = output(ingest_cmd().arg("-q").arg("--db").arg(dir.join("ok.db")).arg(mixed.join("good.darshan")));
    assert_eq!(o.status.code(), Some(0));
}

fn study(db: &Path) -> std::process::Output {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_darshan-ingest")).with_file_name("darshan-study");
    assert!(exe.is_file(), "build the workspace first: {}", exe.display());
    output(Command::new(exe).arg("--db").arg(db).arg("--json"))
}

/// A log left `loading` by an interrupted ingest of an earlier version
/// was counted by darshan-study as a job. The study now refuses such a
/// database in one line, and the next ingest finishes it.
#[test]
fn a_log_left_loading_is_never_counted_as_a_job() {
    let dir = out_dir("loading");
    let db = dir.join("old.db");
    let log = corpus().join("imbalanced_io__imbalanced-io.darshan");
    assert_eq!(output(ingest_cmd().args(["-q", "--db"]).arg(&db).arg(&log)).status.code(), Some(0));
    let jobs = |o: &std::process::Output| -> i64 {
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["tables"].as_array().unwrap().iter().find(|t| t["name"] == "jobs_by_size").unwrap()["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[2].as_i64().unwrap())
            .sum()
    };
    assert_eq!(jobs(&study(&db)), 1);
    // What the old writer left: the log's rows, its status 'loading',
    // and its path not yet marked seen.
    let c = Connection::open(&db).unwrap();
    c.execute_batch("UPDATE logs SET status = 'loading'; DELETE FROM seen_files;").unwrap();
    drop(c);
    let o = study(&db);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("partly written") && err.lines().count() == 1, "{err}");
    assert_eq!(output(ingest_cmd().args(["-q", "--db"]).arg(&db).arg(&log)).status.code(), Some(0));
    let o = study(&db);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(jobs(&o), 1);
}

/// darshan-study on an empty database, a file that is not SQLite, or no
/// file: one line, a non-zero status, and no file created.
#[test]
fn the_study_of_no_database_says_why_in_one_line() {
    let dir = out_dir("nodb");
    let empty = dir.join("empty.db");
    let mkdb = output(ingest_cmd().args(["-q", "--db"]).arg(&empty).arg(dir.join("nothing-here")));
    assert_eq!(mkdb.status.code(), Some(2), "a missing tree is a usage error");
    std::fs::create_dir_all(dir.join("none")).unwrap();
    assert_eq!(output(ingest_cmd().args(["-q", "--db"]).arg(&empty).arg(dir.join("none"))).status.code(), Some(0));
    let text = dir.join("text.db");
    std::fs::write(&text, "SQLite format? no.\n".repeat(100)).unwrap();
    let missing = dir.join("missing.db");
    for (db, why) in [(&empty, "no logs"), (&text, "not a database"), (&missing, "no such database")] {
        let o = study(db);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{}: {err}", db.display());
        assert!(err.contains(why) && err.lines().count() == 1, "{}: {err}", db.display());
        assert!(o.stdout.is_empty());
    }
    assert!(!missing.exists());
}
