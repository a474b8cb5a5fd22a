//! darshan-ingest end to end: the corpus's totals against darshan-parser
//! --total, bad logs, idempotent re-runs, an interrupted run resumed, and
//! the Parquet export.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use darshan_ingest::{parquet_out, run, store::Store, synth};
use darshan_log::LogFile;
use darshan_test_support::output_within;
use darshan_test_support::SpawnWatched;
use rusqlite::Connection;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ingest").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ingest(roots: &[PathBuf], db: &Path) -> run::Summary {
    let mut store = Store::open(db).unwrap();
    run::ingest(roots, &mut store, &run::Options { jobs: 2, progress: false, commit_every: None, stop: None }).unwrap()
}

/// darshan-parser, built beside this test by `cargo test --workspace`.
fn darshan_parser() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let p = exe.parent().unwrap().parent().unwrap().join("darshan-parser");
    assert!(p.is_file(), "{} is missing: run the workspace's tests (cargo test --workspace)", p.display());
    p
}

/// The C darshan-parser's output for `log` where the corpus has it
/// (`expected/*.all.txt.gz`, which includes the totals; the big log's
/// `--total` reference), else ours (byte-identical to C's on those).
/// Returns the text and whether it is C's.
fn reference_totals(log: &Path) -> (String, bool) {
    let stem = log.file_stem().unwrap().to_string_lossy().into_owned();
    let big = corpus().join("../big").join(format!("{stem}.total.txt"));
    if let Some(s) = darshan_test_support::corpus::c_parser_all_of(log) {
        return (s, true);
    }
    if let Ok(s) = std::fs::read_to_string(&big) {
        return (s, true);
    }
    let out = output_within(
        Command::new(darshan_parser()).args(["--total", "--show-incomplete"]).arg(log),
        Duration::from_secs(60),
    );
    (String::from_utf8_lossy(&out.stdout).into_owned(), false)
}

/// The `total_*` lines of darshan-parser output, per module:
/// module → [(counter, value text)].
fn totals_of(text: &str) -> BTreeMap<String, Vec<(String, String)>> {
    let mut m: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut module = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# ").and_then(|l| l.strip_suffix(" module data")) {
            module = rest.to_string();
        } else if let Some(rest) = line.strip_prefix("total_") {
            let (k, v) = rest.split_once(": ").unwrap();
            m.entry(module.clone()).or_default().push((k.to_string(), v.to_string()));
        }
    }
    m
}

fn log_id(c: &Connection, path: &Path) -> i64 {
    c.query_row("SELECT log_id FROM logs WHERE path = ?1", [path.to_string_lossy()], |r| r.get(0)).unwrap()
}

#[test]
fn every_corpus_jobs_totals_equal_darshan_parser_total() {
    let dir = out_dir("totals");
    let db = dir.join("corpus.db");
    let sum = ingest(&[corpus()], &db);
    assert_eq!(sum.files_found, 84);
    assert_eq!(sum.ingested + sum.failed, 84, "{:?}", sum.errors);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    let t = compare_totals(&db, &logs);
    assert!(t.logs_with_totals >= 80 && t.compared > 10_000, "{t:?}");
    assert!(t.logs_against_c >= 30, "{t:?}: the corpus has C's output for 33 logs");
    assert!(t.not_recorded > 0, "{t:?}: C's logs hold POSIX_MMAPS -1");
    // At most the three slipped fcounters and the two sizes they pick.
    assert!(t.swap_slips <= 5 * t.slip_logs, "{t:?}");
}

#[test]
fn every_generated_jobs_totals_equal_darshan_parser_total() {
    let dir = out_dir("totals-synth");
    let gen = synth::generate(&dir.join("tree"), 300, 11).unwrap();
    let db = dir.join("synth.db");
    let sum = ingest(&[dir.join("tree")], &db);
    assert_eq!((sum.ingested, sum.partial, sum.failed), (300, 0, 0), "{:?}", sum.errors);
    let logs: Vec<PathBuf> = gen.into_iter().map(|g| g.path).collect();
    let t = compare_totals(&db, &logs);
    assert_eq!((t.logs_with_totals, t.swap_slips), (300, 0), "{t:?}");
}

