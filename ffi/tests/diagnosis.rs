//! Known answers for the diagnosis (docs/report.md): every code the
//! diagnosis can emit has a program, compiled here and run on 4 ranks
//! under the library, whose log makes darshan-summary report it
//! (tests/programs/diagnosis_cases.c, one case per access pattern); and a
//! set of correct programs (collective MPI-IO and IOR's default runs on
//! Open MPI and MPICH, sqlite3, a Python script, tar) gets no WARN or
//! HIGH finding at the default thresholds.
//!
//! The trigger cases run with thresholds lowered for time (`min_time` 0,
//! `metadata_time_rank` 1 ms) and Lustre file size (1 MiB): a test
//! machine's local disk is too fast, and a test's files too small, to
//! cross the defaults that keep those findings quiet on real jobs; the
//! rules themselves are the defaults'. Each case's log is copied to
//! target/diagnosis-logs/; with KEEP_DIAGNOSIS_LOGS=1, also to
//! tests/diagnosis/logs/, where the kept logs are checked without MPI.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::fuse::Fuse;
use common::mpi::{self, Mpi};
use common::*;
use darshan_report::diagnose::Config;
use darshan_report::model::Level;
use darshan_report::{analyze, Options, Report};
use darshan_test_support::lustre_blobs::{plain, LOV_PATTERN_RAID0};

/// The trigger cases' thresholds (see the module comment).
const TRIGGER_CONFIG: &str = r#"{"min_time": 0, "metadata_time_rank": 0.001, "lustre_large_file": 1048576}"#;

/// How a case runs beyond `diagnosis_cases CASE DIR [INPUT]`.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    Plain,
    /// Reads the 8 MiB input file the test makes (every case is given
    /// it; these read it).
    Input,
    /// Per-rank records of shared files kept (P21, P22).
    Unreduced,
    /// DXT on and the log's MPI-IO hints set to `cb_nodes=N` (M08-M10).
    Hints(u32),
    /// As `Hints`, each rank under its own host name, two "nodes" (M08).
    TwoNodes(u32),
    /// On the FUSE file system that serves Lustre layouts (L01-L03, P08).
    Lustre,
}

/// (name of the kept log, case, how it runs, the codes it must give).
const CASES: &[(&str, &str, Run, &[&str])] = &[
    ("stdio", "stdio", Run::Plain, &["S01"]),
    ("small-writes", "small-writes", Run::Plain, &["M01", "P01", "P03", "P06", "P14"]),
    ("small-reads", "small-reads", Run::Input, &["P02", "P04", "P05", "P12", "P15"]),
    ("misaligned", "misaligned", Run::Plain, &["P07"]),
    ("reread", "reread", Run::Input, &["P09"]),
    ("rewrite", "rewrite", Run::Plain, &["P10"]),
    ("random-reads", "random-reads", Run::Input, &["P11"]),
    ("random-writes", "random-writes", Run::Plain, &["P13"]),
    ("shared-small", "shared-small", Run::Plain, &["P16", "X04"]),
    ("metadata", "metadata", Run::Plain, &["P17", "X02", "X03"]),
    ("stragglers", "stragglers", Run::Plain, &["P18", "P19"]),
    ("stragglers-unreduced", "stragglers", Run::Unreduced, &["P21"]),
    ("read-imbalance", "read-imbalance", Run::Unreduced, &["P22"]),
    ("independent-mpiio", "independent-mpiio", Run::Plain, &["M02", "M03"]),
    ("collective", "collective", Run::Plain, &["M04", "M05", "M06", "M07", "M11", "N01"]),
    ("collective-cb4", "collective", Run::Hints(4), &["M09"]),
    ("collective-cb1", "collective", Run::Hints(1), &["M10"]),
    ("collective-two-nodes", "collective", Run::TwoNodes(1), &["M08"]),
    ("burst", "burst", Run::Plain, &["J01"]),
    ("serial", "serial", Run::Plain, &["J02"]),
    ("fs-load", "fs-load", Run::Plain, &["F01"]),
    ("lustre", "lustre", Run::Lustre, &["L01", "L02", "L03", "P08"]),
    ("epochs", "epochs", Run::Plain, &["E01"]),
    ("software", "software", Run::Plain, &["N02"]),
];

