//! The crash-safe mode: processes killed with SIGKILL (and an MPI job
//! killed by mpirun's timeout) leave crash-safe files that our reader
//! reads directly and that darshan-merge turns into one log with exactly
//! the counts the programs' known I/O gives. Logs stay under
//! target/preload-tests for the PyDarshan check.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use darshan_log::counters::{mpiio as mx, posix as px, stdio as sx};
use darshan_log::modules::{DXT_POSIX, MPIIO, POSIX, STDIO};
use darshan_log::{LogFile, Record};

use common::mpi::{Mpi, Mpich, OpenMpi};
use darshan_test_support::SpawnWatched;

fn cc(name: &str, dir: &Path, compiler: &str, flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let src = common::root().join("tests/programs").join(format!("{name}.c"));
    assert!(darshan_test_support::status(Command::new(compiler).arg("-O2").arg("-o").arg(&out).arg(&src).args(flags))
        .success());
    out
}

fn records(path: &Path) -> (LogFile, Vec<(usize, String, Record)>) {
    let log = LogFile::open(path).unwrap();
    let names = log.names().unwrap();
    let mut v = Vec::new();
    for m in log.modules_present() {
        for r in log.records(m).unwrap() {
            v.push((m, String::from_utf8_lossy(names.get(r.id).unwrap_or(b"?")).into_owned(), r));
        }
    }
    (log, v)
}

fn one<'a>(recs: &'a [(usize, String, Record)], m: usize, name: &Path) -> &'a Record {
    let v: Vec<_> = recs.iter().filter(|(mm, n, _)| *mm == m && n == name.to_str().unwrap()).collect();
    assert_eq!(v.len(), 1, "records of {} in module {m}", name.display());
    &v[0].2
}

fn merge(inputs: &[PathBuf], out: &Path, extra: &[&str]) {
    let o = darshan_test_support::output(
        Command::new(common::built("darshan-merge")).arg("--output").arg(out).args(extra).args(inputs),
    );
    assert!(o.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&o.stderr));
}

/// `exe args` under the library (crash-safe files in `d/mmap`), started
/// and waited for until it prints its first line ("ready").
fn start_ready(exe: &Path, args: &[&Path], d: &Path) -> (std::process::Child, String) {
    let mut child = instrumented(exe, args, d).stdout(Stdio::piped()).spawn_watched();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    (child, line)
}

fn instrumented(exe: &Path, args: &[&Path], d: &Path) -> Command {
    let mut c = Command::new(exe);
    c.args(args)
        .env("LD_PRELOAD", common::lib())
        .env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", d.join("logs"))
        .env("DARSHAN_MMAP_LOGPATH", d.join("mmap"));
    c
}

/// The counts of crash_io's known I/O, in a log read by our reader.
fn check_crash_io(recs: &[(usize, String, Record)], data: &Path) {
    let a = one(recs, POSIX, &data.join("a.dat"));
    let c = |k| a.counters[k];
    assert_eq!(
        [c(px::OPENS), c(px::WRITES), c(px::READS), c(px::BYTES_WRITTEN), c(px::BYTES_READ), c(px::MAX_BYTE_WRITTEN)],
        [1, 7, 1, 7000, 100, 6999]
    );
    // Times are seconds (converted from ticks), not tick counts.
    let t = a.fcounters[px::F_WRITE_TIME];
    assert!(t > 0.0 && t < 5.0, "write time {t}");
    let close = a.fcounters[px::F_CLOSE_END_TIMESTAMP];
    assert!(close > 0.0 && close < 30.0, "close timestamp {close}");
    let b = one(recs, STDIO, &data.join("b.txt"));
    assert_eq!(
        [b.counters[sx::OPENS], b.counters[sx::WRITES], b.counters[sx::FLUSHES], b.counters[sx::BYTES_WRITTEN]],
        [1, 3, 1, 21]
    );
}

#[test]
fn a_killed_process_leaves_a_log_with_every_completed_call() {
    let d = scratch_crash("kill");
    let exe = cc("crash_io", &d, "cc", &[]);
    let data = d.join("data");
    let (mut child, line) = start_ready(&exe, &[&data.join("a.dat"), &data.join("b.txt")], &d);
    assert_eq!(line, "ready\n");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(common::files(&d.join("logs")).is_empty(), "a killed process writes no log");
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 1, "{mm:?}");
    // Our reader reads the crash-safe file directly ...
    let (log, recs) = records(&mm[0]);
    assert!(log.tick_secs().is_some());
    check_crash_io(&recs, &data);
    // ... and darshan-merge makes a normal log of it.
    let merged = d.join("logs/merged.darshan");
    merge(&mm, &merged, &[]);
    let (log, recs) = records(&merged);
    assert_eq!(log.job.nprocs, 1);
    assert!(log.job.end_time_sec >= log.job.start_time_sec);
    assert!(!String::from_utf8_lossy(&log.job.metadata).contains("ticks="));
    check_crash_io(&recs, &data);
    // <STDOUT>'s record, made at its first use after b.txt's, comes first
    // in the log, as in one written at exit (and in C's).
    let stdio: Vec<&str> = recs.iter().filter(|(m, _, _)| *m == STDIO).map(|(_, n, _)| n.as_str()).collect();
    assert_eq!(stdio, ["<STDOUT>", data.join("b.txt").to_str().unwrap()]);
}

