//! `darshan-study --json | head -c 100` panicked with a backtrace (status
//! 101) every time, `darshan-run --summary LOG 2>&1 | head -1` in 2 of 5
//! runs. Every tool, its output's reader gone before it writes: it ends
//! quietly (141, as a shell shows C's tools killed by SIGPIPE), never a
//! panic.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

fn bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let p = exe.parent().unwrap().parent().unwrap().join(name);
    assert!(p.is_file(), "{} is missing: build the workspace first", p.display());
    p
}

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs").join(name)
}

#[derive(Clone, Copy)]
enum Closed {
    Stdout,
    Stderr,
}

/// Run `tool args` with one of its streams a pipe whose reader is gone;
/// the status, and what it said on the other stream.
fn with_closed(which: Closed, tool: &str, args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let mut c = Command::new(bin(tool));
    c.args(args).stdin(Stdio::null());
    // The pipe's reader is closed before the tool starts: closing it after
    // the spawn raced with a tool whose whole output fit in the pipe's
    // buffer (darshan-summary --text once finished first, status 0).
    let (reader_end, writer_end) = std::io::pipe().unwrap();
    drop(reader_end);
    let mut child = match which {
        Closed::Stdout => c.stdout(writer_end).stderr(Stdio::piped()).spawn().unwrap(),
        Closed::Stderr => c.stdout(Stdio::null()).stderr(writer_end).spawn().unwrap(),
    };
    let other = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut e) = other {
            let _ = std::io::Read::read_to_string(&mut e, &mut s);
        }
        s
    });
    let st = darshan_test_support::wait_within(&mut child, Duration::from_secs(120));
    (st.code(), reader.join().unwrap_or_default())
}

#[test]
fn no_tool_panics_when_its_reader_goes_away() {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("closed-pipes");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let log = corpus("imbalanced_io__imbalanced-io.darshan");
    let dxt = corpus("mpi_io_test_with_dxt__treddy_mpi-io-test_id4373053_6-2-60198-9815401321915095332_1.darshan");
    let db = d.join("study.db");
    let st = darshan_test_support::status(
        Command::new(bin("darshan-ingest")).arg("-q").arg("--db").arg(&db).arg(&log).arg(&dxt),
    );
    assert!(st.success());
    let s = |x: &'static str| -> &std::ffi::OsStr { x.as_ref() };
    let cases: Vec<(Closed, &str, Vec<&std::ffi::OsStr>)> = vec![
        (Closed::Stdout, "darshan-parser", vec![s("--all"), log.as_os_str()]),
        (Closed::Stdout, "darshan-parser", vec![s("--version")]),
        (Closed::Stdout, "darshan-dxt-parser", vec![dxt.as_os_str()]),
        (Closed::Stdout, "darshan-summary", vec![s("--json"), s("-o"), s("-"), log.as_os_str()]),
        (Closed::Stdout, "darshan-summary", vec![s("--text"), s("-o"), s("-"), log.as_os_str()]),
        (Closed::Stdout, "darshan-summary", vec![s("--pdf"), s("-o"), s("-"), log.as_os_str()]),
        (Closed::Stdout, "darshan-study", vec![s("--json"), s("--db"), db.as_os_str()]),
        (Closed::Stdout, "darshan-replay", vec![log.as_os_str()]),
        (Closed::Stdout, "darshan-replay", vec![s("--ior"), log.as_os_str()]),
        (Closed::Stderr, "darshan-run", vec![s("--summary"), log.as_os_str()]),
        (Closed::Stderr, "darshan-parser", vec![d.join("no-such.darshan").into_os_string().leak()]),
        (Closed::Stderr, "darshan-study", vec![s("--db"), d.join("no-such.db").into_os_string().leak()]),
    ];
    for (which, tool, args) in cases {
        let (code, said) = with_closed(which, tool, &args);
        let what = format!("{tool} {args:?}");
        assert!(!said.contains("panicked") && !said.contains("internal error"), "{what}: {said}");
        // 141: the reader went away; 255 and 2: the error itself, when
        // the tool stopped before it had anything else to write.
        assert!(matches!(code, Some(141) | Some(255) | Some(2)), "{what}: status {code:?}: {said}");
        if matches!(which, Closed::Stdout) {
            assert_eq!(code, Some(141), "{what}: {said}");
        }
    }
}
