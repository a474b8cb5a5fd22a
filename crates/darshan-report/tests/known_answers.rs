//! The seed metrics and their findings on a log built with known answers,
//! and darshan-summary on bad input (never a panic).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use darshan_log::counters::{mpiio as m, posix as p};
use darshan_log::modules;
use darshan_log::{Compression, Extra, Job, LogVersion, LogWriter, LustreComponent, NameTable, Record};
use darshan_report::diagnose::Config;
use darshan_report::{analyze, Options, Report};

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn rec(module: usize, name: &str, rank: i64) -> Record {
    Record::zeroed(module, darshan_log::record_id(name.as_bytes()), rank)
}

/// The known job's POSIX records: a and c shared, b and d one rank's.
fn known_posix_records() -> [Record; 4] {
    let mut a = rec(modules::POSIX, "/scratch/a", -1);
    a.counters[p::READS] = 3;
    a.counters[p::WRITES] = 10;
    a.counters[p::BYTES_READ] = 3000;
    a.counters[p::MAX_BYTE_READ] = 999;
    a.counters[p::BYTES_WRITTEN] = 500;
    a.counters[p::MAX_BYTE_WRITTEN] = 499;
    a.counters[p::SIZE_READ_1K_10K] = 3;
    a.counters[p::SIZE_WRITE_0_100] = 10;
    a.fcounters[p::F_META_TIME] = 8.0;
    a.fcounters[p::F_READ_TIME] = 10.0;
    a.fcounters[p::F_WRITE_TIME] = 2.0;
    let mut b = rec(modules::POSIX, "/scratch/b", 0);
    b.counters[p::READS] = 1;
    b.counters[p::BYTES_READ] = 100;
    b.counters[p::MAX_BYTE_READ] = 99;
    b.counters[p::SIZE_READ_100_1K] = 1;
    b.fcounters[p::F_META_TIME] = 40.0;
    let mut c = rec(modules::POSIX, "/scratch/c", -1);
    c.counters[p::WRITES] = 5;
    c.counters[p::BYTES_WRITTEN] = 250;
    c.counters[p::MAX_BYTE_WRITTEN] = 249;
    c.counters[p::SIZE_WRITE_0_100] = 5;
    let mut d = rec(modules::POSIX, "/scratch/d", 1);
    d.counters[p::WRITES] = 1;
    d.counters[p::BYTES_WRITTEN] = 100;
    d.counters[p::MAX_BYTE_WRITTEN] = 99;
    d.counters[p::SIZE_WRITE_100_1K] = 1;
    [a, b, c, d]
}

/// A LUSTRE record: `name` striped `count` ways of `size` bytes.
fn stripes(name: &str, size: i64, count: i64) -> Record {
    let mut r = rec(modules::LUSTRE, name, -1);
    r.counters.clear();
    r.fcounters.clear();
    r.extra = Extra::Lustre {
        components: vec![LustreComponent { counters: [size, count, 0, 0, 0, -1, 0], pool_name: [0; 16] }],
        ost_ids: (0..count).collect(),
    };
    r
}

/// Four ranks' POSIX heat maps: 10 bytes written in the first second by
/// each, 40 more in the third by rank 0.
fn known_heat() -> Vec<Record> {
    (0..4)
        .map(|rank| {
            let mut r = rec(modules::HEATMAP, "heatmap:POSIX", rank);
            r.counters.clear();
            r.fcounters.clear();
            r.extra = Extra::Heatmap {
                bin_width: 1.0,
                write_bins: vec![10, 0, if rank == 0 { 40 } else { 0 }, 0],
                read_bins: vec![0; 4],
            };
            r
        })
        .collect()
}

