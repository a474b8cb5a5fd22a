//! The report on a Python/AI job nobody here wrote: the 24 per-process
//! logs of a DLIO training run (C Darshan 3.4.6, in the corpus), merged
//! with the job merge, read as a user would (issue: "A report that
//! understands the job it describes").

use std::path::{Path, PathBuf};

use darshan_report::{analyze, render, Options};
use darshan_util::job_inputs::group_by_job;
use darshan_util::job_merge::{merge_job, JobOptions};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

/// The DLIO run's job log, made here.
fn dlio_job_log() -> PathBuf {
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("dlio_logs__"))
        .collect();
    logs.sort();
    assert_eq!(logs.len(), 24);
    let (jobs, bad) = group_by_job(&logs);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(jobs.len(), 1);
    let (key, procs) = jobs.into_iter().next().unwrap();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dlio-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("dlio_job.darshan");
    merge_job(procs, &key, &out, &JobOptions { job_end_time: None }).unwrap();
    out
}

fn software(name: &str) -> bool {
    name.contains("entry_points.txt") || name.contains(".pyc") || name.contains("site-packages") || name.ends_with("pyvenv.cfg")
}

/// "processes 1" and every file "shared" by one process; "Mmap -194" in
/// the operations; L02 on 22 entry_points.txt files. Now: 24 processes
/// (one rank each, in start order, said in the metadata), POSIX_MMAPS
/// (−1 in C's logs) "not recorded", and the environment's files only in
/// the software-loading line.
#[test]
fn the_dlio_job_has_24_processes_no_negative_counts_and_software_apart() {
    let log = dlio_job_log();
    let job = darshan_log::LogFile::open(&log).unwrap().job;
    assert_eq!(job.nprocs, 24);
    assert!(String::from_utf8_lossy(&job.metadata).contains("job_ranks=start_order"));
    let r = analyze(&log, &Options::default()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&render::json(&r)).unwrap();
    assert_eq!(json["job"]["nprocs"], 24);
    let posix = json["module_stats"].as_array().unwrap().iter().find(|m| m["module"] == "POSIX").unwrap();
    assert_eq!(posix["not_recorded"], serde_json::json!(["Mmap"]));
    for (label, n) in posix["op_counts"].as_array().unwrap().iter().map(|v| (v[0].as_str().unwrap(), v[1].as_i64().unwrap())) {
        assert!(n >= 0, "{label} {n}");
    }
    let text = render::text::render(&r);
    let ops = text.lines().find(|l| l.trim_start().starts_with("operations") && l.contains("Seek")).unwrap();
    assert!(!ops.contains('-'), "{ops}");
    assert!(text.contains("not recorded       Mmap"), "{text}");
    // The environment's files: in N02 alone.
    let mut in_n02 = 0;
    for f in json["findings"].as_array().unwrap() {
        for e in f["evidence"].as_array().unwrap() {
            let e = e.as_str().unwrap();
            if software(e) {
                assert_eq!(f["code"], "N02", "{} names a software file: {e}", f["code"]);
                in_n02 += 1;
            }
        }
    }
    assert!(in_n02 > 0, "N02 names the environment's files");
    let n02 = json["findings"].as_array().unwrap().iter().find(|f| f["code"] == "N02").unwrap();
    assert!(n02["title"].as_str().unwrap().starts_with("Software loading: 22 files"), "{n02}");
}
