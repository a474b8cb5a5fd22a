//! Helpers shared by the runtime's integration tests: where the library
//! and tools are, scratch directories, compiling the test programs, and
//! running a program with a time limit (no test may hang on a program).
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The limit for one program run by a test.
pub const LIMIT: Duration = Duration::from_secs(120);

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A binary of the profile this test was built with (libdarshan.so,
/// darshan-merge, darshan-parser ...).
pub fn built(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [deps.join(name), deps.join("..").join(name)]
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{name} not found next to {} (cargo build --release)", exe.display()))
}

pub fn lib() -> PathBuf {
    built("libdarshan.so")
}

static SEQ: AtomicUsize = AtomicUsize::new(0);

/// A fresh scratch directory under target/preload-tests with logs/,
/// data/ and mmap/ in it (the PyDarshan check reads every log there).
pub fn scratch(tag: &str) -> PathBuf {
    let d = root().join("target/preload-tests").join(format!(
        "{tag}-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    for sub in ["logs", "data", "mmap"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
    }
    d
}

/// Compile tests/programs/<name>.c into `dir`.
pub fn compile(name: &str, dir: &Path, flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let src = root().join("tests/programs").join(format!("{name}.c"));
    let st = Command::new("cc").arg("-O2").arg("-o").arg(&out).arg(&src).args(flags).status().expect("cc");
    assert!(st.success(), "compiling {name}");
    out
}

/// `cmd` with the runtime preloaded for a non-MPI program, its logs and
/// crash-safe files in `dir`.
pub fn instrumented(exe: &Path, dir: &Path) -> Command {
    let mut c = Command::new(exe);
    c.env("LD_PRELOAD", lib())
        .env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", dir.join("logs"))
        .env("DARSHAN_MMAP_LOGPATH", dir.join("mmap"));
    c
}

/// Wait for `child` at most `limit`; kill it (and fail the test) after.
pub fn wait_within(child: &mut Child, limit: Duration) -> ExitStatus {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
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

/// Like `Command::output`, with a time limit.
pub fn output(cmd: &mut Command) -> Output {
    output_within(cmd, LIMIT)
}

pub fn output_within(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
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
    Output { status, stdout: ro.join().unwrap(), stderr: re.join().unwrap() }
}

/// Files in `dir`, sorted (none if it does not exist).
pub fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|r| r.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    v.sort();
    v
}
