//! Files the environment names (a configuration file, a time zone),
//! which may be FIFOs or devices: the runtime must never wait on one. Each
//! test is named after the failure; the oracle is the program's own
//! output and exit within a limit far below the test's.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::*;

/// The program (5 files of 6 bytes) run with `var` naming a FIFO, within
/// 30 s, far below the test's own limit: it must end, whole and at once.
/// Returns its scratch directory and its output.
fn with_a_fifo_named_by(tag: &str, var: &str, value: impl Fn(&std::path::Path) -> String) -> (PathBuf, Output) {
    let d = scratch(tag);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let fifo = d.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let exe = compile("fsize_limit", &d, &[]);
    let mut cmd = instrumented(&exe, &d);
    let out = output_within(cmd.arg(&data).arg("5").env(var, value(&fifo)), std::time::Duration::from_secs(30));
    assert!(out.status.success(), "{var}: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done 5\n");
    (d, out)
}

/// TZ named a FIFO (a file a user controls): the runtime read the time
/// zone for the log's name at exit and the program, done with its work,
/// waited there for ever (C Darshan 3.5.0 as well, in glibc's reader).
/// A TZ file that is not a regular one is now not read: the log is named
/// in UTC and the program ends.
#[test]
fn a_tz_that_names_a_fifo_held_the_program_at_its_exit() {
    for (tag, colon) in [("tz-fifo", ""), ("tz-colon-fifo", ":")] {
        let (d, _) = with_a_fifo_named_by(tag, "TZ", |f| format!("{colon}{}", f.display()));
        let log = only_log(&d);
        // Named by the date in UTC (the log's start time is UTC's seconds).
        let start = common::mpi::read(&log).file.job.start_time_sec;
        let date = Command::new("date").args(["-u", "-d", &format!("@{start}"), "+%-m-%-d"]).output().unwrap();
        let date = String::from_utf8_lossy(&date.stdout).trim().to_string();
        let name = log.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.contains(&format!("_{date}-")), "{name} is not named by {date} (UTC)");
    }
}

/// DARSHAN_CONFIG_PATH named a FIFO: the constructor's read of it waited
/// for a writer and the program never reached its main. Now a file that
/// is not a regular one is refused with one line, and the program runs.
#[test]
fn a_config_path_that_names_a_fifo_held_the_program_before_its_main() {
    let (d, out) = with_a_fifo_named_by("config-fifo", "DARSHAN_CONFIG_PATH", |f| f.display().to_string());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a regular file"), "{err}");
    only_log(&d);
}
