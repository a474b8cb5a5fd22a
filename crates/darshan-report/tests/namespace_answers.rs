//! The metadata section and the metadata-storm findings (D01-D03) on logs
//! built with known answers, and their absence under the thresholds.

use std::path::{Path, PathBuf};

use darshan_log::counters::{posix as p, posix_meta as c};
use darshan_log::modules::{POSIX, POSIX_META};
use darshan_log::{Compression, Job, LogWriter, NameTable, Record};
use darshan_report::{analyze, Options, Report};

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A POSIX_META record of `id` on `rank`: `counts` set, active from
/// `start` to `end` seconds.
fn meta_record(id: u64, rank: i64, counts: &[(usize, i64)], (start, end): (f64, f64)) -> Record {
    let mut r = Record::zeroed(POSIX_META, id, rank);
    for &(k, v) in counts {
        r.counters[k] = v;
    }
    r.fcounters[c::F_START_TIMESTAMP] = start;
    r.fcounters[c::F_END_TIMESTAMP] = end;
    r
}

/// /s/tmp's record (made once, listed `listings` times) and the rename of
/// /s/out to /s/final, named through `named`.
fn directory_records(named: &mut impl FnMut(&str) -> u64, listings: i64) -> Vec<Record> {
    let listed =
        [(c::MKDIRS, 1), (c::OPENDIRS, listings), (c::READDIRS, 13 * listings), (c::DIR_ENTRIES, 12 * listings)];
    vec![
        meta_record(named("/s/tmp"), -1, &listed, (10.0, 20.0)),
        meta_record(named("/s/out"), 0, &[(c::RENAMES_FROM, 1), (c::CHMODS, 3)], (15.0, 15.0)),
        meta_record(named("/s/final"), 0, &[(c::RENAMES_TO, 1)], (15.0, 15.0)),
    ]
}

/// A 2-process, 100-second job:
/// * /s/tmp/t0..t{n-1}: each written (1,000 bytes, POSIX) then unlinked,
///   between 10 s and 20 s (n unlinks in /s/tmp);
/// * /s/tmp itself: made once, listed `listings` times (12 entries each);
/// * /s/out: renamed to /s/final once, chmod'ed 3 times.
fn storm_log(dir: &Path, n: usize, listings: i64) -> PathBuf {
    let mut names = NameTable::new();
    let mut posix = Vec::new();
    let mut meta = Vec::new();
    let mut named = |s: &str| {
        names.insert(darshan_log::record_id(s.as_bytes()), s.as_bytes());
        darshan_log::record_id(s.as_bytes())
    };
    for i in 0..n {
        let name = format!("/s/tmp/t{i}");
        let id = named(&name);
        let mut w = Record::zeroed(POSIX, id, (i % 2) as i64);
        w.counters[p::OPENS] = 1;
        w.counters[p::WRITES] = 1;
        w.counters[p::BYTES_WRITTEN] = 1000;
        w.counters[p::MAX_BYTE_WRITTEN] = 999;
        posix.push(w);
        let mut u = Record::zeroed(POSIX_META, id, (i % 2) as i64);
        u.counters[c::UNLINKS] = 1;
        u.fcounters[c::F_START_TIMESTAMP] = 10.0;
        u.fcounters[c::F_END_TIMESTAMP] = 20.0;
        u.fcounters[c::F_TIME] = 0.001;
        u.fcounters[c::F_MAX_TIME] = 0.001;
        meta.push(u);
    }
    meta.extend(directory_records(&mut named, listings));
    let job = Job {
        uid: 1000,
        start_time_sec: 1000,
        end_time_sec: 1100,
        nprocs: 2,
        jobid: 7,
        exe_mnt: b"./storm\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: b"lib_ver=test\n".to_vec(),
    };
    let path = dir.join("storm.darshan");
    let mut w = LogWriter::new(std::fs::File::create(&path).unwrap(), Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&names).unwrap();
    w.write_module(POSIX, posix.iter()).unwrap();
    w.write_module(POSIX_META, meta.iter()).unwrap();
    w.finish().unwrap();
    path
}

fn report(path: &Path) -> Report {
    analyze(path, &Options::default()).unwrap()
}

fn finding<'a>(r: &'a Report, code: &str) -> Option<&'a darshan_report::model::Finding> {
    r.findings.iter().find(|f| f.code == code)
}

