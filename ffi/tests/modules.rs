//! The module contract end to end: the NULL template module, built into
//! the library and enabled only on request, records its one wrapper's
//! calls into the log like any other module.

mod common;

use common::*;
use darshan_log::modules::NULL;

fn null_records(dir: &std::path::Path) -> (darshan_log::LogFile, Vec<(String, darshan_log::Record)>) {
    let logs = files(&dir.join("logs"));
    assert_eq!(logs.len(), 1, "{logs:?}");
    let log = darshan_log::LogFile::open(&logs[0]).unwrap();
    let names = log.names().unwrap();
    let recs = if log.modules_present().contains(&NULL) { log.records(NULL).unwrap() } else { Vec::new() };
    let named = recs.into_iter().map(|r| (String::from_utf8_lossy(names.get(r.id).unwrap()).into_owned(), r)).collect();
    (log, named)
}

#[test]
fn the_null_module_logs_its_wrappers_calls_when_enabled() {
    let d = scratch("null-on");
    let exe = compile("null_foo", &d, &["-ldl"]);
    let out = output(instrumented(&exe, &d).env("DARSHAN_MOD_ENABLE", "NULL"));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "sum=52", "the wrapper returns the real result");
    let (log, recs) = null_records(&d);
    assert_eq!(recs.len(), 2, "{:?}", recs.iter().map(|r| &r.0).collect::<Vec<_>>());
    let alpha = &recs.iter().find(|r| r.0 == "alpha").unwrap().1;
    let beta = &recs.iter().find(|r| r.0 == "beta").unwrap().1;
    // NULL_FOOS, NULL_FOO_MAX_DAT
    assert_eq!((alpha.counters[0], alpha.counters[1]), (5, 4));
    assert_eq!((beta.counters[0], beta.counters[1]), (1, 42));
    assert!(alpha.fcounters[0] >= 0.0 && alpha.fcounters[1] >= 0.0);
    assert_eq!(log.header.partial_flag, 0);
}

#[test]
fn the_null_module_is_off_unless_asked_for_and_then_not_partial() {
    let d = scratch("null-off");
    let exe = compile("null_foo", &d, &["-ldl"]);
    let out = output(&mut instrumented(&exe, &d));
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "sum=52");
    let (log, recs) = null_records(&d);
    assert!(recs.is_empty());
    assert_eq!(log.header.partial_flag & (1 << NULL), 0, "a module switched off is not partial");
    // Without the library the program still runs (its wrapper is ours).
    let plain = output(&mut std::process::Command::new(&exe));
    assert_eq!(String::from_utf8_lossy(&plain.stdout).trim(), "absent");
}