#[test]
fn the_200000_record_logs_totals_equal_the_c_parsers() {
    let dir = out_dir("totals-big");
    let db = dir.join("big.db");
    let log = corpus().join("../big/open_storm_200k.darshan");
    let sum = ingest(std::slice::from_ref(&log), &db);
    assert_eq!(sum.ingested, 1);
    let t = compare_totals(&db, &[log]);
    assert_eq!((t.logs_against_c, t.swap_slips), (1, 0), "{t:?}");
    assert!(t.compared >= 100, "{t:?}");
}

#[derive(Debug, Default)]
struct TotalsCheck {
    /// Logs compared with the C parser's own output (the rest: ours).
    logs_against_c: usize,
    compared: usize,
    logs_with_totals: usize,
    swap_slips: usize,
    not_recorded: usize,
    slip_logs: usize,
}

/// Every `total_*` line darshan-parser prints for `logs` (C's own output
/// where the corpus has it) against the
/// database's `<module>_totals` row; panics at the first difference that
/// is not darshan-util's known byte-swap slip.
fn compare_totals(db: &Path, logs: &[PathBuf]) -> TotalsCheck {
    let c = Connection::open(db).unwrap();
    let mut t = TotalsCheck::default();
    for log in logs {
        let id = log_id(&c, log);
        let (text, from_c) = reference_totals(log);
        let expected = totals_of(&text);
        t.logs_against_c += from_c as usize;
        let header = LogFile::open(log).map(|l| l.header).ok();
        // darshan-util leaves POSIX < v4 fcounters 10-12 unswapped in
        // big-endian logs (a slip darshan-parser reproduces); we decode them.
        let slip = header.as_ref().is_some_and(|h| h.swapped && h.mod_ver[darshan_log::modules::POSIX] < 4);
        t.logs_with_totals += !expected.is_empty() as usize;
        t.slip_logs += slip as usize;
        for (module, lines) in &expected {
            let table = format!("{}_totals", darshan_ingest::schema::stem(module_id(module)));
            let cols: Vec<String> = lines.iter().map(|(k, _)| format!("\"{k}\"")).collect();
            let sql = format!("SELECT {} FROM {table} WHERE log_id = ?1", cols.join(", "));
            let got: Vec<String> = c
                .query_row(&sql, [id], |r| {
                    (0..lines.len())
                        .map(|i| {
                            Ok(match r.get_ref(i)? {
                                rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                                rusqlite::types::ValueRef::Real(v) => format!("{v:.6}"),
                                other => format!("{other:?}"),
                            })
                        })
                        .collect()
                })
                .unwrap_or_else(|e| panic!("{}: {module}: {e}", log.display()));
            for ((k, want), got) in lines.iter().zip(&got) {
                // C's −1 for a counter it does not record (POSIX_MMAPS):
                // NULL in the database, never a number to sum.
                if k == "POSIX_MMAPS" && want == "-1" {
                    assert_eq!(got, "Null", "{}: {k}", log.display());
                    t.not_recorded += 1;
                    continue;
                }
                if want != got {
                    // The slipped times also pick the slowest operation's size.
                    let allowed = slip
                        && module == "POSIX"
                        && (k.starts_with("POSIX_F_")
                            || k == "POSIX_MAX_READ_TIME_SIZE"
                            || k == "POSIX_MAX_WRITE_TIME_SIZE");
                    assert!(allowed, "{}: {k}: parser {want}, database {got}", log.display());
                    t.swap_slips += 1;
                }
                t.compared += 1;
            }
        }
    }
    eprintln!("{t:?}");
    t
}

fn module_id(name: &str) -> usize {
    darshan_log::modules::MODULE_NAMES.iter().position(|n| *n == name).unwrap()
}

