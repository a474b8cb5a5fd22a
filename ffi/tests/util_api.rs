//! darshan-util's C API through our libdarshan-util against C
//! darshan-util 3.5.0's (the library PyDarshan's wheel bundles): one C
//! program, tests/programs/util_api.c, built against the installed
//! headers twice, linked with each library, calls the API on every corpus
//! log as C programs compiled against darshan-logutils.h call it (the
//! job, mounts, modules, names and filtered names, each module's
//! description and every record printed by its table, where records start
//! again, each record's size and figures, the accumulator's metrics and
//! summation record). The two outputs must be the same, but where C's is
//! not the right one or not ours to match:
//! * the big-endian logs older than 3.1.7 (C misreads POSIX fcounters
//!   10-12; docs/deployment.md) are left out;
//! * the wheel's library was built without libuuid, so it prints "N/A"
//!   for a DFS or DAOS record's pool and container: that field is not
//!   compared;
//! * a log the C library's run crashes on is only run through ours, which
//!   must not.
//!
//! With --name-table, our library's uthash table of names must find every
//! name the name records give, as the program's own uthash macros read it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::installed::{prefix, stdout};

/// The C darshan-util that PyDarshan's wheel bundles.
fn c_library() -> PathBuf {
    let found = std::fs::read_dir(common::root().join(".venv/lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|py| py.path().join("site-packages/darshan.libs"))
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("libdarshan-util")));
    found.expect("PyDarshan's wheel's libdarshan-util in .venv (scripts/setup.sh)")
}

/// `pkg-config WHAT darshan-util` of the installed tree.
fn pkg_config(what: &str) -> Vec<String> {
    let o = common::output(
        Command::new("pkg-config").args([what, "darshan-util"]).env("PKG_CONFIG_PATH", prefix().join("lib/pkgconfig")),
    );
    assert!(o.status.success(), "pkg-config {what}");
    stdout(&o).split_whitespace().map(String::from).collect()
}

/// util_api.c built against the installed headers, linked with `libs`.
fn build(d: &Path, name: &str, libs: &[String]) -> PathBuf {
    let src = common::root().join("tests/programs/util_api.c");
    let exe = d.join(name);
    let cflags = pkg_config("--cflags");
    let st = common::status(Command::new("cc").arg("-O2").args(cflags).arg("-o").arg(&exe).arg(&src).args(libs));
    assert!(st.success(), "building util_api.c ({name})");
    exe
}

/// util_api.c linked with our installed library, as darshan-util's users
/// link it.
fn build_ours(d: &Path) -> PathBuf {
    let mut flags = pkg_config("--libs");
    flags.push(format!("-Wl,-rpath,{}", prefix().join("lib").display()));
    build(d, "util_api_ours", &flags)
}

/// A run's lines, a DFS or DAOS record's pool and container field left
/// out.
fn comparable(text: &str) -> Vec<String> {
    let uuid_field = |l: &str| {
        let mut f: Vec<&str> = l.split('\t').collect();
        if f.len() == 8 {
            f[6] = "-";
        }
        f.join("\t")
    };
    text.lines()
        .map(|l| if l.starts_with("DFS\t") || l.starts_with("DAOS\t") { uuid_field(l) } else { l.into() })
        .collect()
}

fn corpus_logs() -> Vec<PathBuf> {
    let dir = common::root().join("../shared/corpus/logs");
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    logs.retain(|p| {
        let n = p.file_name().unwrap().to_string_lossy().to_string();
        n.ends_with(".darshan") && !(n.contains("ppc64-3.0.") || (0..7).any(|k| n.contains(&format!("ppc64-3.1.{k}."))))
    });
    logs.sort();
    logs
}

#[test]
fn a_c_program_on_darshan_utils_api_gets_from_ours_what_c_darshan_util_gives_on_every_corpus_log() {
    let d = common::scratch("util-api");
    let ours = build_ours(&d);
    let c_lib = c_library();
    let c = build(
        &d,
        "util_api_c",
        &[c_lib.display().to_string(), format!("-Wl,-rpath,{}", c_lib.parent().unwrap().display())],
    );
    let (mut same, mut c_crashed, mut failures) = (0, Vec::new(), Vec::new());
    for log in corpus_logs() {
        let name = log.file_name().unwrap().to_string_lossy().to_string();
        let o = common::output_within(Command::new(&ours).arg(&log), common::LIMIT);
        if !o.status.success() {
            failures.push(format!("{name}: ours exited {:?}", o.status));
            continue;
        }
        let r = common::output_within(Command::new(&c).arg(&log), common::LIMIT);
        if !r.status.success() {
            c_crashed.push(name);
            continue;
        }
        let (a, b) = (comparable(&stdout(&o)), comparable(&stdout(&r)));
        match a.iter().zip(&b).position(|(x, y)| x != y) {
            None if a.len() == b.len() => same += 1,
            at => failures.push(format!("{name}: first difference at line {at:?} ({} lines, C {})", a.len(), b.len())),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(same >= 70, "{same} logs compared (C's run crashed on {c_crashed:?})");
    assert!(c_crashed.len() <= 2, "C's run crashed on {c_crashed:?}");
}

#[test]
fn every_name_is_found_in_our_uthash_table_of_names_as_a_c_program_reads_it() {
    let d = common::scratch("util-api-names");
    let ours = build_ours(&d);
    for log in corpus_logs() {
        let o = common::output_within(Command::new(&ours).arg("--name-table").arg(&log), common::LIMIT);
        assert!(o.status.success(), "{}: {:?}", log.display(), o.status);
        let text = stdout(&o);
        let line = |key: &str| text.lines().find(|l| l.starts_with(key)).unwrap_or_default().to_string();
        let names = line("names ").trim_start_matches("names ").to_string();
        assert_eq!(line("get_namehash "), format!("get_namehash 0 {names} of {names}"), "{}", log.display());
        assert_eq!(line("names found in the table "), format!("names found in the table {names}"), "{}", log.display());
    }
}