/// Four threads write as fast as they can and the process is killed
/// mid-burst: each file has its record, and its writes lie between those
/// that had returned and one more per thread. (A CI run found t3.dat
/// without a record: its thread had opened it and not yet written when
/// the others' 20,000 writes were done; crash_burst now starts writing
/// only once all four files are open.)
#[test]
fn killed_inside_a_four_thread_burst_the_counts_lie_between_the_bounds() {
    let d = scratch_crash("burst");
    let exe = cc("crash_burst", &d, "cc", &["-pthread"]);
    let counter = d.join("counter");
    std::fs::write(&counter, [0u8; 8]).unwrap();
    let read_done = || i64::from_le_bytes(std::fs::read(&counter).unwrap()[..8].try_into().unwrap());
    let mut child = instrumented(&exe, &[&d.join("data"), &counter], &d).spawn_watched();
    let start = std::time::Instant::now();
    while read_done() < 20_000 {
        assert!(start.elapsed().as_secs() < 60, "the burst did not start");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // Every write counted as done had returned, so had been recorded; at
    // most one more per thread was recorded but not yet counted.
    let done = read_done();
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 1);
    let merged = d.join("logs/merged.darshan");
    merge(&mm, &merged, &[]);
    let (_, recs) = records(&merged);
    let writes: i64 = (0..4).map(|i| one(&recs, POSIX, &d.join(format!("data/t{i}.dat"))).counters[px::WRITES]).sum();
    assert!(writes >= done && writes <= done + 4, "recorded {writes}, completed {done}");
}

/// Run mpi_crash on 4 ranks until mpirun's timeout kills it; the
/// crash-safe files left.
fn killed_mpi_job(mpi: Mpi, d: &Path, env: &[(&str, &str)]) -> Vec<PathBuf> {
    killed_mpi_job_doing(mpi, d, env, &[])
}

/// As [`killed_mpi_job`], with mpi_crash's mode `args` after its directory.
fn killed_mpi_job_doing(mpi: Mpi, d: &Path, env: &[(&str, &str)], args: &[&str]) -> Vec<PathBuf> {
    let exe = cc("mpi_crash", d, mpi.cc(), &[]);
    let mut vars = vec![
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
    ];
    vars.extend(env.iter().map(|(k, v)| (*k, v.to_string())));
    // The launcher kills the job after 4 s (Open MPI's --timeout; for
    // MPICH, Hydra's MPIEXEC_TIMEOUT).
    let mut cmd = mpi.launcher(&vars);
    match mpi {
        OpenMpi => cmd.args(["--timeout", "4"]),
        Mpich => cmd.env("MPIEXEC_TIMEOUT", "4"),
    };
    let out = darshan_test_support::output(cmd.arg(&exe).arg(d.join("data")).args(args));
    assert!(!out.status.success(), "the job was to be killed");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ready"));
    assert!(common::files(&d.join("logs")).is_empty());
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 4, "{mm:?}");
    mm
}

/// mpi_crash's known I/O in a merged log with shared records reduced.
fn check_mpi_crash(merged: &Path, data: &Path) {
    let (log, recs) = records(merged);
    assert_eq!(log.job.nprocs, 4);
    let s = one(&recs, MPIIO, &data.join("shared.dat"));
    assert_eq!(
        (s.rank, s.counters[mx::COLL_OPENS], s.counters[mx::COLL_WRITES], s.counters[mx::BYTES_WRITTEN]),
        (-1, 4, 4, 4000)
    );
    let p = one(&recs, POSIX, &data.join("shared.dat"));
    assert_eq!((p.rank, p.counters[px::BYTES_WRITTEN]), (-1, 4000));
    for r in 0..4i64 {
        let o = one(&recs, POSIX, &data.join(format!("own_{r}.dat")));
        assert_eq!((o.rank, o.counters[px::WRITES], o.counters[px::BYTES_WRITTEN]), (r, r + 1, 10 * (r + 1)));
    }
}

on_both_mpis!(
    a_killed_mpi_job_whose_ranks_only_printed_lost_them,
    a_four_rank_job_killed_by_mpirun_merges_into_one_log,
    a_killed_mpi_job_that_recorded_from_its_constructor_merges_too,
    ranks_that_exit_without_mpi_finalize_say_once_how_to_make_the_log,
    a_rank_that_exits_1_before_mpi_finalize_says_where_its_records_are
);

/// mpi_crash.c on 4 ranks ending as `how` says ("exit": every rank
/// without MPI_Finalize; "fail": rank 1 with exit(1)): its scratch
/// directory and what the job printed on standard error.
fn mpi_crash_ending(mpi: Mpi, tag: &str, how: &str) -> (std::path::PathBuf, String) {
    let d = scratch_crash(&format!("mpi-{tag}-{}", mpi.tag()));
    let exe = cc("mpi_crash", &d, mpi.cc(), &[]);
    let vars = vec![
        ("LD_PRELOAD", common::lib().display().to_string()),
        ("DARSHAN_LOGPATH", d.join("logs").display().to_string()),
        ("DARSHAN_MMAP_LOGPATH", d.join("mmap").display().to_string()),
    ];
    let out = darshan_test_support::output(mpi.launcher(&vars).arg(&exe).arg(d.join("data")).arg(how));
    (d, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Rank 1 calls exit(1) before MPI_Finalize, the common failure; the
/// launcher kills the others before their exit handlers run, so rank 0
/// never says anything. The failing rank says where the records are.
fn a_rank_that_exits_1_before_mpi_finalize_says_where_its_records_are(mpi: Mpi) {
    let (d, err) = mpi_crash_ending(mpi, "exit1", "fail");
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("darshan:")).collect();
    assert_eq!(ours.len(), 1, "one line, from the failing rank: {err}");
    assert!(ours[0].contains("rank 1) exited with status 1 without MPI_Finalize"), "{}", ours[0]);
    let mm = common::files(&d.join("mmap"));
    assert!(ours[0].contains(&format!("--dir {}", d.join("mmap").display())), "{}", ours[0]);
    assert!(!mm.is_empty());
}

/// Every rank calls exit(0) without MPI_Finalize: no log can be written
/// (that takes every rank) and nothing said so. Now one line (rank 0,
/// the first rank of the only node) names the crash-safe files and the
/// command, and following it gives the job's log.
fn ranks_that_exit_without_mpi_finalize_say_once_how_to_make_the_log(mpi: Mpi) {
    let (d, err) = mpi_crash_ending(mpi, "nofinalize", "exit");
    let ours: Vec<&str> = err.lines().filter(|l| l.starts_with("darshan:")).collect();
    assert_eq!(ours.len(), 1, "one line for the job: {err}");
    assert!(ours[0].contains("ended without MPI_Finalize"), "{}", ours[0]);
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 4, "{mm:?}");
    let advice = format!("--dir {} --jobid {}", d.join("mmap").display(), jobid_of(&mm[0]));
    assert!(ours[0].contains(&advice), "{}", ours[0]);
    let merged = d.join("logs/merged.darshan");
    merge(&[], &merged, &["--shared-redux", "--dir", d.join("mmap").to_str().unwrap(), "--jobid", &jobid_of(&mm[0])]);
    check_mpi_crash(&merged, &d.join("data"));
}

