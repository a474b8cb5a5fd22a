//! Where the runtime's one line on stderr did harm. Into a pipe whose
//! reader had gone (`prog 2>&1 | head -1`), SIGPIPE killed the program
//! (exit 141) after it had done all its own work; after the program
//! closed its stderr and opened a file, which got descriptor 2, the line
//! (the crash-safe file's directory does not exist, said at that file's
//! first record) went into the program's data. The oracle is the
//! program's own exit status, output and files.

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
    // Waited for first, within the limit (its few bytes fit the pipe).
    let status = wait_within(&mut child, LIMIT);
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    assert!(status.success(), "killed: {status:?}");
    assert_eq!(stdout, "done 3\n");
    assert_eq!(files(&data).len(), 3, "the program's files");
}

#[test]
fn a_line_after_the_program_reused_descriptor_2_went_into_its_data_file() {
    let d = scratch("stderr-reused");
    let exe = compile("stderr_reused", &d, &[]);
    let file = d.join("data.txt");
    let out = output(instrumented(&exe, &d).env("DARSHAN_MMAP_LOGPATH", d.join("no-such-dir")).arg(&file));
    assert!(out.status.success(), "{:?}", out.status);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "data\n", "the program's file holds its own bytes only");
}
