//! Programs that sandbox themselves with seccomp (tests/programs/
//! seccomp_sandbox.c: 20 files of 6 bytes made, a filter installed, 6
//! more bytes written to each under it). A filter that kills what the
//! program itself does not call killed it with SIGSYS at the runtime's
//! first call outside the program's own (the log written at exit): exit
//! status 159 and its buffered output lost, as under C Darshan 3.5.0; an
//! MPI job's rank 0 died in MPI_Finalize. Each
//! test is named after the failure; the oracles are the program's exit
//! status, its output and its known files, in the log or in darshan-merge's
//! recovery of the crash-safe file.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::mpi::Mpi;
use common::*;

fn sandboxed(tag: &str, how: &str) -> (Output, PathBuf, PathBuf) {
    sandboxed_with(tag, how, 20)
}

/// As [`sandboxed`], with `n` files made before the filter (and as many
/// after, where it allows them).
fn sandboxed_with(tag: &str, how: &str, n: usize) -> (Output, PathBuf, PathBuf) {
    let d = scratch(tag);
    let data = d.join("data");
    for sub in [&data, &d.join("logs"), &d.join("mmap")] {
        std::fs::create_dir_all(sub).unwrap();
    }
    let exe = compile("seccomp_sandbox", &d, &["-lseccomp"]);
    let mut c = instrumented(&exe, &d);
    let out = output(room_for_many_records(&mut c, &d).arg(&data).arg(n.to_string()).arg(how));
    (out, d, data)
}

