//! The runtime's one line on stderr (here: the log directory does not
//! exist) went into a pipe whose reader had gone (`prog 2>&1 | head -1`)
//! and SIGPIPE killed the program (exit 141) after it had done all its
//! own work, which had succeeded. The oracle is the program's own exit
//! status and output.

mod common;

use std::process::Stdio;

use common::*;

#[test]
fn a_line_into_a_closed_stderr_pipe_killed_the_program_with_sigpipe() {
    let d = scratch("closed-stderr");
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let exe = compile("fsize_limit", &d, &[]);
    // The reader is closed before the program starts: every write to
    // its stderr meets a pipe nobody reads.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut cmd = instrumented(&exe, &d);
    cmd.env("DARSHAN_LOGPATH", d.join("no-such-dir")).arg(&data).arg("3");
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::from(writer)).spawn().unwrap();
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    let status = wait_within(&mut child, LIMIT);
    assert!(status.success(), "killed: {status:?}");
    assert_eq!(stdout, "done 3\n");
    assert_eq!(files(&data).len(), 3, "the program's files");
}
