//! What a forked child pays for the runtime before it does anything: its
//! fork handlers clear the records, tables and names it inherited. They
//! cleared them by writing (or reading) every page of every table, in
//! use or not: 380 page faults more than the same child without the
//! runtime (C Darshan's: 29), about half a millisecond per fork in this
//! VM for every shell script, `make` and Python `subprocess`. And what
//! every process pays at start-up for room it may never use.

mod common;

use common::*;

/// The child's minor faults since the fork (tests/programs/fork_faults.c).
fn child_faults(cmd: &mut std::process::Command) -> i64 {
    let out = output_within(cmd, std::time::Duration::from_secs(60));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().parse().expect("a count")
}

/// Regression: a forked child cleared the POSIX descriptor table (256
/// KiB), LUSTRE's and every module's record index, the name index and
/// IO_URING's request table by writing all of them, and marked POSIX_META's
/// inherited directory streams by reading all its handle table.
#[test]
fn a_forked_child_does_not_touch_every_page_of_the_runtimes_tables() {
    let d = scratch("fork-cost");
    let exe = compile("fork_faults", &d, &[]);
    let file = d.join("data/f.dat");
    std::fs::create_dir_all(d.join("data")).unwrap();
    let plain = (0..3).map(|_| child_faults(std::process::Command::new(&exe).arg(&file))).min().unwrap();
    let with = (0..3).map(|_| child_faults(instrumented(&exe, &d).arg(&file))).min().unwrap();
    // The child's own state still costs a few dozen pages (its clock,
    // the copy-on-write pages of the records it clears); 380 before.
    assert!(with - plain < 120, "a forked child took {with} page faults with the runtime, {plain} without");
}

/// Regression: the constructor reserved the room for every module's
/// per-record state and common-value spill blocks, and the name index's
/// first table, on the C heap: 1.37 MB in 247 allocations, each block's
/// header a page fault (15 faults and 5 system calls in every process,
/// `/bin/true` included). The room now comes from the runtime's own
/// mappings, untouched until used: what the constructor leaves on the
/// program's heap is a few small values.
#[test]
fn the_constructor_reserves_no_room_on_the_programs_heap() {
    let d = scratch("heap-at-main");
    let exe = compile("heap_at_main", &d, &[]);
    let heap = |cmd: &mut std::process::Command| -> u64 {
        let out = output_within(cmd, std::time::Duration::from_secs(60));
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.split_whitespace().map(|n| n.parse::<u64>().expect("a byte count")).sum()
    };
    let plain = heap(&mut std::process::Command::new(&exe));
    let with = heap(&mut instrumented(&exe, &d));
    assert!(with.saturating_sub(plain) < 64 << 10, "the runtime left {} bytes on the heap at main()", with - plain);
}

/// Regression: a forked child that only exits (a shell's subshell) asked
/// glibc again whether the TSC is invariant, a `dlsym` over every loaded
/// object, cold in the child; and it gave back every module's record
/// index and handle table with a system call each (16 `madvise` calls),
/// written or not. 87 page faults and about 330 us per child here, now
/// 75 and 300. The loader's own account (LD_DEBUG) says the question is
/// asked once, by the parent; strace sees the child give back only the
/// tables its parent wrote (the standard streams' records and names);
/// the child still writes its log.
#[test]
fn a_forked_child_asked_about_the_clock_again_and_cleared_tables_never_written() {
    let d = scratch("fork-exit");
    let exe = compile("fork_exit", &d, &[]);
    let trace = d.join("strace.txt");
    let mut c = std::process::Command::new("strace");
    c.args(["-f", "-e", "trace=madvise", "-o"]).arg(&trace);
    c.arg("-E").arg(format!("LD_PRELOAD={}", lib().display())).args(["-E", "LD_DEBUG=bindings"]);
    c.env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", d.join("logs"))
        .env("DARSHAN_MMAP_LOGPATH", d.join("mmap"));
    let out = output_within(c.arg(&exe).arg("1"), std::time::Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let asked = err.lines().filter(|l| l.contains("`__x86_get_cpuid_feature_leaf'")).count();
    assert!(asked <= 1, "glibc's CPU features looked up {asked} times (once per process before):\n{err}");
    let madvised: Vec<String> =
        std::fs::read_to_string(&trace).unwrap().lines().filter(|l| l.contains("madvise(")).map(String::from).collect();
    assert!(madvised.len() <= 2, "the child gave back {} tables: {madvised:#?}", madvised.len());
    assert_eq!(files(&d.join("logs")).len(), 2, "the parent's log and the child's");
}