#[test]
fn a_storm_of_temporary_files_and_relistings_is_reported_with_its_numbers() {
    let d = out_dir("ns-storm");
    let r = report(&storm_log(&d, 20_000, 50));
    let ns = r.namespace.as_ref().expect("the metadata section");
    let op = |name: &str| ns.operations.iter().find(|(n, _)| n == name).unwrap().1;
    assert_eq!(op("POSIX_META_UNLINKS"), 20_000);
    assert_eq!(op("POSIX_META_DIR_ENTRIES"), 600);
    // 20,000 unlinks + 1 mkdir + 50 listings + 1 rename.
    assert_eq!(ns.namespace_ops, 20_052);
    assert_eq!(ns.attribute_ops, 3);
    assert_eq!((ns.start, ns.end), (10.0, 20.0));
    assert!((ns.rate - 2005.2).abs() < 1e-9, "{}", ns.rate);
    // The busiest directory: /s/tmp (20,000 entries removed in it and 50
    // listings), then /s (the mkdir of /s/tmp, the rename out of it).
    assert_eq!(ns.busiest_dirs[0].path, "/s/tmp");
    assert_eq!((ns.busiest_dirs[0].ops, ns.busiest_dirs[0].listings), (20_050, 50));
    assert_eq!((ns.busiest_dirs[1].path.as_str(), ns.busiest_dirs[1].ops), ("/s", 2));
    assert_eq!((ns.temporary_files, ns.temporary_bytes_written), (20_000, 20_000_000));
    let d01 = finding(&r, "D01").expect("D01");
    assert!(d01.title.contains("2005 namespace operations per second"), "{}", d01.title);
    assert!(d01.evidence[0].starts_with("20,052 namespace operations in"), "{:?}", d01.evidence);
    let d02 = finding(&r, "D02").expect("D02");
    assert!(
        d02.evidence[0].starts_with("20,000 files opened by the job (19.07 MiB written to them)"),
        "{:?}",
        d02.evidence
    );
    // 50 listings of /s/tmp by 2 processes: 25 each, over 10.
    let d03 = finding(&r, "D03").expect("D03");
    assert!(d03.evidence[0].starts_with("/s/tmp: listed 50 times (600 entries read)"), "{:?}", d03.evidence);
    // The rate estimate keeps every namespace operation.
    let binned: f64 = ns.rate_bins.iter().map(|b| b.1).sum();
    assert!((binned - 20_052.0).abs() < 1e-6, "{binned}");
}

#[test]
fn under_the_thresholds_nothing_is_reported_but_the_section_is_there() {
    let d = out_dir("ns-calm");
    // 99 temporary files (D02 needs 100), 19 listings by 2 processes (9.5
    // each: D03 needs 10), and 121 namespace operations (D01 needs 10,000).
    let r = report(&storm_log(&d, 99, 19));
    let ns = r.namespace.as_ref().expect("the metadata section");
    assert_eq!((ns.temporary_files, ns.namespace_ops), (99, 99 + 1 + 19 + 1));
    for code in ["D01", "D02", "D03"] {
        assert!(finding(&r, code).is_none(), "{code}: {:?}", finding(&r, code));
    }
}

#[test]
fn a_log_without_the_module_has_no_section() {
    let d = out_dir("ns-none");
    let path = d.join("plain.darshan");
    let mut names = NameTable::new();
    names.insert(1, b"/x");
    let job = Job {
        uid: 1,
        start_time_sec: 1,
        end_time_sec: 2,
        nprocs: 1,
        jobid: 1,
        exe_mnt: b"x\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: Vec::new(),
    };
    let mut w = LogWriter::new(std::fs::File::create(&path).unwrap(), Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&names).unwrap();
    w.write_module(POSIX, [&Record::zeroed(POSIX, 1, 0)]).unwrap();
    w.finish().unwrap();
    assert!(report(&path).namespace.is_none());
}

/// Counts a hostile log sets to i64::MAX (or negative, or times to NaN)
/// overflowed the section's sums (a panic in a debug build): they
/// saturate, and the report is made.
#[test]
fn huge_counts_from_a_log_saturate_instead_of_overflowing() {
    let d = out_dir("ns-huge");
    let path = storm_log(&d, 3, 1);
    let log = darshan_log::LogFile::open(&path).unwrap();
    let names = log.names().unwrap();
    let mut meta = log.records(POSIX_META).unwrap();
    for r in &mut meta {
        r.counters[c::UNLINKS] = i64::MAX;
        r.counters[c::OPENDIRS] = i64::MAX;
        r.counters[c::DIR_ENTRIES] = -5;
        r.fcounters[c::F_TIME] = f64::NAN;
    }
    let hostile = d.join("hostile.darshan");
    let mut w = LogWriter::new(std::fs::File::create(&hostile).unwrap(), Compression::Zlib).unwrap();
    w.write_job(&log.job).unwrap();
    w.write_names(&names).unwrap();
    w.write_module(POSIX_META, meta.iter()).unwrap();
    w.finish().unwrap();
    let r = report(&hostile);
    let ns = r.namespace.as_ref().unwrap();
    assert_eq!(ns.namespace_ops, i64::MAX);
    assert_eq!(ns.busiest_dirs[0].ops, i64::MAX);
    assert!(ns.time.is_finite());
}