#[test]
fn bad_logs_are_listed_with_their_errors_and_the_batch_goes_on() {
    let dir = out_dir("bad");
    let tree = dir.join("tree");
    std::fs::create_dir_all(tree.join("2026/11/3")).unwrap();
    let good = corpus().join("imbalanced_io__imbalanced-io.darshan");
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(tree.join("2026/11/3/a_truncated.darshan"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(tree.join("2026/11/3/b_garbage.darshan"), b"this is not a darshan log at all").unwrap();
    std::fs::write(tree.join("2026/11/3/c_empty.darshan"), b"").unwrap();
    let src = corpus().join("release_logs__mpi-io-test-x86_64-3.4.0.darshan");
    let mut flipped = std::fs::read(&src).unwrap();
    // Inside the POSIX region's compressed stream.
    let posix = LogFile::open(&src).unwrap().header.mod_map[darshan_log::modules::POSIX];
    let mid = (posix.off + posix.len / 2) as usize;
    for b in &mut flipped[mid..mid + 8] {
        *b ^= 0x5a;
    }
    std::fs::write(tree.join("2026/11/3/d_corrupt.darshan"), &flipped).unwrap();
    std::fs::copy(
        corpus().join("release_logs__mpi-io-test-x86_64-3.4.0.darshan"),
        tree.join("2026/11/3/e_good.darshan"),
    )
    .unwrap();
    std::fs::write(tree.join("2026/11/3/f_still_running.darshan_partial"), b"x").unwrap();
    let db = dir.join("bad.db");
    let sum = ingest(std::slice::from_ref(&tree), &db);
    assert_eq!(sum.files_found, 5, "the .darshan_partial file is a log still being written");
    let c = Connection::open(&db).unwrap();
    let status = |name: &str| -> (String, Option<String>) {
        c.query_row("SELECT status, error FROM logs WHERE path LIKE ?1", [format!("%{name}")], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap()
    };
    for name in ["b_garbage.darshan", "c_empty.darshan"] {
        let (s, e) = status(name);
        assert_eq!(s, "error", "{name}");
        assert!(!e.unwrap_or_default().is_empty(), "{name} has no error text");
    }
    let (s, e) = status("a_truncated.darshan");
    assert_ne!(s, "ok", "a truncated log is an error or partial: {e:?}");
    assert!(e.is_some());
    let (s, e) = status("d_corrupt.darshan");
    assert_ne!(s, "ok", "a corrupted log must not pass as complete: {e:?}");
    assert_eq!(status("e_good.darshan").0, "ok");
    // Unreadable logs are errors; a log read only in part is ingested and
    // listed as partial.
    assert_eq!(sum.errors.len() + sum.partial_logs.len(), 4, "{:?} {:?}", sum.errors, sum.partial_logs);
    assert_eq!(sum.failed, sum.errors.len());
    assert!(sum.errors.iter().chain(&sum.partial_logs).all(|e| !e.error.is_empty()));
    let jobs: i64 = c.query_row("SELECT COUNT(*) FROM jobs", [], |r| r.get(0)).unwrap();
    assert!(jobs >= 1);
}

fn counts(db: &Path) -> BTreeMap<String, i64> {
    let c = Connection::open(db).unwrap();
    darshan_ingest::schema::tables()
        .iter()
        .map(|t| (t.name.clone(), c.query_row(&format!("SELECT COUNT(*) FROM {}", t.name), [], |r| r.get(0)).unwrap()))
        .collect()
}

#[test]
fn reingesting_the_same_tree_adds_nothing() {
    let dir = out_dir("again");
    let db = dir.join("again.db");
    let first = ingest(&[corpus()], &db);
    let before = counts(&db);
    let second = ingest(&[corpus()], &db);
    assert_eq!((second.unchanged, second.ingested, second.duplicates), (84, 0, 0));
    assert_eq!(counts(&db), before);
    // The same content under another name, or touched, is not added either.
    let tree = dir.join("copies");
    std::fs::create_dir_all(&tree).unwrap();
    std::fs::copy(corpus().join("imbalanced_io__imbalanced-io.darshan"), tree.join("renamed.darshan")).unwrap();
    let third = ingest(std::slice::from_ref(&tree), &db);
    assert_eq!((third.duplicates, third.ingested), (1, 0));
    assert_eq!(counts(&db), before);
    assert!(first.ingested > 0 && before["posix_records"] > 1000);
}

#[test]
fn an_interrupted_ingest_resumes_to_the_same_database() {
    let dir = out_dir("resume");
    let tree = dir.join("tree");
    synth::generate(&tree, 3000, 7).unwrap();
    let clean = dir.join("clean.db");
    ingest(std::slice::from_ref(&tree), &clean);
    let db = dir.join("killed.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_darshan-ingest"))
        .args(["-q", "-j", "1", "--commit-every", "0.02", "--db"])
        .arg(&db)
        .arg(&tree)
        .spawn_watched();
    // Kill it once some logs are committed, and before it ends.
    let t0 = Instant::now();
    let mut committed = 0i64;
    while t0.elapsed() < Duration::from_secs(60) {
        if let Ok(c) = Connection::open(&db) {
            committed =
                c.query_row("SELECT COUNT(*) FROM logs WHERE status != 'loading'", [], |r| r.get(0)).unwrap_or(0);
        }
        if committed >= 100 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    let c = Connection::open(&db).unwrap();
    let done: i64 = c.query_row("SELECT COUNT(*) FROM logs WHERE status != 'loading'", [], |r| r.get(0)).unwrap();
    drop(c);
    assert!((100..3000).contains(&done), "killed with {done} logs committed");
    let resumed = ingest(std::slice::from_ref(&tree), &db);
    assert_eq!(resumed.ingested as i64 + resumed.unchanged as i64, 3000);
    assert!(resumed.unchanged as i64 >= done - 1, "{} unchanged after {done} committed", resumed.unchanged);
    assert_eq!(counts(&db), counts(&clean));
    let sums = |db: &Path| -> (i64, f64) {
        Connection::open(db)
            .unwrap()
            .query_row("SELECT SUM(POSIX_BYTES_WRITTEN), SUM(POSIX_F_META_TIME) FROM posix_records", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap()
    };
    let (a, b) = (sums(&db), sums(&clean));
    assert_eq!(a.0, b.0);
    assert!((a.1 - b.1).abs() <= 1e-9 * b.1.abs());
}

#[test]
fn the_parquet_export_holds_each_row_once_across_runs() {
    let dir = out_dir("parquet");
    let db = dir.join("p.db");
    let pq = dir.join("pq");
    let tree = dir.join("tree");
    synth::generate(&tree.join("a"), 300, 3).unwrap();
    ingest(&[tree.join("a")], &db);
    let store = Store::open(&db).unwrap();
    let first = parquet_out::export(&store, &pq).unwrap();
    assert_eq!(first.logs, 300);
    // Nothing new: nothing written.
    assert_eq!(parquet_out::export(&store, &pq).unwrap().files_written, 0);
    drop(store);
    synth::generate(&tree.join("b"), 200, 4).unwrap();
    ingest(std::slice::from_ref(&tree), &db);
    // What an export killed while writing leaves: a hidden temporary (a
    // name this export does not write itself, which would hide the check).
    let stale = pq.join("jobs/year=2026/month=10/.part-1-300.parquet.tmp");
    std::fs::write(&stale, b"half a file").unwrap();
    let store = Store::open(&db).unwrap();
    let second = parquet_out::export(&store, &pq).unwrap();
    assert_eq!(second.logs, 200);
    assert!(!stale.exists(), "an interrupted export's temporary is removed by the next one");
    // Every table's Parquet rows equal its database rows.
    for (table, n) in counts(&db) {
        let rows: i64 = parquet_rows(&pq.join(&table));
        assert_eq!(rows, n, "{table}");
    }
    // Partitioned by the jobs' start month, in Hive's layout.
    assert!(pq.join("jobs/year=2026/month=10").is_dir());
    assert!(pq.join("logs").read_dir().unwrap().count() >= 2);
}

fn parquet_rows(dir: &Path) -> i64 {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "parquet") {
                let r = SerializedFileReader::new(std::fs::File::open(&p).unwrap()).unwrap();
                n += r.metadata().file_metadata().num_rows();
            }
        }
    }
    n
}

/// Log names that differ only in bytes that are not UTF-8 were stored
/// decoded lossily (both as `a\u{FFFD}.darshan`): one `seen_files` row
/// for two files, so a second run took one of them for a changed file.
/// Now each path is kept as its bytes and shown escaped.
#[test]
fn non_utf8_log_names_that_differ_only_in_invalid_bytes_stay_two_files() {
    use std::os::unix::ffi::OsStrExt;
    let dir = out_dir("non-utf8");
    let tree = dir.join("logs");
    std::fs::create_dir_all(&tree).unwrap();
    let names: Vec<PathBuf> =
        [b"a\xff.darshan", b"a\xfe.darshan"].iter().map(|n| tree.join(std::ffi::OsStr::from_bytes(*n))).collect();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    sources.sort();
    for (src, dst) in sources.iter().zip(&names) {
        std::fs::copy(src, dst).unwrap();
    }
    let db = dir.join("non-utf8.db");
    let first = ingest(std::slice::from_ref(&tree), &db);
    assert_eq!((first.files_found, first.ingested + first.errors.len()), (2, 2));
    let second = ingest(std::slice::from_ref(&tree), &db);
    assert_eq!((second.unchanged, second.ingested, second.duplicates), (2, 0, 0), "both are known by their bytes");
    let c = Connection::open(&db).unwrap();
    let mut shown: Vec<String> =
        c.prepare("SELECT path FROM logs").unwrap().query_map([], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    shown.sort();
    let want: Vec<String> =
        ["a\\xfe.darshan", "a\\xff.darshan"].iter().map(|n| format!("{}/{n}", tree.display())).collect();
    assert_eq!(shown, want);
}

/// The per-process logs of a job without MPI (4 Slurm tasks) made 4 jobs
/// of one process in the study's job-size table. They are one job of 4
/// now, whether the ingest merges them or `darshan-merge --job` did.
#[test]
fn a_job_without_mpi_is_one_job_whether_or_not_its_logs_were_merged() {
    let d = out_dir("job-groups");
    let logs = d.join("logs");
    let procs = synth::process_logs(&logs, 31, 4, 8).unwrap();
    let one_job = |db: &Path| {
        let c = Connection::open(db).unwrap();
        let jobs: (i64, i64) =
            c.query_row("SELECT COUNT(*), MAX(nprocs) FROM jobs", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        assert_eq!(jobs, (1, 4), "one job of 4 processes");
        let shared: (i64, i64) = c
            .query_row(
                "SELECT rank, POSIX_WRITES FROM posix_records WHERE file_name = '/lustre/proj/out/result.dat'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(shared, (-1, 32), "the shared output, every task's writes, once");
        let own: i64 = c
            .query_row("SELECT COUNT(DISTINCT rank) FROM posix_records WHERE file_name LIKE '%/in/part%'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(own, 4, "each task's input under its rank");
    };
    // Not merged: the ingest makes the job log.
    let db = d.join("unmerged.db");
    let s = ingest(std::slice::from_ref(&logs), &db);
    assert_eq!((s.ingested, s.process_logs_grouped, s.job_logs_made, s.failed), (1, 4, 1, 0), "{s:?}");
    one_job(&db);
    let again = ingest(std::slice::from_ref(&logs), &db);
    assert_eq!((again.ingested, again.unchanged), (0, 4), "{again:?}");
    // Merged beside them by darshan-merge --job: the job log stands for them.
    let (mut jobs, _) = darshan_util::job_inputs::group_by_job(&procs);
    let key = "slurm-31.0";
    let job_log = logs.join("job.darshan");
    darshan_util::job_merge::merge_job(
        jobs.remove(key).unwrap(),
        key,
        &job_log,
        &darshan_util::job_merge::JobOptions::default(),
    )
    .unwrap();
    let db = d.join("merged.db");
    let s = ingest(std::slice::from_ref(&logs), &db);
    assert_eq!((s.ingested, s.process_logs_grouped, s.job_logs_made), (1, 4, 0), "{s:?}");
    one_job(&db);
}

/// A log's stated cost (darshan_cost_*) lands in jobs.cost_*, a log
/// without it (C Darshan's) leaves NULLs, and a database of schema 1 (no
/// cost columns) gains them when opened, its old rows NULL there.
#[test]
fn the_runtimes_stated_cost_is_stored_and_an_old_database_gains_its_columns() {
    let d = out_dir("cost");
    let tree = d.join("logs");
    std::fs::create_dir_all(&tree).unwrap();
    let cost = darshan_log::cost::Cost { startup_us: 420, shutdown_us: 90, calls: 25_002, est_us: 716, call_ns: 28.62 };
    let mut job = darshan_log::Job {
        uid: 1000,
        start_time_sec: 1_700_000_000,
        end_time_sec: 1_700_000_002,
        nprocs: 1,
        jobid: 77,
        metadata: format!("lib_ver=3.5.0\nh=\n{}", cost.lines(2.0, 1)).into_bytes(),
        exe_mnt: b"/bin/app\n".to_vec(),
        ..Default::default()
    };
    let ours = tree.join("u_app_id77-77_1-1-1-1_1.darshan");
    synth::write_log(&ours, &job, &darshan_log::NameTable::new(), Vec::new()).unwrap();
    job.metadata = b"lib_ver=3.4.6\nh=\n".to_vec();
    job.jobid = 78;
    let theirs = tree.join("u_app_id78-78_1-1-1-1_1.darshan");
    synth::write_log(&theirs, &job, &darshan_log::NameTable::new(), Vec::new()).unwrap();

    // A schema-1 database: the jobs table without the cost columns.
    let db = d.join("f.db");
    ingest(std::slice::from_ref(&theirs), &db);
    {
        let c = Connection::open(&db).unwrap();
        for col in ["cost_startup_us", "cost_shutdown_us", "cost_calls", "cost_est_us", "cost_share_pct"] {
            c.execute(&format!("ALTER TABLE jobs DROP COLUMN {col}"), []).unwrap();
        }
        c.execute("UPDATE ingest_meta SET value = '1' WHERE key = 'schema_version'", []).unwrap();
    }
    ingest(std::slice::from_ref(&tree), &db);
    let c = Connection::open(&db).unwrap();
    type CostRow = (Option<i64>, Option<i64>, Option<i64>, Option<i64>, Option<f64>);
    let row = |jobid: i64| -> CostRow {
        c.query_row(
            "SELECT cost_startup_us, cost_shutdown_us, cost_calls, cost_est_us, cost_share_pct FROM jobs WHERE jobid = ?1",
            [jobid],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap()
    };
    // 1,226 us of 2 s.
    assert_eq!(row(77), (Some(420), Some(90), Some(25_002), Some(716), Some(0.0613)));
    assert_eq!(row(78), (None, None, None, None, None));
    let v: String =
        c.query_row("SELECT value FROM ingest_meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(v, darshan_ingest::store::SCHEMA_VERSION.to_string());
}

/// A database of schema 2, whose io_uring_records lack IO_URING version
/// 2's ring columns, gains them when opened and the run says so on
/// standard error; its rows keep no value there, and a new log's ring
/// facts land in them (an insert naming no columns put them in the wrong
/// place, or failed on the count).
#[test]
fn an_old_database_gains_the_io_uring_ring_columns_and_says_so() {
    use darshan_log::counters::io_uring as u;
    let d = out_dir("uring-upgrade");
    let job = |jobid: i64| darshan_log::Job {
        uid: 1000,
        start_time_sec: 1_700_000_000,
        end_time_sec: 1_700_000_002,
        nprocs: 1,
        jobid,
        exe_mnt: b"/bin/ring\n".to_vec(),
        ..Default::default()
    };
    let log = |dir: &str, jobid: i64| -> PathBuf {
        let tree = d.join(dir);
        std::fs::create_dir_all(&tree).unwrap();
        let mut names = darshan_log::NameTable::new();
        names.insert(darshan_log::record_id(b"<io_uring>"), b"<io_uring>");
        let mut r = synth::blank(darshan_log::modules::IO_URING, "<io_uring>", 0);
        r.counters[u::RINGS] = 2;
        r.counters[u::SUBMIT_CALLS] = 10;
        let path = tree.join(format!("u_ring_id{jobid}-{jobid}_1-1-1-1_1.darshan"));
        synth::write_log(&path, &job(jobid), &names, vec![r]).unwrap();
        tree
    };
    let db = d.join("f.db");
    ingest(&[log("old", 1)], &db);
    {
        let c = Connection::open(&db).unwrap();
        for col in &u::NAMES[u::RINGS..] {
            c.execute(&format!("ALTER TABLE io_uring_records DROP COLUMN {col}"), []).unwrap();
        }
        c.execute("UPDATE ingest_meta SET value = '2' WHERE key = 'schema_version'", []).unwrap();
    }
    let o = output_within(
        Command::new(env!("CARGO_BIN_EXE_darshan-ingest")).arg("--db").arg(&db).arg(log("new", 2)),
        Duration::from_secs(60),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("from schema 2 to 5: 8 columns added (io_uring_records.IO_URING_RINGS"), "{err}");
    let c = Connection::open(&db).unwrap();
    let rings = |jobid: i64| -> (Option<i64>, Option<i64>) {
        c.query_row(
            "SELECT r.IO_URING_RINGS, r.IO_URING_SUBMIT_CALLS FROM io_uring_records r JOIN jobs j ON j.log_id = r.log_id \
             WHERE j.jobid = ?1",
            [jobid],
            |x| Ok((x.get(0)?, x.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!((rings(1), rings(2)), ((None, None), (Some(2), Some(10))));
}
