//! darshan-summary's memory on a log of many files, against the bound the
//! mutation harness holds every report to (crates/log-mutants/src/
//! tools.rs: 32 MiB + 2 bytes per byte the log's regions unpack to).

use std::path::{Path, PathBuf};

use darshan_log::counters::stdio as s;
use darshan_log::modules;
use darshan_log::{Compression, Job, LogWriter, NameTable, Record};
use darshan_test_support::{output, peak_kib, under_gnu_time};

const FILES: u64 = 115_000;

/// One process's log of `FILES` STDIO files, each written once, named
/// nowhere (the harness's mutant: its STDIO region repeated 113 times,
/// each copy with ids of its own); and the bytes its records unpack to.
fn many_stdio_files(dir: &Path) -> (PathBuf, u64) {
    let records: Vec<Record> = (0..FILES)
        .map(|k| {
            let mut r = Record::zeroed(modules::STDIO, 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(k + 1), 0);
            r.counters[s::OPENS] = 1;
            r.counters[s::WRITES] = 1;
            r.counters[s::BYTES_WRITTEN] = 4096;
            r.fcounters[s::F_WRITE_START_TIMESTAMP] = k as f64 * 1e-6;
            r.fcounters[s::F_WRITE_END_TIMESTAMP] = k as f64 * 1e-6 + 1e-7;
            r
        })
        .collect();
    let job = Job {
        uid: 1000,
        start_time_sec: 1000,
        end_time_sec: 1001,
        nprocs: 1,
        jobid: 7,
        exe_mnt: b"./stdio_full\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: b"lib_ver=test\n".to_vec(),
    };
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("many_stdio.darshan");
    let mut w = LogWriter::new(std::fs::File::create(&path).unwrap(), Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&NameTable::new()).unwrap();
    w.write_module(modules::STDIO, records.iter()).unwrap();
    w.finish().unwrap();
    (path, FILES * 8 * s::RECORD_WORDS as u64)
}

/// The report's files were a map's values: growing past 65,536 files it
/// held the old table and the new at once, and a log of 115,000 STDIO
/// files (28 MB of records) took 92 MB, over the harness's 88.8 MB.
#[test]
fn a_log_of_115000_stdio_files_took_92_mb_over_the_harness_bound() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (log, unpacked) = many_stdio_files(&dir);
    let bound_kib = 32 * 1024 + 2 * unpacked / 1024;
    for args in [&["--json", "--output", "-"][..], &["--pdf", "--output", dir.join("r.pdf").to_str().unwrap()]] {
        let o = output(under_gnu_time(Path::new(env!("CARGO_BIN_EXE_darshan-summary")), true).args(args).arg(&log));
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        let peak = peak_kib(&o);
        assert!(peak <= bound_kib, "{args:?}: {peak} KiB, over the bound {bound_kib} KiB");
    }
}