/// A 4-process, 100-second job:
/// * /scratch/a shared: 3,000 bytes read up to offset 999 (2,000 redundant),
///   10 small writes, no MPI-IO; 8 s metadata, 10 s read, 2 s write;
/// * /scratch/b on rank 0: 100 bytes read to offset 99, 40 s metadata;
/// * /scratch/c shared: 5 small POSIX writes under collective MPI-IO writes;
/// * /scratch/d on rank 1: 100 bytes written, over 4 stripes of 1 MiB;
/// * HEATMAP POSIX: 4 bins of 1 s, every rank writes 10 B in bin 0, rank 0
///   40 B in bin 2 (volumes 40, 0, 40, 0: ρ = 2; ranks busy 4 and 1: P = 2.5).
fn known_log(dir: &Path) -> PathBuf {
    let mut names = NameTable::new();
    for n in ["/scratch/a", "/scratch/b", "/scratch/c", "/scratch/d", "heatmap:POSIX"] {
        names.insert(darshan_log::record_id(n.as_bytes()), n.as_bytes());
    }
    let mut mc = rec(modules::MPIIO, "/scratch/c", -1);
    mc.counters[m::COLL_WRITES] = 4;
    mc.counters[m::BYTES_WRITTEN] = 250;
    let job = Job {
        uid: 1000,
        start_time_sec: 1000,
        end_time_sec: 1100,
        nprocs: 4,
        jobid: 42,
        exe_mnt: b"./known\nlustre /scratch\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: b"lib_ver=test\n".to_vec(),
    };
    let path = dir.join("known.darshan");
    let file = std::fs::File::create(&path).unwrap();
    let mut w = LogWriter::new(file, Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&names).unwrap();
    w.write_module(modules::POSIX, known_posix_records().iter()).unwrap();
    w.write_module(modules::MPIIO, [&mc]).unwrap();
    w.write_module(modules::LUSTRE, [&stripes("/scratch/a", 1 << 20, 1), &stripes("/scratch/d", 1 << 20, 4)]).unwrap();
    w.write_module(modules::HEATMAP, known_heat().iter()).unwrap();
    w.finish().unwrap();
    let back = darshan_log::LogFile::open(&path).unwrap();
    assert_eq!(back.header.version, LogVersion::V341);
    path
}

