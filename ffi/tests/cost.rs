//! Every log says what the runtime cost (docs/cost.md): the
//! `darshan_cost_*` metadata in a process's log, an MPI job's, a
//! crash-safe file's merge and a job merge, with the calls a known
//! program makes counted exactly (the outside measurement of the time is
//! scripts/check-cost.py, run by `just test` on its own).

mod common;

use std::path::Path;
use std::process::Command;

use common::mpi::*;
use common::*;
use darshan_log::cost::{stated_share, Cost};
use darshan_log::LogFile;

fn cost_of(log: &Path) -> (Cost, Option<f64>, f64, i64) {
    let l = LogFile::open(log).unwrap();
    let c = Cost::of_job(&l.job).unwrap_or_else(|| panic!("no cost lines in {}: {:?}", log.display(), l.job));
    (c, stated_share(&l.job), l.job.run_time(l.header.version), l.job.nprocs)
}

/// The calls the log's own records count, read back from the file.
fn calls_in_records(log: &Path) -> u64 {
    let l = LogFile::open(log).unwrap();
    let mut n = 0;
    for m in l.modules_present() {
        n += l.records(m).unwrap().iter().map(|r| darshan_log::cost::counters_calls(m, &r.counters)).sum::<u64>();
    }
    n
}

fn run_cost_calls(d: &Path, writes: u32, reads: u32, kill: bool) {
    let exe = compile("cost_calls", d, &[]);
    let mut cmd = instrumented(&exe, d);
    cmd.arg(d.join("data/f")).arg(writes.to_string()).arg(reads.to_string());
    if kill {
        cmd.arg("kill");
    }
    let st = wait_within(&mut cmd.spawn().unwrap(), LIMIT);
    assert_eq!(st.success(), !kill, "{st:?}");
}

/// The share is what the figures say of the processes' run time.
fn check_share(c: &Cost, share: Option<f64>, run_secs: f64, procs: i64) {
    let share = share.expect("a share");
    let want = c.total_us() as f64 / (run_secs * procs as f64 * 1e6) * 100.0;
    assert!((share - want).abs() <= want * 0.01 + 1e-9, "share {share} against {want} ({c:?}, {run_secs} s)");
}

#[test]
fn a_process_log_counts_every_call_of_a_known_program_and_times_its_start_and_end() {
    let d = scratch("cost-serial");
    run_cost_calls(&d, 20_000, 5_000, false);
    let log = only_log(&d);
    let (c, share, run, procs) = cost_of(&log);
    // One open, its close, 20,000 pwrites and 5,000 preads.
    assert_eq!(c.calls, 25_002, "{c:?}");
    assert!(c.startup_us > 0 && c.startup_us < 1_000_000, "{c:?}");
    assert!(c.shutdown_us > 0 && c.shutdown_us < 1_000_000, "{c:?}");
    assert!(c.call_ns > 1.0 && c.call_ns < 10_000.0, "{c:?}");
    assert_eq!(c.est_us, darshan_log::cost::round_u64(c.calls as f64 * c.call_ns / 1000.0), "{c:?}");
    check_share(&c, share, run, procs);
    // C's parser shows them as metadata lines.
    let o = output(Command::new(built("darshan-parser")).arg(&log));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("# metadata: darshan_cost_calls = 25002\n"), "{text}");
}