/// The program ran to its end, its own output whole; the runtime said
/// `said` lines.
fn ran_to_its_end(out: &Output, said: usize) -> Vec<String> {
    assert!(out.status.success(), "killed: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "done\n");
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<String> = err.lines().filter(|l| l.starts_with("darshan:")).map(String::from).collect();
    assert_eq!(lines.len(), said, "{lines:?}");
    lines
}

/// No log; the crash-safe file holds the 20 files as they were when the
/// filter came in (6 bytes each: nothing recorded under it).
fn records_kept_until_the_filter(d: &Path, data: &Path) {
    assert!(files(&d.join("logs")).is_empty(), "no log: {:?}", files(&d.join("logs")));
    assert_eq!(files_and_bytes(&recovered(d), data), (20, 120));
}

#[test]
fn a_libseccomp_sandbox_killed_the_program_at_the_runtimes_first_call_outside_it() {
    let (out, d, data) = sandboxed("seccomp-allow", "allow-only");
    // Its filter lets no line through (no signal-mask calls): none said.
    ran_to_its_end(&out, 0);
    records_kept_until_the_filter(&d, &data);
}

#[test]
fn a_sandbox_installed_with_prctl_killed_the_program_at_exit() {
    let (out, d, data) = sandboxed("seccomp-prctl", "prctl-only");
    ran_to_its_end(&out, 0);
    records_kept_until_the_filter(&d, &data);
}

#[test]
fn a_sandbox_that_lets_a_line_through_killed_the_program_and_said_nothing() {
    let (out, d, data) = sandboxed("seccomp-say", "allow-and-say");
    let said = ran_to_its_end(&out, 1);
    assert!(said[0].contains("seccomp") && said[0].contains("darshan-merge --output"), "{said:?}");
    records_kept_until_the_filter(&d, &data);
}

/// A filter on an argument: write(2) only to descriptors 0-2. The runtime
/// writes its log with write(2) on a higher one.
#[test]
fn a_filter_on_writes_descriptor_killed_the_program_when_the_log_was_written() {
    let (out, d, data) = sandboxed("seccomp-write", "write-std");
    let said = ran_to_its_end(&out, 1);
    assert!(said[0].contains("seccomp"), "{said:?}");
    records_kept_until_the_filter(&d, &data);
}

/// A filter that kills only calls the runtime never makes leaves it
/// recording: the log holds the 20 files' 12 bytes each and the 20 made
/// under the filter (6 bytes each).
#[test]
fn a_filter_that_denies_what_the_runtime_never_calls_leaves_the_log_whole() {
    let (out, d, data) = sandboxed("seccomp-deny", "deny-few");
    ran_to_its_end(&out, 0);
    assert!(files(&d.join("mmap")).is_empty(), "crash-safe file left: {:?}", files(&d.join("mmap")));
    assert_eq!(files_and_bytes(&only_log(&d), &data), (40, 20 * 12 + 20 * 6));
}

/// A sandbox that forbids new tasks (it kills clone, clone3, fork and
/// vfork) killed the program at exit once its log was large enough to be
/// compressed on helper threads (a megabyte of records: 1,500 files made
/// before the filter and 1,500 under it). Under such a filter the
/// runtime now compresses on its own thread, and the log holds them all.
#[test]
fn a_sandbox_that_forbids_new_threads_killed_the_program_when_its_large_log_was_compressed() {
    large_log_written_without_threads("seccomp-threads", "deny-threads");
}

/// The program, sandboxed `how`, made 1,500 files before its filter and
/// 1,500 under it, and ran to its end; its log holds all 3,000 with their
/// bytes (12 and 6 each), and no crash-safe file is left.
fn large_log_written_without_threads(tag: &str, how: &str) {
    let (out, d, data) = sandboxed_with(tag, how, 1500);
    ran_to_its_end(&out, 0);
    assert!(files(&d.join("mmap")).is_empty(), "crash-safe file left: {:?}", files(&d.join("mmap")));
    assert_eq!(files_and_bytes(&only_log(&d), &data), (3000, 1500 * 12 + 1500 * 6));
}

/// The same filter installed before the program was executed (as a
/// launcher, a container runtime or a service manager does): the runtime
/// never saw it, started helper threads to compress the large log at exit,
/// and the program died of SIGSYS (C Darshan starts no thread). A filter
/// it did not judge now keeps the shutdown on its own thread.
#[test]
fn a_filter_inherited_across_exec_that_forbids_new_threads_killed_the_program_at_exit() {
    large_log_written_without_threads("seccomp-inherited", "inherit-threads");
}

/// Every rank of an MPI job sandboxed itself after MPI_Init with a filter
/// that kills only `linkat` and `rename` (no MPI library calls them at
/// finalize; the runtime publishes the job's log with them): rank 0 died
/// of SIGSYS in MPI_Finalize and the job failed, a partial log left. Now
/// every rank leaves MPI_Finalize, rank 0 says once that no log was
/// written, and the crash-safe files hold every rank's records as they
/// were when the filter came in.
fn an_mpi_job_that_sandboxed_itself_died_in_mpi_finalize(mpi: Mpi) {
    for gather_max in ["16", "0"] {
        let np = common::mpi::NP as usize;
        let kept = sandboxed_job(mpi, &format!("seccomp-mpi-{gather_max}"), "deny-publish", gather_max);
        assert_eq!(kept, (np * 20, np as i64 * 120), "gather max {gather_max}");
    }
}

/// The same job where only rank 1 sandboxed itself: every rank left
/// MPI_Finalize together, but rank 0 (whose own filter check passed) said
/// the log's finalize step "failed on a rank (an internal error)"; it now
/// says why, the seccomp filter, as when every rank has one.
fn one_rank_of_an_mpi_job_sandboxed_itself_and_rank_0_called_it_an_internal_error(mpi: Mpi) {
    let np = common::mpi::NP as usize;
    let kept = sandboxed_job(mpi, "seccomp-mpi-rank1", "deny-publish@1", "16");
    // Rank 1's records as the filter came in; the others' to their end
    // (another 6 bytes to each file, and 20 more files of 6 bytes).
    let others = np - 1;
    assert_eq!(kept, (20 + others * 40, 120 + others as i64 * 360));
}

/// Runs the sandboxed program at [`NP`](common::mpi::NP) ranks: no log
/// and one line from rank 0 that names the filter and darshan-merge.
/// Returns the files and bytes of the job's crash-safe files, merged.
fn sandboxed_job(mpi: Mpi, tag: &str, how: &str, gather_max: &str) -> (usize, i64) {
    let d = scratch(tag);
    let data = d.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let exe = common::mpi::mpicc_with(mpi, "seccomp_sandbox", &d, &["-DUSE_MPI", "-lseccomp"]);
    let args = [data.to_str().unwrap(), "20", how];
    let (logs, err) = common::mpi::mpirun_said(mpi, &exe, &args, &d, &[("DARSHAN_LOG_GATHER_MAX", gather_max)]);
    assert!(logs.is_empty(), "no log, whole or partial: {logs:?}");
    let said: Vec<&str> = err.lines().filter(|l| l.contains("darshan")).collect();
    assert_eq!(said.len(), 1, "{how}: {said:?}");
    assert!(said[0].contains("seccomp filter") && said[0].contains("darshan-merge"), "{how}: {said:?}");
    files_and_bytes(&recovered(&d), &data)
}

on_both_mpis!(
    an_mpi_job_that_sandboxed_itself_died_in_mpi_finalize,
    one_rank_of_an_mpi_job_sandboxed_itself_and_rank_0_called_it_an_internal_error
);

/// The judge (core::seccomp) runs a filter on the calls listed as the
/// runtime's; a call the runtime makes after its start-up that is
/// missing there could kill a sandboxed program whatever the verdict (the
/// shutdown's helper threads' clone3 was). strace is the oracle: every
/// call after the program's main began (a getcpu marker), in every
/// thread, must be listed (the program's own open, write and close are
/// too), at exit and at `_exit`, with a megabyte of records (the crash-
/// safe file grown, the helper threads' size) and with a few.
#[test]
fn every_call_the_runtime_makes_is_one_the_seccomp_judge_knows() {
    for (n, how) in [(1600, "exit"), (1600, "_exit"), (3, "exit")] {
        let d = scratch(&format!("seccomp-calls-{n}{how}"));
        let data = d.join("data");
        for sub in [&data, &d.join("logs"), &d.join("mmap")] {
            std::fs::create_dir_all(sub).unwrap();
        }
        let exe = compile("runtime_calls", &d, &[]);
        let trace = d.join("strace.txt");
        let mut c = instrumented(Path::new("strace"), &d);
        room_for_many_records(&mut c, &d).env_remove("LD_PRELOAD").args(["-f", "-qq", "-n", "-o"]).arg(&trace);
        c.arg("-E").arg(format!("LD_PRELOAD={}", lib().display()));
        c.arg(&exe).arg(&data).arg(n.to_string()).arg(how);
        let out = output_within(&mut c, LIMIT);
        assert!(out.status.success(), "{n} {how}: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(files_and_bytes(&only_log(&d), &data), (n, 6 * n as i64), "{n} {how}");
        let text = std::fs::read_to_string(&trace).unwrap();
        let after = text.split_once("getcpu(").map(|(_, a)| a).unwrap_or_else(|| panic!("no marker: {text}"));
        let unknown: Vec<&str> = after
            .lines()
            .filter_map(called)
            .filter(|(nr, name)| *name != "exit_group" && !darshan_core::seccomp::listed(*nr))
            .map(|(_, name)| name)
            .collect();
        assert!(unknown.is_empty(), "{n} {how}: calls the judge does not know: {unknown:?}");
        assert!(after.lines().filter_map(called).count() > 3 * n + 10, "{n} {how}: the run traced: {after}");
    }
}

/// A call in an `strace -n` line (`[ 257] openat(...`, a resumed one
/// too), as its number and name.
fn called(line: &str) -> Option<(libc::c_long, &str)> {
    let rest = line.trim_start_matches(|c: char| c != '[').strip_prefix('[')?;
    let rest = if rest.starts_with("pid") { rest.split_once(']')?.1.trim_start().strip_prefix('[')? } else { rest };
    let (nr, rest) = rest.split_once(']')?;
    let rest = rest.trim_start().trim_start_matches("<... ");
    let name = rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').next()?;
    Some((nr.trim().parse().ok()?, name))
}