/// Every rank prints one line and does no file I/O, then the job is
/// killed. A rank's standard streams wait for another record to make its
/// crash-safe file, and these ranks made none: the job left no file at
/// all. Each rank now makes its file in MPI_Init (as C Darshan does, for
/// a call that takes far longer), so the merged log has the four ranks
/// and what each printed.
fn a_killed_mpi_job_whose_ranks_only_printed_lost_them(mpi: Mpi) {
    let d = scratch_crash(&format!("mpi-print-{}", mpi.tag()));
    let mm = killed_mpi_job_doing(mpi, &d, &[], &["print"]);
    let merged = d.join("logs/merged.darshan");
    merge(&mm, &merged, &[]);
    let (log, recs) = records(&merged);
    assert_eq!(log.job.nprocs, 4);
    let mut printed: Vec<(i64, i64)> = recs
        .iter()
        .filter(|(m, n, _)| *m == STDIO && n == "<STDOUT>")
        .map(|(_, _, r)| (r.rank, r.counters[sx::WRITES]))
        .collect();
    printed.sort();
    // "rank <r>" on each; rank 0 also "ready".
    assert_eq!(printed, [(0, 2), (1, 1), (2, 1), (3, 1)]);
}

/// darshan-merge held every input open until the log was written: a
/// killed job of more ranks than the descriptors a process may hold
/// (RLIMIT_NOFILE, 1,024 by default) could not be merged ("Too many open
/// files"). Here 4 ranks under a limit of 6 (3 taken by the standard
/// streams): the old tool failed to create its output; now each input is
/// opened for each pass and closed, and the job's log is whole.
#[test]
fn a_killed_jobs_crash_safe_files_were_all_held_open_to_merge() {
    let d = scratch_crash("mpi-fd-limit");
    let mm = killed_mpi_job(OpenMpi, &d, &[]);
    let merged = d.join("logs/merged.darshan");
    let o = darshan_test_support::output(
        Command::new("sh")
            .args(["-c", "ulimit -n 6 && exec \"$0\" \"$@\""])
            .arg(common::built("darshan-merge"))
            .args(["--shared-redux", "--output"])
            .arg(&merged)
            .args(&mm),
    );
    assert!(o.status.success(), "darshan-merge: {}", String::from_utf8_lossy(&o.stderr));
    check_mpi_crash(&merged, &d.join("data"));
}

fn a_four_rank_job_killed_by_mpirun_merges_into_one_log(mpi: Mpi) {
    let d = scratch_crash(&format!("mpi-{}", mpi.tag()));
    let data = d.join("data");
    let mm = killed_mpi_job(mpi, &d, &[]);
    let merged = d.join("logs/merged.darshan");
    merge(&[], &merged, &["--shared-redux", "--dir", d.join("mmap").to_str().unwrap(), "--jobid", &jobid_of(&mm[0])]);
    check_mpi_crash(&merged, &data);
    // Without --shared-redux every rank keeps its record.
    let each = d.join("logs/each.darshan");
    merge(&mm, &each, &[]);
    let (_, recs) = records(&each);
    let n = recs.iter().filter(|(m, n, _)| *m == MPIIO && n == data.join("shared.dat").to_str().unwrap()).count();
    assert_eq!(n, 4);
}

fn a_killed_mpi_job_that_recorded_from_its_constructor_merges_too(mpi: Mpi) {
    // DARSHAN_ENABLE_NONMPI: each rank's file was made before MPI_Init
    // knew its rank; MPI_Init re-ranks the records and names the job.
    let d = scratch_crash(&format!("mpi-nonmpi-{}", mpi.tag()));
    let mm = killed_mpi_job(mpi, &d, &[("DARSHAN_ENABLE_NONMPI", "1")]);
    let merged = d.join("logs/merged.darshan");
    merge(&mm, &merged, &["--shared-redux"]);
    check_mpi_crash(&merged, &d.join("data"));
}

fn jobid_of(p: &Path) -> String {
    let n = p.file_name().unwrap().to_str().unwrap();
    let after = &n[n.find("_id").unwrap() + 3..];
    after[..after.find('_').unwrap()].to_string()
}

