//! Streams open at once, as many as the descriptor limit allows: every
//! one is recorded and counted (C 3.5.0 finds them in a hash table of
//! any size).

mod common;

use common::mpi::{c, read};
use darshan_log::counters::stdio as sx;
use darshan_log::modules::STDIO;

/// The runtime's map of open streams held 512 and ignored the rest: of
/// 1,000 files open by fopen at once (under the usual limit of 1,024
/// descriptors), the writes of 491 went unrecorded, their records left
/// with the opens alone. C 3.5.0's log of the same program (1,500 files,
/// a limit raised) has every write, as ours now (every STDIO and POSIX
/// counter that is not a time the same).
#[test]
fn streams_open_past_the_512th_had_their_writes_unrecorded() {
    let d = common::scratch("streams-open");
    let exe = common::compile("streams_open", &d, &["-O2"]);
    let data = d.join("data");
    let conf = d.join("darshan.conf");
    std::fs::write(&conf, "MAX_RECORDS 2000 STDIO,POSIX\n").unwrap();
    let mut cmd = common::instrumented(&exe, &d);
    cmd.arg(&data).arg("1000").env("DARSHAN_CONFIG_PATH", &conf);
    let out = darshan_test_support::output(&mut cmd);
    assert!(out.status.success(), "streams_open: {}", String::from_utf8_lossy(&out.stderr));
    let log = read(&common::only_log(&d));
    assert_eq!(log.file.header.partial_flag, 0, "no module incomplete");
    for i in 0..1000 {
        let r = log.one(STDIO, &data.join(format!("s{i}")));
        let bytes = format!("{i}\n").len() as i64;
        assert_eq!((c(r, sx::OPENS), c(r, sx::WRITES), c(r, sx::BYTES_WRITTEN)), (1, 1, bytes), "s{i}");
    }
}
