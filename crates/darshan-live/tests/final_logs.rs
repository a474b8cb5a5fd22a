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
    assert_eq!(mods.get(&POSIX), Some(&log.records(POSIX).unwrap()), "POSIX as the log has it");
    let _ = std::fs::remove_dir_all(&d);
}
