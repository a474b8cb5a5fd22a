//! How a process's log gets its name: written into an unnamed file
//! (O_TMPFILE) and linked under its final name once whole, by its
//! descriptor where the kernel allows it, else through /proc. The spy
//! (tests/programs/spy_open.c, preloaded before the runtime) sees the
//! runtime's opens and links.

mod common;

use std::ffi::CString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::*;

/// fopen_once under the spy with `env`, its one log checked whole and
/// read-only: the spy's stderr.
fn published(tag: &str, env: &[(&str, &str)]) -> String {
    let d = scratch(tag);
    let exe = compile("fopen_once", &d, &[]);
    let file = d.join("data/existing.txt");
    std::fs::write(&file, b"x\n").unwrap();
    let preload = format!("{}:{}", spy(&d).display(), lib().display());
    let out =
        output_within(instrumented(&exe, &d).env("LD_PRELOAD", preload).envs(env.iter().copied()).arg(&file), LIMIT);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 1, "one log, no partial one left: {logs:?}");
    assert_eq!(std::fs::metadata(&logs[0]).unwrap().permissions().mode() & 0o777, 0o400);
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    assert!(!log.records(darshan_log::modules::STDIO).unwrap().is_empty(), "{err}");
    err
}

/// Whether this kernel lets this process link an unnamed file it opened
/// by its descriptor (Linux 6.10 and later, or CAP_DAC_READ_SEARCH).
fn kernel_links_by_descriptor(dir: &Path) -> bool {
    let cdir = CString::new(dir.to_str().unwrap()).unwrap();
    let to = CString::new(dir.join("probe").to_str().unwrap()).unwrap();
    // SAFETY: NUL-terminated paths; the descriptor is closed below.
    unsafe {
        let fd = libc::open(cdir.as_ptr(), libc::O_TMPFILE | libc::O_WRONLY, 0o600);
        if fd < 0 {
            return false;
        }
        let r = libc::linkat(fd, c"".as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::AT_EMPTY_PATH);
        libc::close(fd);
        r == 0
    }
}

/// A log written as `<name>.darshan_partial` and then renamed could be
/// renamed away and replaced by another user in a world-writable log
/// directory without the sticky bit (9 of 40 attempts). The log is now
/// written through an unnamed file (O_TMPFILE) and linked under its final
/// name: the spy sees no partial log opened, and the log is whole and
/// read-only.
#[test]
fn the_log_never_has_a_name_another_user_could_steal() {
    let err = published("unnamed-log", &[]);
    assert!(!err.contains("spy: a partial log opened"), "{err}");
    assert!(err.contains("spy: log linked"), "{err}");
}

/// Linking the unnamed file through `/proc/self/fd/N` resolves a /proc
/// path at every process's exit (12-21 us on ext4 in a fresh process)
/// and needs /proc mounted; where the kernel lets a process link its own
/// file by its descriptor, the log is linked that way.
#[test]
fn the_log_is_linked_by_its_descriptor_where_the_kernel_allows_not_through_proc() {
    let d = scratch("flink-probe");
    if !kernel_links_by_descriptor(&d) {
        eprintln!("this kernel links no unnamed file by descriptor for this process: not checked");
        return;
    }
    let err = published("flink", &[]);
    assert!(err.contains("spy: log linked by descriptor"), "{err}");
    assert!(!err.contains("spy: log linked through /proc"), "{err}");
}

/// A kernel before 6.10 refuses an unprivileged process's linkat with
/// AT_EMPTY_PATH (ENOENT): the log is then linked through /proc, still
/// under its final name only.
#[test]
fn a_kernel_that_refuses_linking_by_descriptor_gets_the_log_linked_through_proc() {
    let err = published("flink-refused", &[("SPY_NO_FLINK", "1")]);
    assert!(err.contains("spy: log linked through /proc"), "{err}");
    assert!(!err.contains("spy: log linked by descriptor"), "{err}");
    assert!(!err.contains("spy: a partial log opened"), "{err}");
}
