//! What every test that runs a program uses: a time limit. A program that
//! hangs is killed and the test fails, instead of CI hanging. And the
//! shared corpus with C's parser output for it (`corpus`).
#![forbid(unsafe_code)]

pub mod corpus;
pub mod lustre_blobs;

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The limit for one program run by a test.
pub const LIMIT: Duration = Duration::from_secs(120);

/// Wait for `child` at most `limit`; kill it (and fail the test) after.
pub fn wait_within(child: &mut Child, limit: Duration) -> ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().expect("wait") {
            return st;
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("program still running after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// `wait_within` with the default limit.
pub fn wait(child: &mut Child) -> ExitStatus {
    wait_within(child, LIMIT)
}

/// Like `Command::output`, with the default time limit.
pub fn output(cmd: &mut Command) -> Output {
    output_within(cmd, LIMIT)
}

/// Like `Command::output`, killing the program after `limit`.
pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let mut so = child.stdout.take().expect("stdout");
    let mut se = child.stderr.take().expect("stderr");
    let ro = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = so.read_to_end(&mut v);
        v
    });
    let re = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = se.read_to_end(&mut v);
        v
    });
    let status = wait_within(&mut child, limit);
    Output { status, stdout: ro.join().unwrap_or_default(), stderr: re.join().unwrap_or_default() }
}

/// Like `Command::status`, with the default time limit.
pub fn status(cmd: &mut Command) -> ExitStatus {
    let mut child = cmd.spawn().expect("spawn");
    wait(&mut child)
}

/// For a child the test talks to (reads its output line by line): kill
/// it after the default limit, so that a hung program fails the test
/// (the read then ends) instead of hanging it. Only while it is still
/// this process's child: a number the system has since given to another
/// process is left alone.
pub fn watchdog(child: &Child) {
    let pid = child.id();
    std::thread::spawn(move || {
        std::thread::sleep(LIMIT);
        if parent_of(pid) == Some(std::process::id()) {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
    });
}

/// `cmd.spawn()` with the [`watchdog`] on the child: a program the test
/// talks to, started and guarded in one call.
pub trait SpawnWatched {
    fn spawn_watched(&mut self) -> Child;
}

impl SpawnWatched for Command {
    fn spawn_watched(&mut self) -> Child {
        let child = self.spawn().unwrap_or_else(|e| panic!("start {:?}: {e}", self.get_program()));
        watchdog(&child);
        child
    }
}

/// The parent of process `pid` (field 4 of /proc/<pid>/stat, after the
/// parenthesized command name, which may itself hold spaces).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
}

/// `program` (its arguments added by the caller) under GNU time, which
/// prints the peak resident memory on standard error's last line
/// ([`peak_kib`]); with `quiet`, the program's standard output goes to
/// /dev/null (a tool whose output is large).
pub fn under_gnu_time(program: &std::path::Path, quiet: bool) -> Command {
    let script =
        if quiet { "/usr/bin/time -f %M \"$0\" \"$@\" > /dev/null" } else { "/usr/bin/time -f %M \"$0\" \"$@\"" };
    let mut c = Command::new("sh");
    c.args(["-c", script]).arg(program);
    c
}

/// The peak resident memory (KiB) GNU time said a run of
/// [`under_gnu_time`] took.
pub fn peak_kib(o: &Output) -> u64 {
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err.lines().last().unwrap_or("").trim().to_string();
    last.parse().unwrap_or_else(|_| panic!("no peak from GNU time: {err}"))
}

/// A port for a server started here, free when chosen: below the
/// kernel's ephemeral range (32768-60999), where no outgoing connection
/// (the tests' own, Prometheus's scrapes, the NATS clients') takes it
/// before the server binds it, and never handed out twice in this
/// process, whose tests run at once. A port the kernel chose (a bind to
/// port 0, released at once) was free for any of those to take: a NATS
/// server that then could not bind left `start` finding another server
/// at its port, and its test got no message at all (CI, twice).
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let base = std::process::id().wrapping_mul(97) % SPAN;
    for _ in 0..SPAN {
        let port = (FIRST + (base + NEXT.fetch_add(1, Ordering::Relaxed)) % SPAN) as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port in {FIRST}..{}", FIRST + SPAN);
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_parent_of_a_child_and_of_this_process() {
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        assert_eq!(super::parent_of(child.id()), Some(std::process::id()));
        assert_eq!(super::parent_of(std::process::id()), Some(std::os::unix::process::parent_id()));
        let _ = child.kill();
        let _ = child.wait();
    }
}
