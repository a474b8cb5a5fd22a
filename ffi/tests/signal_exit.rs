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
/// same way). Now the log's memory comes from a mapping of its own, no
/// thread is spawned and the log is named in UTC (the local time zone's
/// first use allocates through the C library). Each run must end within
/// its limit with status 7 and a log holding the file.
fn an_exit_from_a_handler_that_interrupted_malloc_hung_the_program(mode: &str) {
    let d = scratch(&format!("handler-heap-{mode}"));
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let exe = compile("handler_exit_heap", &d, &["-lpthread"]);
    for i in 0..10 {
        let logs = d.join(format!("logs/{i}"));
        std::fs::create_dir_all(&logs).unwrap();
        let mut child = instrumented(&exe, &d).arg(mode).arg(&data).env("DARSHAN_LOGPATH", &logs).spawn().unwrap();
        let st = wait_within(&mut child, Duration::from_secs(20));
        assert_eq!(st.code(), Some(7), "run {i}: {st:?}");
        let log = files(&logs);
        assert_eq!(log.len(), 1, "run {i}: {log:?}");
        assert_eq!(files_and_bytes(&log[0], &data), (1, 6), "run {i}");
    }
}

#[test]
fn an_exit_from_a_handler_that_interrupted_malloc_on_the_main_thread_hung_the_program() {
    an_exit_from_a_handler_that_interrupted_malloc_hung_the_program("main");
}

#[test]
fn an_exit_from_a_handler_that_interrupted_malloc_on_a_worker_thread_hung_the_program() {
    an_exit_from_a_handler_that_interrupted_malloc_hung_the_program("thread");
}
