//! The tools' answers to logs whose modules are marked partial, and the
//! description blocks of every module darshan-util describes (issue 9,
//! item 12: darshan-dxt-parser printed a partial DXT module and exited 0;
//! darshan-parser --all printed no PNETCDF_VAR description).

use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs").join(name)
}

fn run(bin: &str, args: &[&Path]) -> std::process::Output {
    darshan_test_support::output(Command::new(bin).args(args).env("TZ", "UTC"))
}

#[test]
fn dxt_parser_refuses_a_partial_dxt_module_unless_asked() {
    // A real log whose DXT_POSIX module ran out of memory.
    let log = corpus("partial_data_dxt__partial_data_dxt.darshan");
    let bin = env!("CARGO_BIN_EXE_darshan-dxt-parser");
    let o = run(bin, &[&log]);
    // darshan-parser skips DXT modules before looking at partial flags.
    assert_eq!(run(env!("CARGO_BIN_EXE_darshan-parser"), &[&log]).status.code(), Some(0));
    assert_eq!(o.status.code(), Some(255));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("# *ERROR*: The DXT_POSIX module contains incomplete data!"), "{err}");
    assert!(err.contains("option to darshan-dxt-parser."), "{err}");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("# DXT, file_id"), "no segment printed");
    let o = darshan_test_support::output(Command::new(bin).arg("--show-incomplete").arg(&log).env("TZ", "UTC"));
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("# *WARNING*: The DXT_POSIX module contains incomplete data!"));
    assert!(text.contains("# DXT, file_id"), "segments shown with --show-incomplete");
    let segs = |t: &str| t.lines().filter(|l| l.contains("X_POSIX")).count();
    assert!(segs(&text) > 0);
}

#[test]
fn parser_all_prints_the_pnetcdf_var_description() {
    let log = corpus("ior_pnetcdf_hdf5__shane_ior-PNETCDF_id438100-438100_11-9-41525-10280033558448664385_1.darshan");
    let o = run(env!("CARGO_BIN_EXE_darshan-parser"), &[Path::new("--all"), &log]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    let sec = text.find("# PNETCDF_VAR module data").expect("PNETCDF_VAR section");
    let rest = &text[sec..];
    let desc = rest
        .find("#   PNETCDF_VAR_FILE_REC_ID: Darshan file record ID of the file the variable belongs to.")
        .expect("description");
    assert!(desc < rest.find("\nPNETCDF_VAR\t").unwrap(), "description before the records");
}
