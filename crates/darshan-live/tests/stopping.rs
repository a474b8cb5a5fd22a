//! darshan-stream's stop: SIGTERM or SIGINT publish a last interval and
//! end it with status 0, from its first moments on (a service stopped as
//! it starts). darshan-ingest died of a SIGTERM that came while it opened
//! its database, its handler set only after (CI48); the daemon set its
//! handlers after binding its metrics port and connecting to NATS.

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_test_support::{free_port, output};

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("stream-stopping").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("mmap")).unwrap();
    d
}

/// The line number of the first line of `pid` in an `strace -f` trace that
/// satisfies `what`.
fn first_of(trace: &str, pid: &str, what: &dyn Fn(&str) -> bool) -> Option<usize> {
    trace.lines().position(|l| l.split_whitespace().next() == Some(pid) && what(l))
}

#[test]
fn a_sigterm_as_the_daemon_started_ended_it_by_the_signal() {
    let d = scratch("early");
    let trace = d.join("strace.txt");
    let o = output(
        Command::new("strace")
            .args(["-f", "-e", "trace=rt_sigaction,bind", "-o"])
            .arg(&trace)
            .args(["timeout", "--preserve-status", "-s", "TERM", "1"])
            .arg(env!("CARGO_BIN_EXE_darshan-stream"))
            .args(["--interval", "0.3", "--node", "n", "--dir"])
            .arg(d.join("mmap"))
            .arg("--prometheus")
            .arg(format!("127.0.0.1:{}", free_port())),
    );
    assert!(o.status.success(), "stopped by SIGTERM after 1 s: {:?} {}", o.status, String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&trace).unwrap();
    let bind = text.lines().find(|l| l.contains(" bind(")).expect("the metrics port bound");
    let pid = bind.split_whitespace().next().unwrap();
    let handler = first_of(&text, pid, &|l| l.contains("rt_sigaction(SIGTERM, {sa_handler=0x"));
    let bound = first_of(&text, pid, &|l| l.contains(" bind("));
    assert!(
        matches!((handler, bound), (Some(h), Some(b)) if h < b),
        "SIGTERM's handler (line {handler:?}) set before the metrics port's bind (line {bound:?})"
    );
}
