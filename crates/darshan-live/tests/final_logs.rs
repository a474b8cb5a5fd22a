//! An ended process's figures from its final log (final_log.rs), on a
//! real log of C Darshan's corpus.

use std::path::Path;

use darshan_live::final_log::find_log;
use darshan_log::modules::{DXT_POSIX, POSIX};
use darshan_log::LogFile;

/// A finished job's final log was read whole, DXT traces of every rank
/// included (hundreds of megabytes decoded for a large job), though the
/// live view only sums POSIX, STDIO, MPI-IO, POSIX_META and IO_URING. The
/// corpus's HDF5 log with DXT: its POSIX records are read as the log has
/// them, its DXT traces not at all.
#[test]
fn an_ended_jobs_final_log_was_read_with_its_dxt_traces() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs");
    let src = corpus.join("hdf5_diagonal_write_only__hdf5_diagonal_write_1_byte_dxt.darshan");
    let log = LogFile::open(&src).unwrap();
    assert!(log.modules_present().contains(&DXT_POSIX), "the corpus log has DXT traces");
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("live-final-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let jobid = log.job.jobid;
    std::fs::copy(&src, d.join(format!("u_prog_id{jobid}_1-1-1-1_1.darshan"))).unwrap();
    let (_, mods) = find_log(std::slice::from_ref(&d), jobid, &|_| true).expect("the log, found by its job id");
    assert!(!mods.contains_key(&DXT_POSIX), "DXT read: {:?}", mods.keys().collect::<Vec<_>>());
    // POSIX as C's darshan-parser read the same log (the corpus's
    // expected output): each record's (rank, id) and bytes written.
    let c_text = darshan_test_support::output(
        std::process::Command::new("zcat")
            .arg(corpus.join("../expected/hdf5_diagonal_write_only__hdf5_diagonal_write_1_byte_dxt.all.txt.gz")),
    );
    let mut from_c: Vec<(i64, u64, i64)> = String::from_utf8_lossy(&c_text.stdout)
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f.len() > 4 && f[0] == "POSIX" && f[3] == "POSIX_BYTES_WRITTEN")
        .map(|f| (f[1].parse().unwrap(), f[2].parse().unwrap(), f[4].parse().unwrap()))
        .collect();
    let mut ours: Vec<(i64, u64, i64)> =
        mods[&POSIX].iter().map(|r| (r.rank, r.id, r.counters[darshan_log::counters::posix::BYTES_WRITTEN])).collect();
    from_c.sort();
    ours.sort();
    assert!(!from_c.is_empty());
    assert_eq!(ours, from_c, "POSIX as C's parser read it");
    let _ = std::fs::remove_dir_all(&d);
}
