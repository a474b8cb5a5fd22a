//! `_exit` from a signal handler, the way out POSIX allows a handler
//! (async-signal-safe). The oracle is the program's known pattern (one
//! file of 6 bytes before the signal), its exit status, and that it ends.

mod common;

use std::time::Duration;

use common::*;

/// In a threaded program that allocates as it computes, a SIGALRM
/// handler that called `_exit(7)` hung the program for ever in 27 runs of
/// 40: the handler had interrupted `malloc` or `free` holding the heap's
/// lock, and the runtime's log, written from `_exit` on the same thread,
/// waited on that lock at its first allocation (C Darshan 3.5.0 hangs the
/// same way). Now, in a handler, the log's memory comes from a mapping of
/// its own, no thread is spawned and the log is named in UTC (the local
/// time zone's first use allocates through the C library). Each run must
/// end within its limit with status 7 and a log holding the file.
fn an_exit_from_a_handler_that_interrupted_malloc_hung_the_program(mode: &str, how: &str) {
    for i in 0..10 {
        // The name's zone (UTC from a handler) is not what is asked
        // here: that every run ends, with its log.
        ended_with_its_log(mode, how, i, 0);
    }
}

#[test]
fn an_exit_from_a_handler_that_interrupted_malloc_on_the_main_thread_hung_the_program() {
    an_exit_from_a_handler_that_interrupted_malloc_hung_the_program("main", "_exit");
}

#[test]
fn an_exit_from_a_handler_that_interrupted_malloc_on_a_worker_thread_hung_the_program() {
    an_exit_from_a_handler_that_interrupted_malloc_hung_the_program("thread", "_exit");
}

/// `exit` from the handler, as programs call it there too (not
/// async-signal-safe, but the C library's own exit does not wait on the
/// heap: the program alone ends every time): the log, written by the
/// library's destructor inside `exit`, hung it in 23 runs of 30 (C
/// Darshan 3.5.0 in 16 of 20).
#[test]
fn exit_from_a_handler_that_interrupted_malloc_hung_the_program() {
    an_exit_from_a_handler_that_interrupted_malloc_hung_the_program("main", "exit");
}

/// The same with a megabyte of records (1,600 files more): the log's
/// compression still split them across helper threads from a handler,
/// and the C library allocates a new thread's thread-local storage on
/// the heap whose lock the interrupted frame holds.
#[test]
fn an_exit_from_a_handler_with_a_megabyte_of_records_hung_the_program() {
    for i in 0..10 {
        ended_with_its_log("main", "_exit", i, 1600);
    }
}

/// An ordinary end (`_exit` as Python's `os._exit` calls it, or `exit`)
/// names its log in local time, as C Darshan does.
#[test]
fn an_ordinary_end_names_its_log_in_local_time() {
    for how in ["_exit", "exit"] {
        assert_eq!(ended_with_its_log("plain", how, 0, 0), 5 * 3600 + 1800, "{how}");
    }
}

/// Runs `handler_exit_heap <mode> <how> <dir> <more>` (run `i`) with TZ
/// 5:30 ahead of UTC: it must end within its limit with status 7 and one
/// log holding its `more` + 1 files of 6 bytes. Returns the offset from UTC the log's name was given, in
/// seconds (its seconds since midnight against UTC's at the end).
fn ended_with_its_log(mode: &str, how: &str, i: usize, more: usize) -> i64 {
    let d = scratch(&format!("handler-heap-{mode}{how}-{more}-{i}"));
    let (data, logs) = (d.join("data"), d.join("logs"));
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(&logs).unwrap();
    let exe = compile("handler_exit_heap", &d, &["-lpthread"]);
    let mut c = instrumented(&exe, &d);
    room_for_many_records(&mut c, &d).args([mode, how]).arg(&data).arg(more.to_string()).env("TZ", "IST-5:30");
    let mut child = c.spawn().unwrap();
    let st = wait_within(&mut child, Duration::from_secs(20));
    assert_eq!(st.code(), Some(7), "{st:?}");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let log = files(&logs);
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(files_and_bytes(&log[0], &data), (more + 1, 6 * (more as i64 + 1)));
    // <user>_<exe>_id<job>-<pid>_<month>-<day>-<seconds>-<random>_1.darshan
    let name = log[0].file_name().unwrap().to_string_lossy().into_owned();
    let secs: i64 = name.rsplit('_').nth(1).and_then(|t| t.split('-').nth(2)).and_then(|s| s.parse().ok()).unwrap();
    // The name says when the program started, less than a minute before
    // now: the offset, less up to that minute.
    let seen = (secs - now % 86400).rem_euclid(86400);
    [0, 5 * 3600 + 1800].into_iter().find(|o| (o - seen).rem_euclid(86400) < 60).unwrap_or(seen)
}
