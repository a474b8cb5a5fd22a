//! P17 (Drishti's long-metadata rule) on a log built with known answers:
//! it said "1 records spend over 30 s in metadata operations (each)" and
//! named nothing; a file every rank shared counted as one such record
//! with its time summed over all of them (skew_io's 65,536 ranks: 35,283
//! s, 0.54 s a rank).

use std::path::{Path, PathBuf};

use darshan_log::counters::posix as p;
use darshan_log::modules;
use darshan_log::{Compression, Job, LogWriter, NameTable, Record};
use darshan_report::diagnose::Config;
use darshan_report::model::Finding;
use darshan_report::{analyze, Options, Report};

const SHARED: &str = "/scratch/shared";
const OWN: &str = "/scratch/own";
const MODULE: &str = "/usr/lib/python3.11/os.py";

/// A 4-process job; each record has only metadata time (seconds), and the
/// shared one its slowest rank's whole I/O time.
fn log(dir: &Path, files: &[(&str, i64, f64)]) -> PathBuf {
    let mut names = NameTable::new();
    let mut records = Vec::new();
    for &(name, rank, meta) in files {
        let id = darshan_log::record_id(name.as_bytes());
        names.insert(id, name.as_bytes());
        let mut r = Record::zeroed(modules::POSIX, id, rank);
        r.counters[p::OPENS] = 1;
        r.fcounters[p::F_META_TIME] = meta;
        if rank < 0 {
            r.fcounters[p::F_SLOWEST_RANK_TIME] = 12.0;
        }
        records.push(r);
    }
    let job = Job {
        uid: 1000,
        start_time_sec: 1000,
        end_time_sec: 1200,
        nprocs: 4,
        jobid: 7,
        exe_mnt: b"./meta\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: b"lib_ver=test\n".to_vec(),
    };
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("meta.darshan");
    let mut w = LogWriter::new(std::fs::File::create(&path).unwrap(), Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&names).unwrap();
    w.write_module(modules::POSIX, records.iter()).unwrap();
    w.finish().unwrap();
    path
}

fn report(name: &str, files: &[(&str, i64, f64)]) -> Report {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    analyze(&log(&dir, files), &Options { config: Config::default(), top: 10 }).unwrap()
}

fn p17(r: &Report) -> Option<&Finding> {
    r.findings.iter().find(|f| f.code == "P17")
}

#[test]
fn long_metadata_said_records_in_the_plural_and_named_none() {
    let r = report("p17-one", &[(OWN, 2, 45.0), (SHARED, -1, 20.0)]);
    let f = p17(&r).expect("P17 for 45 s of metadata on rank 2");
    assert_eq!(f.title, "1 record spends over 30 s in metadata operations");
    assert_eq!(f.evidence, vec![format!("{OWN}, rank 2: 45.00 s")]);
}

#[test]
fn a_shared_files_metadata_time_is_said_to_be_summed_over_its_ranks() {
    let r = report("p17-shared", &[(SHARED, -1, 100.0), (OWN, 2, 45.0)]);
    let f = p17(&r).expect("P17");
    assert_eq!(f.title, "2 records spend over 30 s in metadata operations (each)");
    assert_eq!(
        f.evidence,
        vec![
            format!(
                "{SHARED}, shared by all 4 ranks: 100.00 s summed over them (25.00 s a rank on average; \
                 the slowest rank's whole I/O time on it 12.00 s)"
            ),
            format!("{OWN}, rank 2: 45.00 s"),
        ]
    );
}

#[test]
fn the_interpreters_modules_are_not_the_applications_metadata() {
    let r = report("p17-software", &[(MODULE, 0, 50.0), (OWN, 1, 10.0)]);
    assert!(p17(&r).is_none(), "P17 on software loading: {:?}", p17(&r));
    assert!(
        r.withheld.iter().any(|w| w.code == "P17" && w.reason.contains("software loading")),
        "P17 not said to fire only on software loading: {:?}",
        r.withheld
    );
}
