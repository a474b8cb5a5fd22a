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
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("dlio-{}-{k}", std::process::id()));
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
    assert!(text.contains("processes 24 (one rank each, in the order they started"), "{text}");
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

/// Two HIGH findings with MPI advice and "read it on one rank and
/// MPI_Bcast" for a PyTorch job: a job without MPI gets the advice that
/// exists for it, and M01 ("does not use MPI-IO") is held back.
#[test]
fn the_dlio_job_gets_no_mpi_advice() {
    let r = analyze(&dlio_job_log(), &Options::default()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&render::json(&r)).unwrap();
    for f in json["findings"].as_array().unwrap() {
        let rec = f["recommendation"].as_str().unwrap_or("");
        assert!(!rec.contains("MPI") && !rec.contains("collective"), "{}: {rec}", f["code"]);
    }
    assert!(json["withheld"].as_array().unwrap().iter().any(|w| w["code"] == "M01"));
}

/// "97 GiB read more than once ... MPI_Bcast": the training read its data
/// set about five times over (DLIO's five epochs: 121 GiB in 30,570 reads
/// of 4 MiB over 168 files of 23.5 GiB). Said as passes over the data
/// set, with the caching advice, and P09 held back for it.
#[test]
fn the_dlio_job_reads_its_data_set_about_five_times() {
    let r = analyze(&dlio_job_log(), &Options::default()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&render::json(&r)).unwrap();
    let e01 = json["findings"].as_array().unwrap().iter().find(|f| f["code"] == "E01").expect("E01");
    let title = e01["title"].as_str().unwrap();
    let passes: f64 = title.split_whitespace().next().unwrap().parse().unwrap();
    assert!((passes - 121.0 / 23.5).abs() / (121.0 / 23.5) < 0.05, "{title}");
    let extent: f64 = title.split(" data set").next().unwrap().rsplit("a ").next().unwrap().trim_end_matches(" GiB").parse().unwrap();
    assert!((extent - 23.5).abs() / 23.5 < 0.05, "{title}");
    assert!(e01["recommendation"].as_str().unwrap().contains("node-local"), "{e01}");
    assert!(json["findings"].as_array().unwrap().iter().all(|f| f["code"] != "P09"));
    assert!(json["withheld"].as_array().unwrap().iter().any(|w| w["code"] == "P09"));
    let p05 = json["findings"].as_array().unwrap().iter().find(|f| f["code"] == "P05").expect("P05");
    assert_eq!(p05["level"], "info", "header reads carrying 0.16% of the bytes: {p05}");
}
