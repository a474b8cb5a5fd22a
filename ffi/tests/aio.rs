//! POSIX aio: a request is one read or write when it is returned
//! (`aio_return`), however many are in flight and whether or not others
//! were ever returned. The oracles: a program's own known pattern, with
//! C Darshan 3.5.0's log of it (tests/programs/aio_many.c), and the
//! kernel's count of the writes an Open MPI job made through aio (strace).

mod common;

use common::mpi::{c, read, the_log, Log, NP};
use darshan_log::counters::posix as px;
use darshan_log::modules::POSIX;

/// POSIX counters of `name` in `log`: (reads, writes, bytes read, bytes
/// written, sequential reads, sequential writes, consecutive writes).
fn counts(log: &Log, name: &std::path::Path) -> [i64; 7] {
    let r = log.one(POSIX, name);
    [px::READS, px::WRITES, px::BYTES_READ, px::BYTES_WRITTEN, px::SEQ_READS, px::SEQ_WRITES, px::CONSEC_WRITES]
        .map(|k| c(r, k))
}

/// The runtime followed at most 64 requests in flight: the 65th and
/// later went unrecorded, and once 64 were never returned (a program
/// that only asks aio_error) no request of the process was recorded
/// again. aio_many's 300 writes in flight were counted as 64, its 300
/// reads by one lio_listio as 64, and its second file's 201 writes after
/// 100 never returned as none. The values are C 3.5.0's, which are the
/// program's own (the twice-submitted aiocb counts once in C too).
#[test]
fn aio_requests_past_the_64th_in_flight_went_unrecorded() {
    let d = common::scratch("aio-many");
    let exe = common::compile("aio_many", &d, &["-O2", "-lrt"]);
    let out = darshan_test_support::output(common::instrumented(&exe, &d).arg(d.join("data")));
    assert!(out.status.success(), "aio_many: {}", String::from_utf8_lossy(&out.stderr));
    let log = read(&common::only_log(&d));
    assert_eq!(counts(&log, &d.join("data/a.dat")), [300, 300, 30_000, 30_000, 1, 299, 299], "a.dat");
    assert_eq!(counts(&log, &d.join("data/b.dat")), [0, 201, 0, 20_100, 0, 201, 200], "b.dat");
    assert_eq!(c(log.one(POSIX, &d.join("data/b.dat")), px::MAX_BYTE_WRITTEN), 30_099);
}

/// Open MPI's own MPI-IO (OMPIO, its default but on Lustre) writes a
/// collective's pieces through glibc's aio, thousands in flight: the
/// shared file's POSIX_WRITES was 7,557 of the 240,006 writes the kernel
/// saw (C 3.5.0: 240,006). Counted under strace, every write of the file
/// by any rank's thread must be in the log.
#[test]
fn an_ompio_collective_through_aio_was_counted_as_a_thirtieth_of_its_writes() {
    let d = common::scratch("aio-ompio");
    let exe = common::mpi::mpicc(common::mpi::OpenMpi, "ompio_aio", &d);
    let trace = d.join("strace");
    std::fs::create_dir_all(&trace).unwrap();
    let env = [
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
    ];
    let mut cmd = common::mpi::OpenMpi.launcher(&env);
    cmd.args(["--mca", "io", "ompio", "strace", "-f", "-qq", "-y", "-ff", "-e", "trace=pwrite64,pwritev,pwritev2"])
        .arg("-o")
        .arg(trace.join("st"))
        .arg(&exe)
        .arg(d.join("data"))
        .arg("40000");
    let out = darshan_test_support::output(&mut cmd);
    assert!(out.status.success(), "{:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let m0 = d.join("data/m0");
    // strace names the file by its path with links resolved.
    let seen = format!("<{}>,", std::fs::canonicalize(&m0).unwrap().display());
    let mut kernel = 0;
    for f in std::fs::read_dir(&trace).unwrap() {
        let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
        // A write done: `pwrite64(17</…/m0>, "qqqq", 4, 1) = 4`.
        let done = |l: &&str| l.contains(&seen) && l.rsplit(" = ").next().is_some_and(|n| n.parse::<u64>().is_ok());
        kernel += text.lines().filter(done).count();
    }
    assert!(kernel > 10_000, "OMPIO made {kernel} writes: not the many small ones this test is about");
    let logs: Vec<_> = std::fs::read_dir(d.join("logs")).unwrap().map(|e| e.unwrap().path()).collect();
    let log = the_log(&logs);
    let writes: i64 = log.all(POSIX, &m0).iter().map(|r| c(r, px::WRITES)).sum();
    assert_eq!(writes, kernel as i64, "POSIX_WRITES of m0 over {NP} ranks against the kernel's");
}