fn trigger_config() -> Config {
    Config::from_json(TRIGGER_CONFIG).unwrap()
}

fn report(log: &Path, config: Config) -> Report {
    analyze(log, &Options { config, top: 10 }).unwrap_or_else(|e| panic!("{}: {e}", log.display()))
}

fn codes(r: &Report) -> BTreeSet<String> {
    r.findings.iter().map(|f| f.code.clone()).collect()
}

/// Every code the diagnosis's sources can emit: the quoted codes in
/// crates/darshan-report/src/diagnose/.
fn codes_in_sources() -> BTreeSet<String> {
    let dir = root().join("crates/darshan-report/src/diagnose");
    let mut out = BTreeSet::new();
    for f in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        for (i, _) in text.match_indices('"') {
            let c = &text.as_bytes()[i + 1..];
            if c.len() > 4
                && b"SPMXJFLNE".contains(&c[0])
                && c[1].is_ascii_digit()
                && c[2].is_ascii_digit()
                && c[3] == b'"'
            {
                out.insert(String::from_utf8_lossy(&c[..3]).into_owned());
            }
        }
    }
    out
}

/// The kept logs' directory.
fn kept() -> PathBuf {
    root().join("tests/diagnosis/logs")
}

/// Runs one case under Open MPI and returns its log (None: the case
/// cannot run here, with a line saying why).
fn run_case(name: &str, case: &str, how: Run, exe: &Path) -> Option<PathBuf> {
    let d = scratch(&format!("diag-{name}"));
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let input = d.join("input.bin");
    let bytes: Vec<u8> = (0..8u32 << 20).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    std::fs::write(&input, bytes).unwrap();
    let mut env: Vec<(&str, String)> = Vec::new();
    let fuse;
    let target = match how {
        Run::Lustre => {
            fuse = Fuse::start_with(&d, &[("LUSTRE_FUSE_BSIZE", "1048576")])?;
            fuse.layout("wide.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 1, None, &[0]));
            fuse.layout("tiny.dat", &plain(LOV_PATTERN_RAID0, 1 << 20, 4, None, &[0, 1, 2, 3]));
            fuse.mount.clone()
        }
        _ => data.clone(),
    };
    match how {
        Run::Unreduced => env.push(("DARSHAN_DISABLE_SHARED_REDUCTION", "1".into())),
        Run::Hints(cb) | Run::TwoNodes(cb) => {
            env.push(("DXT_ENABLE_IO_TRACE", "1".into()));
            env.push(("DARSHAN_LOGHINTS", format!("cb_nodes={cb}")));
        }
        _ => {}
    }
    let env_ref: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let args = [case.to_string(), target.display().to_string(), input.display().to_string()];
    let logs = if let Run::TwoNodes(_) = how {
        // Each rank renames its host in a UTS namespace of its own before
        // the program starts: DXT records two host names, as on 2 nodes.
        if !status(Command::new("unshare").args(["-u", "true"])).success() {
            eprintln!("SKIPPED {name}: unshare -u (a UTS namespace) is not allowed here");
            return None;
        }
        let script = format!(
            "hostname node$(( ${{OMPI_COMM_WORLD_RANK:-0}} % 2 )) && exec {} {}",
            exe.display(),
            args.join(" ")
        );
        mpi::mpirun(Mpi::OpenMpi, Path::new("unshare"), &["-u", "sh", "-c", &script], &d, &env_ref)
    } else {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        mpi::mpirun(Mpi::OpenMpi, exe, &a, &d, &env_ref)
    };
    assert_eq!(logs.len(), 1, "{name}: one log: {logs:?}");
    let keep = root().join("target/diagnosis-logs");
    std::fs::create_dir_all(&keep).unwrap();
    std::fs::copy(&logs[0], keep.join(format!("{name}.darshan"))).unwrap();
    if std::env::var_os("KEEP_DIAGNOSIS_LOGS").is_some() {
        std::fs::create_dir_all(kept()).unwrap();
        std::fs::copy(&logs[0], kept().join(format!("{name}.darshan"))).unwrap();
    }
    Some(logs[0].clone())
}

/// Every code in the diagnosis's sources is some case's known answer.
#[test]
fn every_diagnosis_code_has_a_known_answer_program() {
    let known: BTreeSet<String> = CASES.iter().flat_map(|c| c.3.iter().map(|s| s.to_string())).collect();
    let emitted = codes_in_sources();
    let missing: Vec<&String> = emitted.difference(&known).collect();
    assert!(missing.is_empty(), "codes without a known-answer program: {missing:?}");
    let stale: Vec<&String> = known.difference(&emitted).collect();
    assert!(stale.is_empty(), "known answers for codes the diagnosis no longer has: {stale:?}");
}

/// Each case's program, run now, gives its codes.
#[test]
fn each_known_answer_program_gives_its_codes() {
    let d = scratch("diag-build");
    let exe = mpi::mpicc(Mpi::OpenMpi, "diagnosis_cases", &d);
    let mut failures = Vec::new();
    for &(name, case, how, want) in CASES {
        let Some(log) = run_case(name, case, how, &exe) else { continue };
        let got = codes(&report(&log, trigger_config()));
        let lacking: Vec<&&str> = want.iter().filter(|c| !got.contains(**c)).collect();
        if !lacking.is_empty() {
            failures.push(format!("{name}: {lacking:?} missing from {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The logs kept under tests/diagnosis/logs give the same codes (a check
/// of the analysis alone, independent of this machine's timing).
#[test]
fn the_kept_logs_give_their_codes() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for &(name, _, _, want) in CASES {
        let log = kept().join(format!("{name}.darshan"));
        assert!(log.exists(), "no kept log {} (KEEP_DIAGNOSIS_LOGS=1 makes them)", log.display());
        let got = codes(&report(&log, trigger_config()));
        for c in want.iter().filter(|c| !got.contains(**c)) {
            failures.push(format!("{name}: {c} missing from {got:?}"));
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(checked, CASES.len());
}

/// No finding of a correct program may be a WARN or a HIGH.
fn assert_quiet(what: &str, logs: &[PathBuf]) {
    assert!(!logs.is_empty(), "{what}: no log");
    for log in logs {
        let r = report(log, Config::default());
        let loud: Vec<String> = r
            .findings
            .iter()
            .filter(|f| matches!(f.level, Level::High | Level::Warn))
            .map(|f| format!("{} {}", f.code, f.title))
            .collect();
        assert!(loud.is_empty(), "{what} ({}): {loud:#?}", log.display());
    }
}

fn collective_and_ior_are_quiet(m: Mpi) {
    let d = scratch(&format!("quiet-mpi-{}", m.tag()));
    let coll = mpi::mpicc(m, "collective_textbook", &d);
    let ior = mpi::mpicc(m, "ior_like", &d);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    for (what, exe, args) in [
        ("collective MPI-IO", &coll, vec![data.join("coll.dat").display().to_string()]),
        ("IOR's default POSIX run", &ior, vec!["posix".into(), data.join("ior-posix.dat").display().to_string()]),
        ("IOR's default MPI-IO run", &ior, vec!["mpiio".into(), data.join("ior-mpiio.dat").display().to_string()]),
    ] {
        let _ = std::fs::remove_dir_all(d.join("logs"));
        std::fs::create_dir_all(d.join("logs")).unwrap();
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let logs = mpi::mpirun(m, exe, &a, &d, &[]);
        assert_quiet(&format!("{what} on {m:?}"), &logs);
    }
    ior_1m_is_quiet(m, &ior, &d);
}

/// IOR at -b 16m -t 1m, a stripe a request, was told of "small requests
/// (< 1 MiB)" (P05, P06, P15, P16): C's 100K_1M bucket holds requests of
/// exactly 1 MiB too. Ten small requests are many here and any time
/// counts, so 64 requests each way cross the thresholds they would cross
/// at scale (any time counting, this machine's stragglers are said too:
/// only the small-request codes are checked).
fn ior_1m_is_quiet(m: Mpi, ior: &Path, d: &Path) {
    let data = d.join("data");
    for api in ["posix", "mpiio"] {
        let _ = std::fs::remove_dir_all(d.join("logs"));
        std::fs::create_dir_all(d.join("logs")).unwrap();
        let file = data.join(format!("ior-1m-{api}.dat")).display().to_string();
        let logs = mpi::mpirun(m, ior, &[api, &file, "16777216", "1048576"], d, &[]);
        assert_eq!(logs.len(), 1, "{logs:?}");
        let r = report(&logs[0], Config::from_json(SMALL_CONFIG).unwrap());
        for code in ["P05", "P06", "P15", "P16"] {
            let what = format!("IOR -a {api} -b 16m -t 1m on {m:?}: {code}");
            assert!(!codes(&r).contains(code), "{what}: {:#?}", r.findings);
            let w = r.withheld.iter().find(|w| w.code == code).unwrap_or_else(|| panic!("{what}: {:#?}", r.withheld));
            assert!(w.reason.contains("64 of them of exactly 1 MiB"), "{what}: {}", w.reason);
        }
    }
}

on_both_mpis!(collective_and_ior_are_quiet);

/// sqlite3 with 3,000 inserts in one transaction and a query, a Python
/// script writing and reading JSON, and `tar czf` of a directory.
#[test]
fn serial_programs_are_quiet() {
    let d = scratch("quiet-serial");
    let sql = d.join("ins.sql");
    let mut text = String::from("CREATE TABLE t(a INTEGER, b TEXT);\nBEGIN;\n");
    for i in 0..3000 {
        text += &format!("INSERT INTO t VALUES({i}, 'row number {i} with some text');\n");
    }
    text += "COMMIT;\nSELECT count(*), sum(a) FROM t;\nSELECT * FROM t WHERE a % 97 = 0;\n";
    std::fs::write(&sql, text).unwrap();
    let tree = d.join("tree");
    std::fs::create_dir_all(tree.join("sub")).unwrap();
    for (i, f) in ["a.bin", "sub/b.bin", "sub/c.txt"].iter().enumerate() {
        let bytes: Vec<u8> = (0..(3u32 << 20) + i as u32 * 1000).map(|k| (k.wrapping_mul(40503) >> 8) as u8).collect();
        std::fs::write(tree.join(f), bytes).unwrap();
    }
    let script = d.join("roundtrip.py");
    std::fs::write(
        &script,
        "import json, sys\nd = {'x': list(range(20000))}\nwith open(sys.argv[1], 'w') as f:\n    json.dump(d, f)\n\
         with open(sys.argv[1]) as f:\n    print(len(json.load(f)['x']))\n",
    )
    .unwrap();
    let runs: Vec<(&str, Command)> = vec![
        ("sqlite3", {
            let mut c = instrumented(Path::new("sqlite3"), &d);
            c.arg(d.join("db.sqlite")).arg(format!(".read {}", sql.display()));
            c
        }),
        ("a Python script", {
            let mut c = instrumented(&python(), &d);
            c.arg(&script).arg(d.join("out.json"));
            c
        }),
        ("tar czf of a directory", {
            let mut c = instrumented(Path::new("tar"), &d);
            c.arg("czf").arg(d.join("out.tgz")).arg("-C").arg(&d).arg("tree");
            c
        }),
    ];
    for (what, mut cmd) in runs {
        let _ = std::fs::remove_dir_all(d.join("logs"));
        std::fs::create_dir_all(d.join("logs")).unwrap();
        let out = output_within(&mut cmd, LIMIT);
        assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        assert_quiet(what, &files(&d.join("logs")));
    }
}

/// `dd` wrote a file in 3,000 small writes and `cat` read it: the job's
/// record of the file is shared, and the report warned of "3,000 small
/// writes to 1 shared file by several processes" (X04) with advice to
/// have one process write it, which one process already did.
#[test]
fn x04_warned_a_pipeline_whose_file_one_process_wrote_and_another_read() {
    let d = scratch("x04-one-writer");
    let f = d.join("f.dat");
    let mut sh = instrumented(Path::new("sh"), &d);
    sh.env("SLURM_JOB_ID", "5152")
        .arg("-c")
        .arg(format!("dd if=/dev/zero of={0} bs=512 count=3000 2>/dev/null && cat {0} >/dev/null", f.display()));
    let out = output_within(&mut sh, LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let job = d.join("job.darshan");
    let o = output(Command::new(built("darshan-merge")).arg("--job").arg("--output").arg(&job).arg(d.join("logs")));
    assert!(o.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&o.stderr));
    let r = report(&job, Config::default());
    assert!(!codes(&r).contains("X04"), "{:#?}", r.findings);
    assert!(r.withheld.iter().any(|w| w.code == "X04"), "the rule's count is said as withheld: {:#?}", r.withheld);
    assert_quiet("dd then cat", &[job]);
}

/// The thresholds of the small-request tests below: any time counts, and
/// ten small requests are many, so a test's few megabytes cross them.
const SMALL_CONFIG: &str = r#"{"min_time": 0, "small_requests_absolute": 10}"#;

/// The logs of `dd` run under the library with `args`, one log.
fn dd_log(d: &Path, args: &[String]) -> PathBuf {
    let _ = std::fs::remove_dir_all(d.join("logs"));
    std::fs::create_dir_all(d.join("logs")).unwrap();
    let out = output_within(instrumented(Path::new("dd"), d).args(args), LIMIT);
    assert!(out.status.success(), "dd {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    logs[0].clone()
}

/// `dd bs=1M` wrote and read a file a mebibyte at a time, and the report
/// said "High number of small write requests (< 1 MiB)": C Darshan's
/// 100K_1M bucket holds requests of exactly 1 MiB too, and Drishti counts
/// that bucket as small. The common access sizes tell them apart: the
/// rule is held back, saying so; 64 KiB blocks still give it.
#[test]
fn dd_bs_1m_was_told_its_1_mib_requests_were_small() {
    let d = scratch("dd-1mib");
    let f = d.join("data/f.dat");
    let cfg = || Config::from_json(SMALL_CONFIG).unwrap();
    let of = format!("of={}", f.display());
    let iff = format!("if={}", f.display());
    for (what, args, code) in [
        ("write", vec!["if=/dev/zero".into(), of.clone(), "bs=1M".into(), "count=40".into()], "P06"),
        ("read", vec![iff.clone(), "of=/dev/null".into(), "bs=1M".into()], "P05"),
    ] {
        let r = report(&dd_log(&d, &args), cfg());
        assert!(!codes(&r).contains(code), "dd bs=1M {what}s: {:#?}", r.findings);
        let w =
            r.withheld.iter().find(|w| w.code == code).unwrap_or_else(|| panic!("{code} withheld: {:#?}", r.withheld));
        assert!(w.reason.contains("40 of them of exactly 1 MiB"), "{}", w.reason);
    }
    let small = dd_log(&d, &["if=/dev/zero".into(), of, "bs=64k".into(), "count=40".into()]);
    let r = report(&small, cfg());
    let p06 = r.findings.iter().find(|f| f.code == "P06").unwrap_or_else(|| panic!("{:#?}", r.findings));
    assert!(p06.title.contains("(40)"), "{}", p06.title);
    // dd is no data loader: the advice is for a program's own blocks.
    let advice = p06.recommendation.as_deref().unwrap_or("");
    assert!(advice.contains("block") && !advice.contains("data loader"), "{advice}");
}

/// A Python script's small unbuffered writes: the advice is the data
/// loader's (shards, workers), which a program without Python was given
/// too.
#[test]
fn a_python_jobs_small_writes_get_the_data_loaders_advice() {
    let d = scratch("python-small");
    let script = d.join("small.py");
    std::fs::write(
        &script,
        "import os, sys\nfd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT, 0o600)\n\
         for i in range(400):\n    os.write(fd, b'x' * 4096)\nos.close(fd)\n",
    )
    .unwrap();
    let mut c = instrumented(&python(), &d);
    c.arg(&script).arg(d.join("data/out.bin"));
    let out = output_within(&mut c, LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = files(&d.join("logs"));
    let r = report(&logs[0], Config::from_json(SMALL_CONFIG).unwrap());
    let p06 = r.findings.iter().find(|f| f.code == "P06").unwrap_or_else(|| panic!("{:#?}", r.findings));
    assert!(p06.recommendation.as_deref().unwrap_or("").contains("data loader"), "{p06:#?}");
}

/// numpy's `save` and `load` of a 16 MiB array are one `fwrite` and one
/// `fread` each, which the C library hands to write and read whole; the
/// report said "STDIO moves 80% of the job's data" (S01, HIGH) with the
/// advice to use POSIX with large requests, which it already was.
#[test]
fn numpys_save_and_load_were_told_stdio_moved_the_data() {
    let d = scratch("numpy-stdio");
    let python = root().join(".venv/bin/python");
    assert!(python.exists(), "the venv (scripts/setup.sh)");
    let mut c = instrumented(&python, &d);
    c.arg("-c")
        .arg("import numpy as np, sys\na = np.ones((2048, 1024))\nnp.save(sys.argv[1], a)\nassert (np.load(sys.argv[1]) == a).all()\n")
        .arg(d.join("data/a.npy"));
    let out = output_within(&mut c, LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let r = report(&logs[0], Config::default());
    assert!(!codes(&r).contains("S01"), "{:#?}", r.findings);
    let w = r.withheld.iter().find(|w| w.code == "S01").unwrap_or_else(|| panic!("S01 withheld: {:#?}", r.withheld));
    assert!(w.reason.contains("32.00 MiB of it through 1 file in requests of 1 MiB or more"), "{}", w.reason);
}

/// pyspark writing and reading a small Parquet data set: its JVM read
/// Spark's 250 jars in 26,791 small reads at scattered offsets, and the
/// report said "High number (6,519) of random read operations" (P11,
/// HIGH) with the advice to read samples in order, and that the job's
/// I/O was bursty (J01) and loaded the file system (F01), for 15 KiB of
/// data read. The rules over a module's sums now leave software loading
/// out, as the file-level rules did.
#[test]
fn a_spark_jobs_jar_reads_were_told_random_reads() {
    let d = scratch("spark-jars");
    let tmp = d.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let script = d.join("job.py");
    std::fs::write(
        &script,
        "import sys\nfrom pyspark.sql import SparkSession\n\
         s = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')\
         .config('spark.local.dir', sys.argv[2])\
         .config('spark.driver.extraJavaOptions', '-XX:-UsePerfData -Djava.io.tmpdir=' + sys.argv[2]).getOrCreate()\n\
         s.range(0, 200000).selectExpr('id', 'id * 2 as y').write.mode('overwrite').parquet(sys.argv[1])\n\
         assert s.read.parquet(sys.argv[1]).count() == 200000\ns.stop()\n",
    )
    .unwrap();
    // As a user runs it: darshan-run merges the job's processes (the
    // interpreter, its JVM and their children) into one job log.
    let mut c = Command::new(built("darshan-run"));
    c.arg("--quiet").arg("--lib").arg(lib()).arg("--log-dir").arg(d.join("logs")).arg("--");
    c.arg(root().join(".venv/bin/python")).arg(&script).arg(d.join("data/out")).arg(&tmp);
    c.env("TMPDIR", &tmp).env("SPARK_LOCAL_DIRS", &tmp).env("DARSHAN_MMAP_LOGPATH", d.join("mmap"));
    let out = output_within(&mut c, LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = report(&only_log(&d), Config::default());
    let software = r.findings.iter().find(|f| f.code == "N02").unwrap_or_else(|| panic!("{:#?}", r.findings));
    assert!(software.evidence.iter().any(|e| e.contains(".jar")), "{software:#?}");
    let told: Vec<_> = r
        .findings
        .iter()
        .filter(|f| {
            matches!(f.level, Level::High | Level::Warn) || ["P02", "P04", "J01", "F01"].contains(&f.code.as_str())
        })
        .collect();
    assert!(told.is_empty(), "{told:#?}");
    let p11 = r.withheld.iter().find(|w| w.code == "P11").unwrap_or_else(|| panic!("P11 withheld: {:#?}", r.withheld));
    // Held back for the software loading (its reads may also have taken
    // under `min_time`, which holds P11 back when counted too).
    assert!(p11.reason.contains("software loading"), "{}", p11.reason);
}

/// An image loader (PIL in two pool workers, two passes over 600 small
/// JPEG files): the decoder reads each file's header, then the file from
/// its start, a third of its reads "random". The report said "[HIGH] P11
/// High number of random read operations" though all its reads took
/// milliseconds, where P05-P08 were held back for the same time.
#[test]
fn an_image_loaders_header_reads_were_told_random_though_they_took_milliseconds() {
    let d = scratch("image-loader");
    let python = root().join(".venv/bin/python");
    let make =
        "import os, sys\nfrom PIL import Image\nos.makedirs(sys.argv[1], exist_ok=True)\nfor i in range(600):\n    \
                Image.effect_noise((96, 96), 64).convert('RGB').save(os.path.join(sys.argv[1], f'img_{i:04d}.jpg'))\n";
    let made = output(Command::new(&python).arg("-c").arg(make).arg(d.join("data")));
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let load = "import os, sys\nfrom multiprocessing import Pool\nfrom PIL import Image\n\
                def load(p):\n    with Image.open(p) as im:\n        return im.convert('RGB').getpixel((0, 0))[0]\n\
                if __name__ == '__main__':\n    files = sorted(os.path.join(sys.argv[1], f) for f in os.listdir(sys.argv[1]))\n    \
                with Pool(2) as pool:\n        for epoch in range(2):\n            pool.map(load, files, chunksize=16)\n";
    let mut c = Command::new(built("darshan-run"));
    c.arg("--quiet").arg("--lib").arg(lib()).arg("--log-dir").arg(d.join("logs")).arg("--");
    c.arg(&python).arg("-c").arg(load).arg(d.join("data")).env("DARSHAN_MMAP_LOGPATH", d.join("mmap"));
    let out = output_within(&mut c, LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = report(&only_log(&d), Config::default());
    let read_time = r.io_cost.iter().find(|c| c.interface == "POSIX").and_then(|c| c.read).unwrap_or(f64::MAX);
    assert!(read_time < 1.0, "the premise: the reads took under min_time ({read_time} s a process)");
    assert!(!codes(&r).contains("P11"), "{:#?}", r.findings);
    let p11 = r.withheld.iter().find(|w| w.code == "P11").unwrap_or_else(|| panic!("P11 withheld: {:#?}", r.withheld));
    assert!(p11.reason.contains("random reads") && p11.reason.contains("a finding about time needs"), "{}", p11.reason);
}
