//! darshan_util::mpi_comm against answers known by construction: hand-made
//! APMPI regions whose sums, extremes and hostile values are chosen, read
//! back through a log written as C's darshan-util writes one.

use std::path::{Path, PathBuf};

use darshan_log::autoperf::{header_bytes, perf_bytes, perf_from, Header, Perf};
use darshan_log::counters::apmpi as c;
use darshan_log::modules::APMPI;
use darshan_log::writer::{LogWriter, Region};
use darshan_log::{Compression, Job, LogFile, NameTable};
use darshan_util::mpi_comm::{read, Fault};

fn out_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A log whose APMPI region (at `version`) is `bytes`.
fn apmpi_log(path: &Path, version: u32, bytes: &[u8]) -> LogFile {
    let job = Job {
        uid: 1000,
        start_time_sec: 1000,
        end_time_sec: 1100,
        nprocs: 3,
        jobid: 7,
        exe_mnt: b"./solver\n".to_vec(),
        start_time_nsec: 0,
        end_time_nsec: 0,
        metadata: b"lib_ver=3.5.0\n".to_vec(),
    };
    let mut w = LogWriter::new(std::fs::File::create(path).unwrap(), Compression::Zlib).unwrap();
    w.write_job(&job).unwrap();
    w.write_names(&NameTable::new()).unwrap();
    w.set_module_version(APMPI, version);
    w.put(Region::Module(APMPI), bytes).unwrap();
    w.finish().unwrap();
    LogFile::open(path).unwrap()
}

fn counter(name: &str) -> usize {
    c::NAMES.iter().position(|n| *n == name).unwrap_or_else(|| panic!("{name}"))
}

fn time(name: &str) -> usize {
    c::F_TIME_NAMES.iter().position(|n| *n == name).unwrap_or_else(|| panic!("{name}"))
}

fn rank(r: i64, node: &[u8], comm: f64) -> Perf {
    let mut p = perf_from(&[0u8; c::PERF_SIZE], false);
    p.rank = r;
    p.global = [comm, 0.25];
    p.node_name[..node.len()].copy_from_slice(node);
    p
}

fn header() -> Vec<u8> {
    header_bytes(&Header {
        id: 1,
        rank: 0,
        magic: c::MAGIC,
        sync_flag: 1,
        variance_total_mpitime: 4.5,
        variance_total_mpisynctime: 0.0,
    })
}

/// Three ranks on two nodes: rank 1's communication time is NaN (no
/// time), MPI_BARRIER's time on rank 2 is negative, MPI_SEND's calls
/// overflow, MPI_ALLREDUCE and MPI_BCAST take the same time.
fn three_ranks() -> Vec<u8> {
    let mut ranks = [rank(0, b"nid01", 2.0), rank(1, b"nid01", f64::NAN), rank(2, b"nid02", 5.0)];
    for (k, p) in ranks.iter_mut().enumerate() {
        p.counters[counter("MPI_ALLREDUCE_CALL_COUNT")] = 10 * (k as u64 + 1);
        p.counters[counter("MPI_ALLREDUCE_TOTAL_BYTES")] = 800 * (k as u64 + 1);
        p.time[time("MPI_ALLREDUCE_TOTAL_TIME")] = 1.0;
        p.time[time("MPI_ALLREDUCE_MAX_TIME")] = 0.1 * (k as f64 + 1.0);
        p.counters[counter("MPI_BCAST_CALL_COUNT")] = 1;
        p.time[time("MPI_BCAST_TOTAL_TIME")] = 1.0;
        p.counters[counter("MPI_SEND_CALL_COUNT")] = u64::MAX / 2;
        p.counters[counter("MPI_BARRIER_CALL_COUNT")] = 2;
        p.time[time("MPI_BARRIER_TOTAL_TIME")] = if k == 2 { -7.0 } else { 0.5 };
    }
    let mut b = header();
    ranks.iter().for_each(|p| b.extend(perf_bytes(p)));
    b
}

#[test]
fn a_jobs_communication_is_its_ranks_records_added_up() {
    let d = out_dir("mpi-comm-sums");
    let r = read(&apmpi_log(&d.join("three.darshan"), c::VERSION, &three_ranks()));
    assert!(r.fault.is_none(), "{:?}", r.fault);
    assert_eq!(r.records, 4);
    let t = r.totals.expect("three ranks");
    assert_eq!((t.ranks, t.nodes), (3, 2));
    // NaN is no time: 2 + 0 + 5.
    assert_eq!(t.seconds, 7.0);
    assert!((t.mean_seconds() - 7.0 / 3.0).abs() < 1e-12);
    assert_eq!((t.least.rank, t.least.seconds), (1, 0.0));
    assert_eq!((t.most.rank, t.most.seconds), (2, 5.0));
    assert_eq!((t.variance, t.sync_measured, t.sync_seconds), (4.5, true, 0.75));
    let names: Vec<&str> = t.ops.iter().map(|o| o.name).collect();
    // Most time first, the format's order among equals (MPI_BCAST's
    // counters come before MPI_ALLREDUCE's); MPI_SEND took no time but
    // was called.
    assert!(counter("MPI_BCAST_CALL_COUNT") < counter("MPI_ALLREDUCE_CALL_COUNT"));
    assert_eq!(names, ["MPI_BCAST", "MPI_ALLREDUCE", "MPI_BARRIER", "MPI_SEND"]);
    let op = |n: &str| t.ops.iter().find(|o| o.name == n).unwrap();
    let ar = op("MPI_ALLREDUCE");
    assert_eq!((ar.calls, ar.bytes, ar.seconds), (60, Some(4800), 3.0));
    assert!((ar.max_call_seconds - 0.3).abs() < 1e-12);
    assert_eq!(op("MPI_BCAST").bytes, Some(0), "a collective that moves data has a byte count");
    assert_eq!((op("MPI_BARRIER").calls, op("MPI_BARRIER").bytes, op("MPI_BARRIER").seconds), (6, None, 1.0));
    assert_eq!(op("MPI_SEND").calls, u64::MAX, "calls saturate");
}

#[test]
fn a_short_remainder_is_no_record_and_a_header_alone_is_no_job() {
    let d = out_dir("mpi-comm-short");
    let mut b = three_ranks();
    b.truncate(c::HEADER_SIZE + 2 * c::PERF_SIZE + 100);
    let r = read(&apmpi_log(&d.join("cut.darshan"), c::VERSION, &b));
    assert!(r.fault.is_none());
    assert_eq!((r.records, r.totals.map(|t| t.ranks)), (3, Some(2)));
    let r = read(&apmpi_log(&d.join("header.darshan"), c::VERSION, &header()));
    assert_eq!(r.records, 1);
    assert!(r.totals.is_none() && r.fault.is_none());
}

#[test]
fn a_version_this_layout_is_not_is_unreadable() {
    let d = out_dir("mpi-comm-version");
    for v in [0, c::VERSION + 1] {
        let r = read(&apmpi_log(&d.join(format!("v{v}.darshan")), v, &three_ranks()));
        assert!(matches!(r.fault, Some(Fault::Unreadable(_))), "version {v}: {:?}", r.fault);
        assert!(r.totals.is_none() && r.records == 0);
    }
}
