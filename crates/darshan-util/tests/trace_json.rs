//! darshan-dxt-parser --perfetto: the Chrome Trace Event JSON of every
//! corpus log with DXT passes a check of the format and holds exactly the
//! log's segments per rank: against C darshan-dxt-parser's output where
//! the corpus has it (each segment's rank, operation, offset and length),
//! else against the log as the format library reads it. A log without DXT
//! gives its heat maps as counters; --max-events cuts and says so; an
//! existing output is never replaced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use darshan_log::{Extra, LogFile};
use serde_json::Value;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs")
}

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("trace-json").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn trace(log: &Path, out: &Path, extra: &[&str]) -> (std::process::Output, Option<Value>) {
    let o = darshan_test_support::output_within(
        Command::new(env!("CARGO_BIN_EXE_darshan-dxt-parser")).args(extra).arg("--perfetto").arg(out).arg(log),
        Duration::from_secs(120),
    );
    let v = std::fs::read(out).ok().map(|b| serde_json::from_slice(&b).expect("the trace is JSON"));
    (o, v)
}

/// (rank, op, offset, length) → segments.
type Segments = BTreeMap<(i64, String, i64, i64), usize>;

/// The trace's events checked against the Trace Event format; its
/// segments.
fn checked(v: &Value) -> (Segments, usize) {
    let events = v["traceEvents"].as_array().expect("traceEvents");
    let mut segs = Segments::new();
    let mut counters = 0;
    let int = |e: &Value, k: &str| e[k].as_i64().unwrap_or_else(|| panic!("{k} of {e}"));
    for e in events {
        assert!(e["name"].is_string(), "{e}");
        int(e, "pid");
        match e["ph"].as_str() {
            Some("X") => {
                int(e, "tid");
                let (ts, dur) = (e["ts"].as_f64().unwrap(), e["dur"].as_f64().unwrap());
                assert!(ts >= 0.0 && dur >= 0.0, "{e}");
                let a = &e["args"];
                assert!(a["file"].is_string(), "{e}");
                let op = e["name"].as_str().unwrap().to_string();
                assert!(op == "read" || op == "write", "{e}");
                *segs.entry((int(e, "pid"), op, int(a, "offset"), int(a, "length"))).or_default() += 1;
            }
            Some("M") => {
                int(e, "tid");
                assert!(e["args"]["name"].is_string() || e["args"]["sort_index"].is_i64(), "{e}");
            }
            Some("C") => {
                assert!(e["ts"].as_f64().is_some_and(|t| t >= 0.0), "{e}");
                let args = e["args"].as_object().unwrap();
                assert!(!args.is_empty() && args.values().all(Value::is_number), "{e}");
                counters += 1;
            }
            other => panic!("phase {other:?}: {e}"),
        }
    }
    (segs, counters)
}

/// C darshan-dxt-parser's segments, where the corpus has its output.
fn c_segments(log: &Path) -> Option<Segments> {
    let stem = log.file_stem()?.to_string_lossy().into_owned();
    let f = std::fs::File::open(corpus().join("../expected").join(format!("{stem}.dxt.txt.gz"))).ok()?;
    let mut s = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(f), &mut s).ok()?;
    let mut segs = Segments::new();
    for line in s.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() >= 6 && f[0].starts_with("X_") {
            *segs
                .entry((f[1].parse().unwrap(), f[2].to_string(), f[4].parse().unwrap(), f[5].parse().unwrap()))
                .or_default() += 1;
        }
    }
    Some(segs)
}

/// The log's segments as the format library reads them.
fn log_segments(log: &LogFile) -> Segments {
    let mut segs = Segments::new();
    for m in log.modules_present().into_iter().filter(|m| darshan_log::modules::is_dxt(*m)) {
        for r in log.records(m).unwrap() {
            if let Extra::Dxt { writes, reads, .. } = &r.extra {
                for (op, ss) in [("write", writes), ("read", reads)] {
                    for s in ss {
                        *segs.entry((r.rank, op.to_string(), s.offset, s.length)).or_default() += 1;
                    }
                }
            }
        }
    }
    segs
}

#[test]
fn every_corpus_trace_is_trace_event_json_with_the_logs_segments_per_rank() {
    let d = out_dir("corpus");
    let (mut against_c, mut with_dxt, mut total) = (0, 0, 0);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(corpus()).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    for log in logs {
        let Ok(file) = LogFile::open(&log) else { continue };
        let want = log_segments(&file);
        if want.is_empty() {
            continue;
        }
        with_dxt += 1;
        let out = d.join(format!("{}.json", log.file_stem().unwrap().to_string_lossy()));
        let (o, v) = trace(&log, &out, &["--show-incomplete"]);
        assert!(o.status.success(), "{}: {}", log.display(), String::from_utf8_lossy(&o.stderr));
        let (segs, _) = checked(v.as_ref().unwrap());
        if let Some(c) = c_segments(&log) {
            assert_eq!(segs, c, "{}: the trace's segments are not C darshan-dxt-parser's", log.display());
            against_c += 1;
        }
        assert_eq!(segs, want, "{}", log.display());
        total += segs.values().sum::<usize>();
    }
    assert!(against_c >= 8 && with_dxt >= against_c, "{against_c} against C of {with_dxt} with DXT");
    assert!(total > 1000, "{total} segments");
}

#[test]
fn a_log_without_dxt_gives_its_heat_maps_as_counters() {
    let d = out_dir("heat");
    let log = corpus().join("e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only.darshan");
    let file = LogFile::open(&log).unwrap();
    let bins: usize = file
        .records(darshan_log::modules::HEATMAP)
        .unwrap()
        .iter()
        .map(|r| match &r.extra {
            Extra::Heatmap { read_bins, .. } => read_bins.len(),
            _ => 0,
        })
        .sum();
    let (o, v) = trace(&log, &d.join("heat.json"), &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (segs, counters) = checked(v.as_ref().unwrap());
    assert!(segs.is_empty() && bins > 0);
    assert_eq!(counters, bins);
}

#[test]
fn max_events_cuts_and_says_so_and_an_output_is_never_replaced() {
    let d = out_dir("cut");
    let log =
        corpus().join("mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan");
    let out = d.join("cut.json");
    let (o, v) = trace(&log, &out, &["--max-events", "10"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let v = v.unwrap();
    let (segs, _) = checked(&v);
    assert_eq!(segs.values().sum::<usize>(), 10);
    assert_eq!(v["otherData"]["cut_events"], 566, "{}", v["otherData"]);
    assert!(err.contains("566 left out (--max-events 10)"), "{err}");
    let before = std::fs::read(&out).unwrap();
    let (o, _) = trace(&log, &out, &[]);
    assert_eq!(o.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&o.stderr).contains("already exists; not replaced"));
    assert_eq!(std::fs::read(&out).unwrap(), before);
}