fn report(path: &Path) -> Report {
    let config =
        Config::from_json(r#"{"fsu": {"a0_read": 1, "a1_read": 0.001, "a0_write": 2, "a1_write": 0}}"#).unwrap();
    analyze(path, &Options { config, top: 10 }).unwrap()
}

fn codes(r: &Report) -> Vec<&str> {
    let mut v: Vec<&str> = r.findings.iter().map(|f| f.code.as_str()).collect();
    v.sort();
    v
}

#[test]
fn xe6_metrics_have_their_known_values() {
    let r = report(&known_log(&out_dir("xe6")));
    let mt = &r.metrics;
    assert_eq!(mt.redundant_read_bytes, 2000, "3000 read − offset 999 − 1");
    assert_eq!(mt.redundant_read_files, 1);
    assert_eq!(mt.metadata_ratio, Some(48.0 / 60.0), "(8 + 40) / (8 + 40 + 10 + 2)");
    assert_eq!(mt.max_metadata_time_per_process, 42.0, "rank 0's 40 s + the shared 8 s over 4 ranks");
    assert_eq!(mt.small_shared_independent_writes, 10, "/scratch/c's writes are under collective MPI-IO");
    assert_eq!(mt.small_shared_independent_write_files, 1);
    for c in ["X02", "X03", "X04"] {
        assert!(codes(&r).contains(&c), "{c} missing from {:?}", codes(&r));
    }
    // The redundant reads are the metric's, and P09's finding (X01's
    // before), held back: 2,000 bytes are under the 1 MiB a finding needs.
    assert!(!codes(&r).contains(&"P09") && !codes(&r).contains(&"X01"), "{:?}", codes(&r));
    assert!(
        r.withheld.iter().any(|w| w.code == "P09" && w.reason.contains("1.95 KiB read beyond")),
        "{:?}",
        r.withheld
    );
}

#[test]
fn jsc_metrics_have_their_known_values() {
    let r = report(&known_log(&out_dir("jsc")));
    let mt = &r.metrics;
    assert_eq!(mt.heatmap_source.as_deref(), Some("HEATMAP POSIX"));
    assert_eq!(mt.burstiness, Some(2.0));
    assert_eq!(mt.parallel_intensity, Some(2.5));
    assert_eq!(mt.parallel_intensity_fraction, Some(0.625));
    assert!(!codes(&r).contains(&"J02"), "2.5 of 4 ranks is not serialized I/O");
}

#[test]
fn fsu_load_follows_the_calibration() {
    let r = report(&known_log(&out_dir("fsu")));
    let f = &r.metrics.fsu;
    assert_eq!((f.read_ops, f.write_ops), (4, 16));
    assert!((f.read_seconds - (4.0 + 3.1)).abs() < 1e-9, "4 reads × 1 s + 3,100 B × 1 ms/kB: {}", f.read_seconds);
    assert_eq!(f.write_seconds, 32.0);
    assert!((f.load.unwrap() - 0.391).abs() < 1e-9, "{:?}", f.load);
    assert!(codes(&r).contains(&"F01"));
}

#[test]
fn lustre_advice_names_the_files() {
    let r = report(&known_log(&out_dir("lustre")));
    let l02 = r.findings.iter().find(|f| f.code == "L02").expect("L02: 269-byte requests on 1 MiB stripes");
    assert!(l02.evidence.iter().any(|e| e.starts_with("/scratch/a")), "{:?}", l02.evidence);
    let l03 = r.findings.iter().find(|f| f.code == "L03").expect("L03: 100 bytes over 4 stripes");
    assert!(l03.evidence.iter().any(|e| e.starts_with("/scratch/d")), "{:?}", l03.evidence);
    assert!(!codes(&r).contains(&"L01"), "no large file here");
}

fn summary(args: &[&str]) -> std::process::Output {
    let exe = env!("CARGO_BIN_EXE_darshan-summary");
    darshan_test_support::output_within(Command::new(exe).args(args), Duration::from_secs(60))
}

#[test]
fn bad_logs_get_a_clear_error_not_a_panic() {
    let dir = out_dir("bad");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    let good = std::fs::read(corpus.join("release_logs__mpi-io-test-x86_64-3.5.0.darshan")).unwrap();
    let junk = dir.join("junk.darshan");
    std::fs::write(&junk, b"this is not a darshan log at all, just words").unwrap();
    let cut = dir.join("cut.darshan");
    std::fs::write(&cut, &good[..good.len() / 2]).unwrap();
    let missing = dir.join("missing.darshan");
    for (path, what) in [(&junk, "junk"), (&missing, "missing")] {
        let o = summary(&["--json", "-o", "-", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{what}: {err}");
        assert!(err.starts_with("darshan-summary: ") && !err.contains("panicked"), "{what}: {err}");
    }
    // A truncated log reports what it could read and says what is missing.
    let o = summary(&["--json", "-o", "-", cut.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    if o.status.success() {
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(!r["warnings"].as_array().unwrap().is_empty(), "a truncated log must carry warnings");
    } else {
        assert!(err.starts_with("darshan-summary: "), "{err}");
    }
    let bad_cfg = dir.join("bad.json");
    std::fs::write(&bad_cfg, r#"{"small": {"requests": 7}}"#).unwrap();
    let o = summary(&[
        "--config",
        bad_cfg.to_str().unwrap(),
        "--text",
        corpus.join("release_logs__mpi-io-test-x86_64-3.5.0.darshan").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("small_requests") && err.contains("between 0 and 1"), "{err}");
}

#[test]
fn partial_logs_say_what_is_incomplete() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    let r = analyze(&corpus.join("partial_data_stdio__partial_data_stdio.darshan"), &Options::default()).unwrap();
    assert!(r.modules.iter().any(|m| m.name == "STDIO" && m.partial));
    assert!(r.warnings.iter().any(|w| w.starts_with("STDIO module data incomplete")), "{:?}", r.warnings);
}

/// Regression: a file's POSIX and MPI-IO records (same id, same bytes)
/// tied in the per-file tables, and the tie went whichever way the hash
/// maps' order left it: the same log's report differed from one run to
/// the next (2 of 6 runs of darshan-summary --json). Each analysis here
/// builds its maps anew, with new random hash keys.
#[test]
fn the_per_file_tables_are_the_same_on_every_run() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    let log = corpus.join("partial_data_stdio__partial_data_stdio.darshan");
    let tables = || {
        let r = analyze(&log, &Options::default()).unwrap();
        serde_json::to_string(&r.files).unwrap()
    };
    let first = tables();
    assert!(first.contains("\"MPI-IO\"") && first.contains("\"POSIX\""), "the log has both modules' records");
    for run in 1..24 {
        assert_eq!(tables(), first, "run {run} ordered the files otherwise");
    }
}

#[test]
fn unwritable_output_is_an_error() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    let log = corpus.join("release_logs__mpi-io-test-x86_64-3.5.0.darshan");
    let o = summary(&[log.to_str().unwrap(), "-o", "/nonexistent-dir/x.html"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent-dir/x.html"));
}

#[test]
fn the_text_report_carries_the_known_figures_and_findings() {
    let r = report(&known_log(&out_dir("text")));
    let text = darshan_report::render::text::render(&r);
    for want in [
        "processes 4",
        "redundant read traffic     1.95 KiB over 1 file\n",
        "metadata share of I/O time 80.0% (max per process 42.00 s)",
        "small independent writes to shared files  10 on 1 file\n",
        "burstiness ρ 2.00, parallel intensity P 2.50 ranks (HEATMAP POSIX)",
        "P09 1.95 KiB read beyond files' extents: under the 1.00 MiB a finding needs",
        "[HIGH] X03 A process spends 42.0 s in metadata operations",
        // /scratch/a's time, its ranks' added up (8 + 10 + 2 s): said
        // as summed, since on a shared file it exceeds the run time.
        "   20.00 s summed, slowest rank ",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    // darshan-run prints the diagnosis part alone.
    let diag = darshan_report::render::text::diagnosis(&r);
    assert!(diag.starts_with("\nDiagnosis\n") && diag.contains("X04") && !diag.contains("burstiness"), "{diag}");
}

/// Given several logs, darshan-summary said only "unexpected argument";
/// now it says what to do: one report per log, or merge one job's logs.
#[test]
fn several_logs_get_told_what_to_do() {
    let d = out_dir("several");
    let log = known_log(&d);
    let l = log.to_str().unwrap();
    let out = summary(&[l, l, "--text"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("2 logs given") && err.contains("darshan-merge") && err.contains("for f in"), "{err}");
    assert!(out.stdout.is_empty());
}

/// C runtimes before 3.2 summed the ranks' −1 ("not recorded") into a
/// shared record's POSIX_MMAPS: mpi-io-test 3.1.3's holds −4, which the
/// report showed as "Mmap -4" (and the PDF drew). C's darshan-parser
/// reads it as −1 (its `total_POSIX_MMAPS`): not recorded.
#[test]
fn an_old_runtimes_shared_record_showed_its_ranks_unrecorded_mmaps_as_minus_4() {
    use darshan_test_support::corpus;
    let name = "release_logs__mpi-io-test-x86_64-3.1.3";
    let c = corpus::c_parser_all(name);
    assert!(c.lines().any(|l| l.starts_with("POSIX\t-1\t") && l.contains("\tPOSIX_MMAPS\t-4\t")));
    assert!(c.lines().any(|l| l == "total_POSIX_MMAPS: -1"));
    let r = report(&corpus::log(name));
    let posix = r.module_stats.iter().find(|s| s.module == "POSIX").unwrap();
    assert!(posix.op_counts.iter().all(|(l, _)| l != "Mmap"), "{:?}", posix.op_counts);
    assert_eq!(posix.not_recorded, ["Mmap"]);
}

/// C's darshan-util reads a PNETCDF_FILE record of version 2 with −1 in
/// F_META_TIME and F_WAIT_TIME (times that version did not keep), and the
/// cost table summed them: "-5859.4 µs" of metadata and of waiting per
/// process for e3sm_io (three records' −1 over 512 processes), as
/// PyDarshan still shows. Not recorded, they are none; the times C's
/// totals hold are still C's totals over the processes.
#[test]
fn a_pnetcdf_file_record_of_version_2_showed_its_unrecorded_times_as_minus_5859_us() {
    use darshan_test_support::corpus;
    let name = "e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only";
    let c = corpus::c_parser_all(name);
    // Each record's value of `counter`, as C's parser prints it.
    let values = |counter: &str| -> Vec<&str> {
        c.lines()
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .filter(|f| f.len() > 4 && f[3] == counter)
            .map(|f| f[4])
            .collect()
    };
    assert_eq!(values("PNETCDF_FILE_F_META_TIME"), ["-1.000000"; 3]);
    assert_eq!(values("PNETCDF_FILE_F_WAIT_TIME"), ["-1.000000"; 3]);
    let r = report(&corpus::log(name));
    let pnetcdf = r.io_cost.iter().find(|c| c.interface == "PNETCDF").expect("a PNETCDF row");
    assert_eq!((pnetcdf.meta, pnetcdf.wait), (None, None), "{pnetcdf:?}");
    let nprocs: f64 = corpus::header_fact(&c, "nprocs").unwrap().parse().unwrap();
    let posix = r.io_cost.iter().find(|c| c.interface == "POSIX").unwrap();
    let mpiio = r.io_cost.iter().find(|c| c.interface == "MPIIO").unwrap();
    for (ours, key) in
        [(posix.meta, "POSIX_F_META_TIME"), (mpiio.meta, "MPIIO_F_META_TIME"), (posix.read, "POSIX_F_READ_TIME")]
    {
        let c_value = corpus::c_total(&c, key).unwrap() / nprocs;
        assert!(ours.is_some_and(|v| (v - c_value).abs() <= 1e-6), "{key}: {ours:?} against C's {c_value}");
    }
    let text = String::from_utf8(summary(&["--text", "-o", "-", corpus::log(name).to_str().unwrap()]).stdout).unwrap();
    let row = text.lines().find(|l| l.trim_start().starts_with("PNETCDF ") && l.contains(" s")).unwrap();
    assert!(row.ends_with("not recorded not recorded") && !row.contains('-'), "{row}");
}

/// gfortran's unformatted reads skip each record's 4-byte markers, so
/// the highest offset read passes the bytes read by a few kilobytes; the
/// held-back P09 said "the highest offset read (800.00 MiB) exceeds the
/// bytes read (800.00 MiB)". Sizes that read alike are given in bytes.
#[test]
fn a_sparse_read_said_800_mib_exceeds_800_mib() {
    let dir = out_dir("sparse-p09");
    let mut r = rec(modules::POSIX, "/scratch/f.bin", 0);
    r.counters[p::READS] = 400;
    r.counters[p::BYTES_READ] = 838_862_400;
    r.counters[p::MAX_BYTE_READ] = 838_863_995;
    r.counters[p::SIZE_READ_1M_4M] = 400;
    r.fcounters[p::F_READ_TIME] = 2.0;
    let mut names = NameTable::new();
    names.insert(r.id, b"/scratch/f.bin");
    let job = Job {
        uid: 1000,
        start_time_sec: 1000,
        end_time_sec: 1010,
        nprocs: 1,
        jobid: 7,
        exe_mnt: b"./fw\nxfs /scratch\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: b"lib_ver=test\n".to_vec(),
    };
    let path = dir.join("sparse.darshan");
    let mut w = LogWriter::new(std::fs::File::create(&path).unwrap(), Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&names).unwrap();
    w.write_module(modules::POSIX, [&r]).unwrap();
    w.finish().unwrap();
    let rep = report(&path);
    let p09 = rep.withheld.iter().find(|w| w.code == "P09").unwrap_or_else(|| panic!("{:#?}", rep.withheld));
    assert!(p09.reason.contains("(838,863,995 B) exceeds the bytes read (838,862,400 B)"), "{}", p09.reason);
}