/// The crash-safe files of two runs (two jobs, each rank 0) were refused
/// ("not from the same job"), where darshan-util's merge takes any logs,
/// and Darshan's epilog merges every crash-safe file of a batch job on
/// the node (job steps, processes without MPI): now a note, and one log
/// with both runs' known I/O (crash_io: 7,000 bytes written to a<k>.dat,
/// 3 lines to b<k>.txt), the first run's job data.
fn two_jobs_merged_as_darshan_util_merges_them(o: &std::process::Output, merged: &Path, d: &Path) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("not from the same job") && err.contains("note"), "{err}");
    let (log, recs) = records(merged);
    assert_eq!(log.job.nprocs, 1);
    for k in 0..2 {
        let a = d.join(format!("data/a{k}.dat")).display().to_string();
        let b = d.join(format!("data/b{k}.txt")).display().to_string();
        let posix = recs.iter().find(|(m, n, _)| *m == POSIX && *n == a).unwrap_or_else(|| panic!("{a}"));
        assert_eq!(posix.2.counters[px::BYTES_WRITTEN], 7000, "{a}");
        let stdio = recs.iter().find(|(m, n, _)| *m == STDIO && *n == b).unwrap_or_else(|| panic!("{b}"));
        assert_eq!(stdio.2.counters[sx::WRITES], 3, "{b}");
    }
}

