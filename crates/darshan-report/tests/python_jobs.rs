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
    merge_job(procs, &key, &out, &JobOptions::default()).unwrap();
    out
}

fn software(name: &str) -> bool {
    name.contains("entry_points.txt")
        || name.contains(".pyc")
        || name.contains("site-packages")
        || name.ends_with("pyvenv.cfg")
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
    for (label, n) in
        posix["op_counts"].as_array().unwrap().iter().map(|v| (v[0].as_str().unwrap(), v[1].as_i64().unwrap()))
    {
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
        let said = format!("{} {} {}", f["title"], f["evidence"], f["recommendation"]);
        assert!(!said.contains("MPI") && !said.contains("collective"), "{}: {said}", f["code"]);
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
    let extent: f64 =
        title.split(" data set").next().unwrap().rsplit("a ").next().unwrap().trim_end_matches(" GiB").parse().unwrap();
    assert!((extent - 23.5).abs() / 23.5 < 0.05, "{title}");
    assert!(e01["recommendation"].as_str().unwrap().contains("node-local"), "{e01}");
    assert!(json["findings"].as_array().unwrap().iter().all(|f| f["code"] != "P09"));
    assert!(json["withheld"].as_array().unwrap().iter().any(|w| w["code"] == "P09"));
    let p05 = json["findings"].as_array().unwrap().iter().find(|f| f["code"] == "P05").expect("P05");
    assert_eq!(p05["level"], "info", "header reads carrying 0.16% of the bytes: {p05}");
}

/// C's darshan-parser output for one of the DLIO logs (the corpus's
/// oracle): the application's bytes read and read time (POSIX and STDIO,
/// software loading apart by the one rule every tool uses), by the pid in
/// the log's name.
fn c_parser_sums() -> std::collections::HashMap<i64, (i64, f64)> {
    let mut out = std::collections::HashMap::new();
    for name in darshan_test_support::corpus::with_c_parser_output() {
        if !name.starts_with("dlio_logs__") {
            continue;
        }
        let pid: i64 = name.split("-").nth(1).unwrap().split('_').next().unwrap().parse().unwrap();
        let text = darshan_test_support::corpus::c_parser_all(&name);
        let (mut bytes, mut time) = (0i64, 0.0f64);
        for l in text.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = l.split('\t').collect();
            if f.len() < 6 || darshan_log::software::software_loading(f[5]).is_some() {
                continue;
            }
            match f[3] {
                "POSIX_BYTES_READ" | "STDIO_BYTES_READ" => bytes += f[4].parse::<i64>().unwrap().max(0),
                "POSIX_F_READ_TIME" | "STDIO_F_READ_TIME" => time += f[4].parse::<f64>().unwrap().max(0.0),
                _ => {}
            }
        }
        out.insert(pid, (bytes, time));
    }
    out
}

/// The loader view: the 24 processes, by their pids, those whose C
/// darshan-parser output the corpus holds (the 4 first) with the bytes
/// and read time it prints for their own logs (PyDarshan checks all 24:
/// tests/report/check_dlio_job.py); 16 of them read the data set, and
/// each waited for its first data.
#[test]
fn the_dlio_processes_view_matches_each_process_log() {
    let r = analyze(&dlio_job_log(), &Options::default()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&render::json(&r)).unwrap();
    let p = &json["processes"];
    assert_eq!(p["roles"], serde_json::json!([["rank", 24]]));
    assert_eq!(p["ranked_by_start"], true);
    let want = c_parser_sums();
    assert_eq!(want.len(), 4);
    let rows = p["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 24);
    let mut pids = std::collections::HashSet::new();
    for row in rows {
        let pid = row["pid"].as_i64().expect("the pid from the log's name");
        assert!(pids.insert(pid), "pid {pid} twice");
        let bytes = row["bytes_read"].as_i64().unwrap();
        if let Some((c_bytes, c_time)) = want.get(&pid) {
            assert_eq!(bytes, *c_bytes, "pid {pid}");
            assert!((row["read_time"].as_f64().unwrap() - c_time).abs() < 1e-3, "pid {pid}: {row} vs {c_time}");
        }
        if bytes > 0 {
            let stall = row["start_up_stall"].as_f64().unwrap();
            assert!(stall >= 0.0 && stall <= row["end"].as_f64().unwrap() - row["start"].as_f64().unwrap(), "{row}");
            let binned: i64 = row["timeline"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).sum();
            assert!(binned >= bytes, "the heat map holds every POSIX read: {binned} < {bytes}");
        }
    }
    assert!(want.keys().all(|pid| pids.contains(pid)));
    assert_eq!(p["readers"]["count"], 16);
    // The readers' bytes add up to the run's data reads: about 121 GiB
    // (the reading of the logs; each process's bytes exactly are
    // checked against PyDarshan in tests/report/check_dlio_job.py).
    let mean = p["readers"]["bytes"]["mid"].as_f64().unwrap();
    assert!((mean * 16.0 / (1u64 << 30) as f64 / 121.0 - 1.0).abs() < 0.01, "{mean} x 16");
    // Each pass timed from the heat map: five, each some seconds long.
    let e01 = json["findings"].as_array().unwrap().iter().find(|f| f["code"] == "E01").unwrap();
    let per_pass = e01["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e.as_str())
        .find(|e| e.starts_with("per pass"))
        .expect("per pass");
    assert_eq!(per_pass.matches("/s)").count(), 5, "{per_pass}");
    // And on the page: the section, one row per process.
    let html = render::html::render(&r).unwrap();
    assert!(html.contains("<section id=\"processes\">"));
    let table = html.split("data-table=\"processes\"").nth(1).unwrap().split("</table>").next().unwrap();
    assert_eq!(table.matches("<td>rank</td>").count(), 24, "{table}");
}