/// A short process's exit is mostly naming and writing its log, and the
/// shutdown its log stated ended before the log was named: 22 us of
/// `/bin/true`'s ~300. The name is now picked, and its file opened,
/// before the job record. Naming is stretched here by 50 ms (a spy
/// preloaded before the runtime sleeps in the open of the local time
/// zone, which only the log's name reads): the stated shutdown includes
/// the 50 ms, where the library before stated microseconds.
#[test]
fn the_stated_shutdown_includes_naming_the_log() {
    let d = scratch("cost-naming");
    let exe = compile("cost_calls", &d, &[]);
    let preload = format!("{}:{}", spy(&d).display(), lib().display());
    let mut cmd = instrumented(&exe, &d);
    cmd.env("LD_PRELOAD", preload).env("SPY_STRETCH_LOCALTIME_MS", "50").env_remove("TZ");
    let out = output_within(cmd.arg(d.join("data/f")).arg("10").arg("10"), LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (c, _, _, _) = cost_of(&only_log(&d));
    assert!((50_000..1_000_000).contains(&c.shutdown_us), "{c:?}");
}

#[test]
fn a_killed_process_merged_from_its_crash_safe_file_states_its_start_up_and_counted_calls() {
    let d = scratch("cost-crash");
    run_cost_calls(&d, 7_000, 0, true);
    let files = files(&d.join("mmap"));
    assert_eq!(files.len(), 1, "{files:?}");
    let out = d.join("logs/recovered.darshan");
    let o = output(Command::new(built("darshan-merge")).arg("--output").arg(&out).args(&files));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (c, _, _, _) = cost_of(&out);
    // The open and the close it is counted with, 7,000 pwrites; no shutdown.
    assert_eq!((c.calls, c.shutdown_us), (7_002, 0), "{c:?}");
    assert!(c.startup_us > 0 && c.call_ns > 1.0, "{c:?}");
    assert_eq!(c.est_us, darshan_log::cost::round_u64(c.calls as f64 * c.call_ns / 1000.0), "{c:?}");
}

#[test]
fn a_job_merge_sums_its_processes_costs() {
    let d = scratch("cost-job");
    let exe = compile("cost_calls", &d, &[]);
    for r in 0..2 {
        let mut cmd = instrumented(&exe, &d);
        cmd.env("SLURM_PROCID", r.to_string()).env("SLURM_NTASKS", "2").env("SLURM_JOB_ID", "5151");
        cmd.env("SLURM_STEP_ID", "0").arg(d.join(format!("data/f{r}"))).arg("1000").arg("10");
        assert!(wait_within(&mut cmd.spawn().unwrap(), LIMIT).success());
    }
    let logs = files(&d.join("logs"));
    assert_eq!(logs.len(), 2, "{logs:?}");
    let each: Vec<Cost> = logs.iter().map(|l| cost_of(l).0).collect();
    let job = d.join("job.darshan");
    let o = output(Command::new(built("darshan-merge")).arg("--job").arg("--output").arg(&job).arg(d.join("logs")));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (c, share, run, _) = cost_of(&job);
    assert_eq!(c.calls, 2 * 1_012, "{c:?}");
    assert_eq!(c.startup_us, each[0].startup_us + each[1].startup_us, "{c:?} {each:?}");
    assert_eq!(c.shutdown_us, each[0].shutdown_us + each[1].shutdown_us, "{c:?} {each:?}");
    check_share(&c, share, run, 2);
}

fn an_mpi_jobs_log_sums_every_ranks_calls_and_cost(mpi: Mpi) {
    let d = scratch(&format!("cost-mpi-{}", mpi.tag()));
    let exe = mpicc(mpi, "mpi_mix", &d);
    let mut cmd = mpi.launcher(&[
        ("LD_PRELOAD", lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
    ]);
    let out = output_within(cmd.arg(&exe).arg(d.join("data")), LIMIT);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = only_log(&d);
    let (c, share, run, procs) = cost_of(&log);
    assert_eq!(procs, NP);
    // Counted by each rank before the reduction, summed over the ranks:
    // what the log's records (shared ones reduced) count.
    assert_eq!(c.calls, calls_in_records(&log), "{c:?}");
    assert!(c.calls > 0 && c.startup_us > 0 && c.shutdown_us > 0, "{c:?}");
    check_share(&c, share, run, procs);
}

on_both_mpis!(an_mpi_jobs_log_sums_every_ranks_calls_and_cost);
