//! The runtime loaded by the program itself, with `dlopen`, rather than
//! at its start. The oracle is the program's known pattern (N files of 6
//! bytes written through the runtime's own wrappers) and its exit status.

mod common;

use std::process::Command;

use common::*;

/// A program that let the runtime go with `dlclose` died of SIGSEGV at
/// its exit, its buffered output lost: the library was unmapped, and the
/// thread-local destructor it had registered on the main thread ran at
/// `exit` into the hole (C Darshan 3.5.0, without such destructors, runs
/// it). The library is now never unloaded (`-z nodelete`); its log,
/// written at exit, holds every file.
#[test]
fn a_program_that_dlclosed_the_runtime_died_at_its_exit() {
    let d = scratch("dlclose");
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::create_dir_all(d.join("logs")).unwrap();
    let exe = compile("dlclose_runtime", &d, &["-ldl"]);
    let out = output(
        Command::new(&exe)
            .arg(lib())
            .arg(&data)
            .arg("20")
            .env("DARSHAN_ENABLE_NONMPI", "1")
            .env("DARSHAN_LOGPATH", d.join("logs"))
            .env("DARSHAN_MMAP_LOGPATH", d.join("mmap")),
    );
    assert!(out.status.success(), "killed: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok 20\n");
    assert_eq!(files_and_bytes(&only_log(&d), &data), (20, 120));
}
