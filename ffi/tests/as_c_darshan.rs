//! Counters where C Darshan 3.5.0's arithmetic gives a value its rules
//! would not suggest, found by running random POSIX and STDIO programs
//! under C's library and ours and comparing every counter that is not a
//! time (scripts/differential/run.py). The expected values are C's, from its
//! log of the same program on this machine kind.

mod common;

use common::mpi::{c, read, Log};
use darshan_log::counters::stdio as sx;
use darshan_log::modules::STDIO;
use darshan_test_support::SpawnWatched;
use std::path::PathBuf;

/// The log of tests/programs/`name`.c run under the library on a data
/// directory of its own, and that directory.
fn log_of(name: &str) -> (Log, PathBuf) {
    let d = common::scratch(name);
    let exe = common::compile(name, &d, &["-O2"]);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let status = common::instrumented(&exe, &d).arg(&data).spawn_watched().wait().unwrap();
    assert!(status.success(), "{name}: {status}");
    (read(&common::only_log(&d)), data)
}

/// fgets's and fputs's `strlen` and fread's and fwrite's `size * n` are
/// `size_t`s in C, so its `max < offset + bytes - 1` is unsigned there:
/// a 0-byte fgets or fputs at offset 0 sets MAX_BYTE_* to -1, which later
/// `size_t` calls cannot raise and an int one (fgetc, fflush) does. Ours
/// compared signed numbers and wrote 297 and 49 where C writes -1.
#[test]
fn a_zero_byte_fgets_or_fputs_at_offset_zero_gave_a_max_byte_where_c_writes_minus_one() {
    let (log, data) = log_of("stdio_size_t");
    let max = |name: &str| {
        let r = log.one(STDIO, &data.join(name));
        (c(r, sx::MAX_BYTE_READ), c(r, sx::MAX_BYTE_WRITTEN))
    };
    assert_eq!(max("nul.txt"), (-1, 602), "fgets of \"\" at 0, then fread");
    assert_eq!(max("nul_getc.txt"), (298, 602), "the same, then fgetc");
    assert_eq!(max("empty.txt"), (0, -1), "fputs(\"\") at 0, then fwrite");
    assert_eq!(max("flushed.txt"), (0, 49), "the same, then fflush");
}

/// At STDIO's record limit (tests/programs/stdio_full.c: 1,030 files
/// opened with fopen, then a line on stdout). C Darshan makes the three
/// standard streams' records when its STDIO module is set up, before the
/// first file's, so they hold 3 of its 1,024 records: its log has the
/// first 1,021 files, `<STDOUT>` (stdin and stderr, unused, are dropped)
/// and STDIO's partial flag. We made a standard stream's record at its
/// first use, so the files took all 1,024 places and `<STDOUT>` a 1,025th.
#[test]
fn standard_streams_made_at_first_use_left_their_three_places_to_files() {
    let (log, data) = log_of("stdio_full");
    let names: Vec<&str> = log.recs.iter().filter(|(m, _, _)| *m == STDIO).map(|(_, n, _)| n.as_str()).collect();
    let file = |i: usize| data.join(format!("s{i}")).display().to_string();
    let files: Vec<String> = (0..1021).map(file).collect();
    assert_eq!(names.len(), 1022, "C's 1,021 files and <STDOUT>");
    assert!(names.contains(&"<STDOUT>"));
    assert!(files.iter().all(|f| names.contains(&f.as_str())), "the first 1,021 files");
    assert!(!names.contains(&file(1021).as_str()));
    assert_ne!(log.file.header.partial_flag & (1 << STDIO), 0, "STDIO partial");
}