#[test]
fn darshan_merge_refuses_what_it_cannot_merge_and_merges_what_darshan_util_merges() {
    let d = scratch_crash("bad");
    let junk = d.join("data/junk.bin");
    std::fs::write(&junk, b"not a log at all").unwrap();
    let o = darshan_test_support::output(
        Command::new(common::built("darshan-merge")).arg("--output").arg(d.join("logs/x.darshan")).arg(&junk),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("not a readable Darshan log"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // Two different jobs (two separate runs of crash_io).
    let exe = cc("crash_io", &d, "cc", &[]);
    for k in 0..2 {
        let (mut child, _) =
            start_ready(&exe, &[&d.join(format!("data/a{k}.dat")), &d.join(format!("data/b{k}.txt"))], &d);
        child.kill().unwrap();
        child.wait().unwrap();
    }
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 2);
    let y = d.join("logs/y.darshan");
    let o =
        darshan_test_support::output(Command::new(common::built("darshan-merge")).arg("--output").arg(&y).args(&mm));
    two_jobs_merged_as_darshan_util_merges_them(&o, &y, &d);
    // A truncated file.
    let t = d.join("data/trunc.bin");
    std::fs::write(&t, &std::fs::read(&mm[0]).unwrap()[..3000]).unwrap();
    let o = darshan_test_support::output(
        Command::new(common::built("darshan-merge")).arg("--output").arg(d.join("logs/z.darshan")).arg(&t),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("truncated"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_forked_child_keeps_its_own_crash_safe_file() {
    let d = scratch_crash("fork");
    let exe = cc("crash_fork", &d, "cc", &[]);
    let data = d.join("data");
    let (mut child, _) = start_ready(&exe, &[&data], &d);
    // Kill the parent and its child (both run this program).
    let _ = Command::new("pkill").arg("-9").arg("-f").arg(exe.to_str().unwrap()).status();
    child.wait().unwrap();
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 2, "{mm:?}");
    let mut seen = Vec::new();
    for f in &mm {
        let (_, recs) = records(f);
        let has = |n: &str| recs.iter().any(|(m, name, _)| *m == POSIX && name == data.join(n).to_str().unwrap());
        if has("c.dat") {
            // The child's file: its own I/O only, the parent's records gone.
            assert!(!has("p.dat"), "the child's file holds the parent's records");
            assert_eq!(one(&recs, POSIX, &data.join("c.dat")).counters[px::WRITES], 5);
            seen.push("child");
        } else {
            assert_eq!(one(&recs, POSIX, &data.join("p.dat")).counters[px::WRITES], 3);
            seen.push("parent");
        }
    }
    seen.sort();
    assert_eq!(seen, ["child", "parent"]);
}

/// darshan-util 3.5.0 gave up a killed process's crash-safe file when DXT
/// traced it: the file keeps DXT's traces in a layout of ours under a
/// version number of its own, and the header named that region, so
/// darshan-merge failed on the whole file ("unable to read DXT_POSIX module
/// record") and PyDarshan said "Invalid DXT POSIX module version number".
/// The extension map names the region now, as Darshan's own crash-safe
/// files have no traces at all; ours reads them. PyDarshan is the oracle.
#[test]
fn darshan_util_gave_up_a_killed_processs_file_traced_by_dxt() {
    let d = scratch_crash("dxt-darshan-util");
    let exe = cc("crash_io", &d, "cc", &[]);
    let data = d.join("data");
    let mut c = instrumented(&exe, &[&data.join("a.dat"), &data.join("b.txt")], &d);
    let (mut child, _) = common::start_ready(c.env("DXT_ENABLE_IO_TRACE", "1"));
    child.kill().unwrap();
    child.wait().unwrap();
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 1, "{mm:?}");
    let raw = std::fs::read(&mm[0]).unwrap();
    let as_c_reads = darshan_log::header::Header::parse(&raw[..darshan_log::header::HEADER_SIZE], raw.len() as u64)
        .expect("a header");
    assert_eq!(as_c_reads.mod_map[DXT_POSIX].len, 0, "the header names DXT_POSIX's region");
    let (_, recs) = records(&mm[0]);
    match &one(&recs, DXT_POSIX, &data.join("a.dat")).extra {
        darshan_log::Extra::Dxt { writes, reads, .. } => assert_eq!((writes.len(), reads.len()), (7, 1)),
        other => panic!("not a DXT record: {other:?}"),
    }
    let python = common::root().join(".venv/bin/python");
    let script = "import darshan, sys\n\
                  r = darshan.DarshanReport(sys.argv[1], read_all=True)\n\
                  print(' '.join(sorted(r.modules)))\n\
                  print(int(r.records['POSIX'].to_df()['counters']['POSIX_WRITES'].sum()))\n";
    let o = darshan_test_support::output(Command::new(python).arg("-c").arg(script).arg(&mm[0]));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success() && !err.contains("Error"), "PyDarshan: {err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().collect::<Vec<_>>(), ["HEATMAP POSIX STDIO", "7"], "PyDarshan's modules and writes");
}

/// A killed process whose command line ran to about 2,400 characters left
/// a crash-safe file without its mount table: the job area there ends in
/// the runtime's own words, and the string made for the log (the command
/// line cut to leave the mounts room) was cut again at the area's end,
/// through the mounts or, as here, the command line before them. A cut
/// entry is a mount point that claims the files under a prefix of a path,
/// or a line readers refuse the file for. Now the mounts keep their whole
/// entries and the command line gives way; the oracle for the mount points
/// is the kernel's table.
#[test]
fn a_killed_process_with_a_long_command_line_left_its_file_without_mounts() {
    let d = scratch_crash("longcmd");
    let exe = cc("crash_io", &d, "cc", &[]);
    let data = d.join("data");
    let long = PathBuf::from("a".repeat(3500));
    let (mut child, line) = start_ready(&exe, &[&data.join("a.dat"), &data.join("b.txt"), &long], &d);
    assert_eq!(line, "ready\n");
    child.kill().unwrap();
    child.wait().unwrap();
    let mm = common::files(&d.join("mmap"));
    assert_eq!(mm.len(), 1, "{mm:?}");
    let (log, recs) = records(&mm[0]);
    check_crash_io(&recs, &data);
    let exe_line = String::from_utf8_lossy(log.job.exe()).into_owned();
    assert!(exe_line.starts_with(exe.to_str().unwrap()), "exe: {exe_line:.60}");
    assert!(exe_line.ends_with("<TRUNCATED>"), "exe ends: {}", &exe_line[exe_line.len().saturating_sub(20)..]);
    let kernel: Vec<String> = std::fs::read_to_string("/proc/self/mounts")
        .unwrap()
        .lines()
        .filter_map(|l| l.split(' ').nth(1).map(|p| p.replace("\\040", " ")))
        .collect();
    let mounts = log.job.mounts().expect("a mount table readers take");
    assert!(mounts.iter().any(|m| m.path == b"/"), "the mount table kept: {} entries", mounts.len());
    for m in &mounts {
        let p = String::from_utf8_lossy(&m.path);
        assert!(kernel.iter().any(|k| *k == p), "{p} is no mount point");
    }
}

/// A process that has touched only its standard streams makes no
/// crash-safe file (a Python interpreter's start, `echo`: 0.2-0.5 ms of
/// each such process); its first other record makes it, with the streams'
/// records in it. std_first (tests/programs) waits after phase 1 while
/// the test looks; then its threads keep writing to a standard stream of
/// one module while the main thread's file makes the crash-safe file
/// through the other module: the file's maker must keep them out while it
/// copies the records and maps the file, or their counts come out short.
fn standard_streams_wait_for_the_crash_safe_file(mode: &str) {
    const N: i64 = 20_000;
    let (file, recs) = std_first_killed(mode, N, &[]);
    let stream = |m, name: &str| one(&recs, m, Path::new(name)).counters.clone();
    let posix_out = stream(POSIX, "<STDOUT>");
    // 3 + 1 writes before the wait; "ready" is counted after it returns,
    // so the kill may come first.
    let out_counts = (posix_out[px::WRITES], posix_out[px::BYTES_WRITTEN]);
    assert!(matches!(out_counts, (4, 9) | (5, 15)), "POSIX <STDOUT> {out_counts:?}");
    let (racing, quiet) = if mode == "posix" { (STDIO, POSIX) } else { (POSIX, STDIO) };
    let (w, b) = if racing == STDIO { (sx::WRITES, sx::BYTES_WRITTEN) } else { (px::WRITES, px::BYTES_WRITTEN) };
    let before = if racing == STDIO { 2 } else { 0 };
    let err = stream(racing, "<STDERR>");
    assert_eq!(
        (err[w], err[b]),
        (before + STD_FIRST_THREADS * N, 2 * before + STD_FIRST_THREADS * N),
        "the threads' <STDERR> in module {racing}"
    );
    let f = one(&recs, quiet, &file).counters.clone();
    let (opens, bytes) = if quiet == POSIX { (px::OPENS, px::BYTES_WRITTEN) } else { (sx::OPENS, sx::BYTES_WRITTEN) };
    assert_eq!((f[opens], f[bytes]), (1, 10), "the file");
}

const STD_FIRST_THREADS: i64 = 3;

/// std_first MODE under the library with `env`, its threads making `n`
/// calls each: checked to make no crash-safe file while it waits after
/// phase 1, killed once ready; its file's name, and the records of its
/// one crash-safe file.
fn std_first_killed(mode: &str, n: i64, env: &[(&str, &str)]) -> (PathBuf, Vec<(usize, String, Record)>) {
    StdFirst::quiet(mode, mode, n, env).go().killed_when_ready()
}

/// A std_first process past phase 1 (checked: no crash-safe file yet).
struct StdFirst {
    child: std::process::Child,
    out: BufReader<std::process::ChildStdout>,
    dir: PathBuf,
    file: PathBuf,
}

impl StdFirst {
    /// std_first MODE in scratch directory `tag`, as [`std_first_killed`].
    fn quiet(tag: &str, mode: &str, n: i64, env: &[(&str, &str)]) -> StdFirst {
        let dir = scratch_crash(&format!("std-first-{tag}"));
        let exe = cc("std_first", &dir, "cc", &["-pthread"]);
        let file = dir.join("data/f.dat");
        let (threads, n) = (STD_FIRST_THREADS.to_string(), n.to_string());
        let args = [Path::new(mode), &file, Path::new(&threads), Path::new(&n)];
        let mut child = instrumented(&exe, &args, &dir)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn_watched();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, "qqqquiet\n");
        assert!(common::files(&dir.join("mmap")).is_empty(), "a crash-safe file before any record but the streams'");
        StdFirst { child, out, dir, file }
    }

    /// Once phase 2 is over, killed: the file's name and the records of
    /// the one crash-safe file.
    fn killed_when_ready(self) -> (PathBuf, Vec<(usize, String, Record)>) {
        let file = self.file.clone();
        (file, records(&self.crash_safe_file_when_ready()).1)
    }

    /// Once phase 2 is over, killed: its one crash-safe file.
    fn crash_safe_file_when_ready(self) -> PathBuf {
        let StdFirst { mut child, mut out, dir, .. } = self;
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert_eq!(line, "ready\n");
        child.kill().unwrap();
        child.wait().unwrap();
        let mm = common::files(&dir.join("mmap"));
        assert_eq!(mm.len(), 1, "{}: one crash-safe file: {mm:?}", dir.display());
        mm[0].clone()
    }

    /// Phase 2 started.
    fn go(mut self) -> StdFirst {
        use std::io::Write;
        self.child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        self
    }
}

#[test]
fn standard_streams_wait_for_the_crash_safe_file_made_by_a_posix_record() {
    standard_streams_wait_for_the_crash_safe_file("posix");
}

#[test]
fn standard_streams_wait_for_the_crash_safe_file_made_by_a_stdio_record() {
    standard_streams_wait_for_the_crash_safe_file("stdio");
}

/// DXT traces of the standard streams wait with their records: the
/// threads' 3 x 5,000 writes to fd 2 each a segment of POSIX <STDERR>'s
/// trace while a STDIO record makes the crash-safe file, and <STDOUT>'s
/// trace as long as its record counts. Four such processes at once, five
/// times (ranks sharing a node's 2 cores): the file's maker once only
/// tried the locks of the streams' writers, from inside the new record's
/// call, and when one stayed taken (its holder preempted, or waiting for
/// the file's own lock to grow its trace) the file was never made: a
/// killed process left nothing (1 to 5 of 24 processes here, by load;
/// once in CI).
#[test]
fn a_crash_safe_file_whose_maker_found_a_streams_writer_inside_was_never_made() {
    const N: i64 = 5_000;
    const ROUNDS: usize = 5;
    let env = [("DXT_ENABLE_IO_TRACE", "1")];
    for round in 0..ROUNDS {
        let quiet: Vec<StdFirst> =
            (0..4).map(|i| StdFirst::quiet(&format!("dxt-{round}-{i}"), "stdio", N, &env)).collect();
        let going: Vec<StdFirst> = quiet.into_iter().map(StdFirst::go).collect();
        for p in going {
            check_std_dxt(&p.killed_when_ready().1, N);
        }
    }
}

/// A crash-safe file's DXT region was read whole and every record
/// rebuilt at once, the region and all its segments held together: 2.3
/// times its bytes (238 MB for std_first's trace region repeated 193
/// times, as the mutation harness made it), past every reading tool's
/// bound (16 MiB and a byte per byte for darshan-dxt-parser and
/// darshan-convert). Here the region of 3 x 5,000 segments, 60 times:
/// each tool within that bound, and every copy's segments converted.
#[test]
fn a_crash_safe_files_long_dxt_trace_took_twice_its_bytes_to_read() {
    const N: i64 = 5_000;
    const COPIES: u64 = 60;
    let env = [("DXT_ENABLE_IO_TRACE", "1")];
    let src = StdFirst::quiet("dxt-long", "stdio", N, &env).go().crash_safe_file_when_ready();
    let long = src.with_file_name("long.darshan");
    let unpacked = repeat_region(&src, DXT_POSIX, COPIES, &long);
    let bound_kib = 16 * 1024 + unpacked / 1024;
    let converted = long.with_file_name("converted.darshan");
    for args in [
        vec!["--show-incomplete".to_string(), long.display().to_string()],
        vec![long.display().to_string(), converted.display().to_string()],
    ] {
        let tool = if args.len() == 2 && args[0] == long.display().to_string() {
            "darshan-convert"
        } else {
            "darshan-dxt-parser"
        };
        let o = darshan_test_support::output_within(
            darshan_test_support::under_gnu_time(&common::built(tool), true).args(&args),
            std::time::Duration::from_secs(120),
        );
        assert!(o.status.success(), "{tool}: {}", String::from_utf8_lossy(&o.stderr));
        let peak_kib = darshan_test_support::peak_kib(&o);
        assert!(peak_kib < bound_kib, "{tool}: peak {peak_kib} KiB, bound {bound_kib} KiB ({unpacked} bytes)");
    }
    let (_, recs) = records(&converted);
    let segments: usize = recs
        .iter()
        .filter(|(m, ..)| *m == DXT_POSIX)
        .map(|(_, _, r)| match &r.extra {
            darshan_log::Extra::Dxt { writes, reads, .. } => writes.len() + reads.len(),
            _ => 0,
        })
        .sum();
    let counted = one(&recs, POSIX, Path::new("<STDOUT>")).counters[px::WRITES];
    assert_eq!(segments as i64, COPIES as i64 * (STD_FIRST_THREADS * N + counted), "segments of every copy");
    // Not logs the runtime wrote (scripts/test.sh has PyDarshan read
    // those): made here, gone here.
    for f in [&long, &converted] {
        std::fs::remove_file(f).unwrap();
    }
}

/// darshan-summary and darshan-run on a crash-safe file read as it is (a
/// killed process's: no end written) said its run time was minus its
/// start ("-1796051737.818 s", the end "1970-01-01"): it is unknown, and
/// they say so. (scripts/test.sh checks this file's page in Chromium.)
#[test]
fn a_crash_safe_files_run_time_was_minus_its_start() {
    let src = StdFirst::quiet("run-time", "posix", 10, &[]).go().crash_safe_file_when_ready();
    let tool = |name: &str, args: &[&str]| {
        let o = darshan_test_support::output(Command::new(common::built(name)).args(args).arg(&src));
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        // darshan-run says its summary on stderr (stdout is the program's).
        String::from_utf8_lossy(&[o.stdout, o.stderr].concat()).into_owned()
    };
    let json: serde_json::Value = serde_json::from_str(&tool("darshan-summary", &["--json", "-o", "-"])).unwrap();
    let job = &json["job"];
    assert_eq!(
        (&job["ended"], &job["run_time"], &job["end"]),
        (&serde_json::json!(false), &serde_json::json!(0.0), &serde_json::json!("")),
        "{job}"
    );
    let text = tool("darshan-summary", &["--text", "-o", "-"]);
    assert!(text.contains("run time    unknown: the process did not finish"), "{text}");
    let run = tool("darshan-run", &["--summary"]);
    assert!(run.contains("run time unknown (the process did not finish"), "{run}");
}

/// The crash-safe file `src` with module `m`'s region repeated `copies`
/// times at its end (the file's map says so: the extension map's entry,
/// log-format §10, or the header's, the module's offset and length at
/// 48 + 16 x id, §3), written to `out`: the bytes the regions now hold.
fn repeat_region(src: &Path, m: usize, copies: u64, out: &Path) -> u64 {
    use darshan_log::crash_safe::{EXT_MAP_OFF, LIVE_OFF};
    use darshan_log::ext_map::ExtMap;
    let header = LogFile::open(src).unwrap().header;
    let (map, version) = (header.mod_map[m], header.mod_ver[m]);
    let mut bytes = std::fs::read(src).unwrap();
    let region = bytes[map.off as usize..(map.off + map.len) as usize].to_vec();
    let end = bytes.len() as u64;
    // DXT's traces are named by the file's extension map, others by the header.
    let mut ext = ExtMap(&mut bytes[EXT_MAP_OFF..LIVE_OFF]);
    if ext.len(m).is_some() {
        assert!(ext.register(m, end, version) && ext.set_len(m, map.len * copies));
    } else {
        bytes[48 + 16 * m..56 + 16 * m].copy_from_slice(&end.to_le_bytes());
        bytes[56 + 16 * m..64 + 16 * m].copy_from_slice(&(map.len * copies).to_le_bytes());
    }
    for _ in 0..copies {
        bytes.extend_from_slice(&region);
    }
    std::fs::write(out, &bytes).unwrap();
    let h = LogFile::open(out).unwrap().header;
    h.mod_map.iter().map(|r| r.len).sum::<u64>() + h.name_map.len
}

/// `recs`' std_first DXT traces: one segment per counted write.
fn check_std_dxt(recs: &[(usize, String, Record)], n: i64) {
    let writes = |name: &str| match &one(recs, DXT_POSIX, Path::new(name)).extra {
        darshan_log::Extra::Dxt { writes, .. } => writes.len() as i64,
        other => panic!("{name}: not a DXT record: {other:?}"),
    };
    assert_eq!(writes("<STDERR>"), STD_FIRST_THREADS * n, "DXT_POSIX <STDERR> segments");
    let counted = one(recs, POSIX, Path::new("<STDOUT>")).counters[px::WRITES];
    assert!(writes("<STDOUT>") == counted && (4..=5).contains(&counted), "<STDOUT>: {counted} writes");
}

/// A Python interpreter that only starts: its three standard streams'
/// POSIX records (fstat and fileno at start-up) are in its log, and it
/// never made a crash-safe file (0.2-0.5 ms of every Python process here,
/// the most of what the runtime added to it), neither while it ran nor
/// after. The system's interpreter, isolated (`-I`): its own files are
/// under /usr, which Darshan does not record (a pyenv-built one reads its
/// library from the user's home: real records, which make the file).
#[test]
fn a_python_start_made_a_crash_safe_file() {
    let d = scratch_crash("python-start");
    let python = Path::new("/usr/bin/python3");
    assert!(python.exists(), "the system's python3 (scripts/setup.sh installs python3-venv)");
    let code = "import sys; print('up', flush=True); sys.stdin.readline()";
    let mut child = instrumented(python, &[Path::new("-I"), Path::new("-c"), Path::new(code)], &d)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn_watched();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert_eq!(line, "up\n");
    assert!(common::files(&d.join("mmap")).is_empty(), "a crash-safe file while Python ran");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(common::files(&d.join("mmap")).is_empty(), "a crash-safe file left");
    let (_, recs) = records(&common::only_log(&d));
    for stream in ["<STDIN>", "<STDOUT>", "<STDERR>"] {
        assert!(one(&recs, POSIX, Path::new(stream)).counters[px::OPENS] >= 1, "{stream}");
    }
    let out = one(&recs, POSIX, Path::new("<STDOUT>")).counters.clone();
    assert_eq!((out[px::WRITES], out[px::BYTES_WRITTEN]), (1, 3), "print('up')");
}

/// A scratch directory of this file's tests (`crash-<tag>`).
fn scratch_crash(tag: &str) -> PathBuf {
    common::scratch(&format!("crash-{tag}"))
}

/// The crash-safe file's directory may be one other users write into (a
/// shared scratch directory named by DARSHAN_MMAP_LOGPATH, 0777 without
/// the sticky bit). The file's growth wrote its zeros through the name:
/// a FIFO put there held the program for ever (the open waited for a
/// reader), and a file put there got the zeros. The name is now opened
/// without waiting and written only if it still names the file the
/// process made (the growth falls back to populating the mapping).
#[test]
fn a_fifo_put_at_the_crash_safe_files_name_held_the_program_at_its_growth() {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    for planted in ["fifo", "file"] {
        let d = common::scratch(&format!("planted-{planted}"));
        let (data, mmap) = (d.join("data"), d.join("mmap"));
        std::fs::create_dir_all(&data).unwrap();
        std::fs::create_dir_all(&mmap).unwrap();
        std::fs::set_permissions(&mmap, std::fs::Permissions::from_mode(0o777)).unwrap();
        let exe = common::compile("fill_records", &d, &[]);
        let mut cmd = common::instrumented(&exe, &d);
        let (mut child, mut lines) = common::start_ready(cmd.arg(&data).arg("400"));
        let made = common::files(&mmap);
        assert_eq!(made.len(), 1, "{planted}: the crash-safe file: {made:?}");
        // The process's file moved aside (still mapped), another thing
        // put at its name; a second name keeps the planted file to look at.
        std::fs::rename(&made[0], d.join("moved")).unwrap();
        let theirs = b"another user's file\n";
        if planted == "fifo" {
            let c = std::ffi::CString::new(made[0].to_str().unwrap()).unwrap();
            // SAFETY: a NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o666) }, 0);
        } else {
            std::fs::write(&made[0], theirs).unwrap();
            std::fs::hard_link(&made[0], d.join("theirs")).unwrap();
        }
        writeln!(child.stdin.take().unwrap(), "go").unwrap();
        let status = common::wait_within(&mut child, common::LIMIT);
        assert!(status.success(), "{planted}: {status:?}");
        assert_eq!(lines.next().unwrap().unwrap(), "done 400", "{planted}");
        assert_eq!(common::files_and_bytes(&common::only_log(&d), &data), (401, 401), "{planted}: the log");
        if planted == "file" {
            assert_eq!(std::fs::read(d.join("theirs")).unwrap(), theirs, "the planted file was written");
        }
    }
}

/// A process killed while its crash-safe file was being made (exit_race.c's
/// children, killed at random) left a file whose header, written first,
/// claimed names and records that were still zeros: darshan-merge skipped
/// it as "bad name record", and every reader refused it. strace kills
/// `cp` at each of the pwrite64 calls that make the file in turn, until
/// one run ends unkilled, and then at its first write (the file made):
/// each file left has no header yet (nothing in it) or reads whole, every
/// record with its name.
#[test]
fn a_process_killed_while_its_crash_safe_file_was_made_left_one_claiming_names_it_lacked() {
    let d = scratch_crash("killed-while-made");
    let mut without_header = 0;
    for k in 1..=40 {
        let (o, left) = cp_killed_at(&d.join(k.to_string()), "pwrite64", k);
        without_header += left.iter().filter(|f| !has_header(f)).count();
        for f in left.iter().filter(|f| has_header(f)) {
            let (_, recs) = records(f);
            assert!(recs.iter().all(|(_, name, _)| name != "?"), "kill at pwrite64 {k}: a record without its name");
        }
        if o.status.success() {
            assert!(k > 2, "strace killed no pwrite64: {}", String::from_utf8_lossy(&o.stderr));
            assert!(left.is_empty(), "an unkilled run leaves no crash-safe file");
            break;
        }
    }
    assert!(without_header > 0, "no kill came while the file was made");
    let (_, left) = cp_killed_at(&d.join("made"), "write", 1);
    assert_eq!(left.len(), 1, "{left:?}");
    let (_, recs) = records(&left[0]);
    let x = d.join("made/x");
    assert!(recs.iter().any(|(m, name, _)| *m == POSIX && name == x.to_str().unwrap()), "no record of {}", x.display());
    // darshan-merge (the log reader's error) says what a file without a
    // header is, not "bad magic".
    let mmap_dirs: Vec<PathBuf> =
        common::files(&d).into_iter().map(|k| k.join("mmap")).filter(|m| m.is_dir()).collect();
    let o = darshan_test_support::output(
        Command::new(common::built("darshan-merge"))
            .arg("--job")
            .arg("--output")
            .arg(d.join("job.darshan"))
            .args(&mmap_dirs),
    );
    let said = String::from_utf8_lossy(&o.stderr);
    let skipped: Vec<&str> = said.lines().filter(|l| l.contains(" skipped: ")).collect();
    assert_eq!(skipped.len(), without_header, "{said}");
    assert!(skipped.iter().all(|l| l.contains("killed while it made it")), "{said}");
}

/// `cp /etc/hostname dir/x` under the library, killed by strace at its
/// `k`-th call of `syscall`: how it ended and the crash-safe files left.
fn cp_killed_at(dir: &Path, syscall: &str, k: usize) -> (std::process::Output, Vec<PathBuf>) {
    for sub in ["logs", "mmap"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let mut c = Command::new("strace");
    c.args(["-qq", "-o", "/dev/null", "-e", &format!("trace={syscall}")])
        .arg(format!("-einject={syscall}:signal=KILL:when={k}"))
        .arg(format!("-ELD_PRELOAD={}", common::lib().display()))
        .arg("-EDARSHAN_ENABLE_NONMPI=1")
        .arg(format!("-EDARSHAN_LOGPATH={}", dir.join("logs").display()))
        .arg(format!("-EDARSHAN_MMAP_LOGPATH={}", dir.join("mmap").display()))
        .args(["/bin/cp", "/etc/hostname"])
        .arg(dir.join("x"));
    let o = darshan_test_support::output_within(&mut c, std::time::Duration::from_secs(60));
    (o, common::files(&dir.join("mmap")))
}

/// Whether a crash-safe file's first page (its header) was written.
fn has_header(f: &Path) -> bool {
    std::fs::read(f).unwrap().iter().take(4096).any(|b| *b != 0)
}
