//! DXT through the whole runtime: a program with a known sequence of
//! POSIX reads and writes (tests/programs/dxt_pattern.c) and a 4-rank
//! MPI-IO job on both MPIs (dxt_mpi.c), read back with our reader; every
//! segment's offset and length exact, times in order; enabling as Darshan
//! 3.5.0 does; the triggers, name exclusion, Darshan's memory bound, the
//! thread-id layout, and a killed job's traces recovered by darshan-merge.
//! (tests/pydarshan/check_runtime_logs.py then checks that PyDarshan
//! reads the same segments from every log these leave.)

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::mpi::{self, Mpi, NP};
use common::*;
use darshan_log::counters::posix as px;
use darshan_log::modules::{DXT_MPIIO, DXT_POSIX, POSIX};
use darshan_log::{DxtSegment, Extra, LogFile, Record};
use darshan_test_support::SpawnWatched;

/// Run dxt_pattern (args after its directory) with `env` and, if given, a
/// config file; the log, the program's directory and what it printed.
fn run(tag: &str, args: &[&str], env: &[(&str, &str)], config: Option<&str>) -> (LogFile, PathBuf, String) {
    let dir = scratch(tag);
    let exe = compile("dxt_pattern", &dir, &[]);
    let mut cmd = instrumented(&exe, &dir);
    cmd.arg(dir.join("data")).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    if let Some(text) = config {
        let p = dir.join("darshan.conf");
        std::fs::write(&p, text).unwrap();
        cmd.env("DARSHAN_CONFIG_PATH", p);
    }
    let out = output(&mut cmd);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (LogFile::open(only_log(&dir)).unwrap(), dir, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// DXT records of `module` by file name (the last path component).
fn traces(log: &LogFile, module: usize) -> Vec<(String, Record)> {
    if !log.modules_present().contains(&module) {
        return Vec::new();
    }
    let names = log.names().unwrap();
    log.records(module)
        .unwrap()
        .into_iter()
        .map(|r| {
            let n = String::from_utf8_lossy(names.get(r.id).unwrap()).rsplit('/').next().unwrap().to_string();
            (n, r)
        })
        .collect()
}

fn segs(r: &Record) -> (&[DxtSegment], &[DxtSegment]) {
    match &r.extra {
        Extra::Dxt { writes, reads, .. } => (writes, reads),
        _ => panic!("not a DXT record"),
    }
}

fn ol(s: &[DxtSegment]) -> Vec<(i64, i64)> {
    s.iter().map(|s| (s.offset, s.length)).collect()
}

fn names(t: &[(String, Record)]) -> Vec<&str> {
    t.iter().map(|(n, _)| n.as_str()).collect()
}

/// The writev really lands at 300, but Darshan moves its idea of the file
/// offset to the end of every access, pread's too (POSIX_RECORD_READ sets
/// `offset = this_offset + ret`), so C's DXT says 15, and so do we.
const A_WRITES: [(i64, i64); 4] = [(0, 100), (100, 200), (1000, 50), (15, 16)];
const A_READS: [(i64, i64); 2] = [(0, 300), (5, 10)];

#[test]
fn every_posix_read_and_write_of_a_known_sequence_is_a_segment_with_its_offset_and_length() {
    let (log, _, _) = run("dxt-pattern", &[], &[("DARSHAN_MOD_ENABLE", "DXT_POSIX")], None);
    assert_eq!(log.header.mod_ver[DXT_POSIX], 1, "32-byte segments by default (what released readers take)");
    let t = traces(&log, DXT_POSIX);
    assert_eq!(names(&t), ["a.dat", "b.dat", "c.dat"], "one record per file, in the order first traced");
    let (w, r) = segs(&t[0].1);
    assert_eq!(ol(w), A_WRITES);
    assert_eq!(ol(r), A_READS);
    assert_eq!(ol(segs(&t[1].1).0), (0..20).map(|i| (i, 1)).collect::<Vec<_>>());
    assert_eq!(ol(segs(&t[2].1).0), (0..4).map(|i| (i << 20, 1 << 20)).collect::<Vec<_>>());
    // Times: within the run, start <= end, in the order the calls were made
    // (a's writes, its reads, then its last write; then b, then c).
    let run = (log.job.end_time_sec - log.job.start_time_sec + 1) as f64;
    let mut order: Vec<&DxtSegment> = w[..3].iter().chain(r.iter()).chain(&w[3..]).collect();
    order.extend(segs(&t[1].1).0);
    order.extend(segs(&t[2].1).0);
    for s in &order {
        assert!(0.0 <= s.start_time && s.start_time <= s.end_time && s.end_time <= run, "{s:?}");
        assert_eq!(s.pthread_id, None);
    }
    for p in order.windows(2) {
        assert!(p[0].start_time <= p[1].start_time, "{:?} then {:?}", p[0], p[1]);
    }
    for (_, r) in &t {
        assert_eq!(r.rank, 0);
        let Extra::Dxt { hostname, shared_record, .. } = &r.extra else { unreachable!() };
        assert_eq!(*shared_record, 0);
        assert!(hostname[0] != 0, "the hostname is kept");
    }
    // As many segments as the POSIX record counts reads and writes.
    let posix = log.records(POSIX).unwrap();
    let a = posix.iter().find(|p| p.id == t[0].1.id).unwrap();
    assert_eq!((a.counters[px::WRITES], a.counters[px::READS]), (4, 2));
}

#[test]
fn dxt_is_off_by_default_and_enabled_as_darshan_enables_it() {
    let (log, _, _) = run("dxt-off", &[], &[], None);
    assert!(traces(&log, DXT_POSIX).is_empty());
    assert!(!log.modules_present().contains(&DXT_POSIX));
    let (log, _, _) = run("dxt-old-var", &[], &[("DXT_ENABLE_IO_TRACE", "4")], None);
    assert_eq!(traces(&log, DXT_POSIX).len(), 3, "DXT_ENABLE_IO_TRACE (deprecated) still works");
    let (log, _, _) = run("dxt-conf", &[], &[], Some("MOD_ENABLE DXT_POSIX\n"));
    assert_eq!(traces(&log, DXT_POSIX).len(), 3, "MOD_ENABLE in the config file");
}

#[test]
fn the_triggers_keep_the_files_with_enough_small_or_unaligned_io_and_drop_the_others() {
    let on = ("DARSHAN_MOD_ENABLE", "DXT_POSIX");
    // Small (< 10 KiB) share: a 6/6, b 20/20, c 0/4.
    let (log, _, _) = run("dxt-small", &[], &[on, ("DARSHAN_DXT_SMALL_IO_TRIGGER", ".5")], None);
    assert_eq!(names(&traces(&log, DXT_POSIX)), ["a.dat", "b.dat"]);
    // Unaligned share: b 19/20 (all but offset 0), c 0/4; a 4/6.
    let (log, _, _) = run("dxt-unaligned", &[], &[on], Some("DXT_UNALIGNED_IO_TRIGGER 0.9\n"));
    assert_eq!(names(&traces(&log, DXT_POSIX)), ["b.dat"]);
    // Both: a file must pass both (c passes neither, a fails the second).
    let both = [on, ("DARSHAN_DXT_SMALL_IO_TRIGGER", "0.5"), ("DARSHAN_DXT_UNALIGNED_IO_TRIGGER", "0.9")];
    let (log, _, _) = run("dxt-both", &[], &both, None);
    assert_eq!(names(&traces(&log, DXT_POSIX)), ["b.dat"]);
    // The POSIX records are all still there.
    assert_eq!(log.records(POSIX).unwrap().iter().filter(|r| r.counters[px::WRITES] > 0).count(), 3);
}

#[test]
fn name_exclude_for_dxt_posix_leaves_a_file_counted_but_untraced() {
    let conf = "MOD_ENABLE DXT_POSIX\nNAME_EXCLUDE b\\.dat$ DXT_POSIX\n";
    let (log, _, _) = run("dxt-exclude", &[], &[], Some(conf));
    assert_eq!(names(&traces(&log, DXT_POSIX)), ["a.dat", "c.dat"]);
    assert_eq!(log.records(POSIX).unwrap().iter().filter(|r| r.counters[px::WRITES] > 0).count(), 3);
}

#[test]
fn a_trace_that_outgrows_its_memory_keeps_what_darshan_would_and_is_marked_partial() {
    // 8 KiB: a 104 + 2 x 2,048; b 104 + 2,048; c 104, then the 54
    // segments the 1,736 bytes left pay for (of its 4 + 100 writes).
    let conf = "MOD_ENABLE DXT_POSIX\nMAX_RECORDS 8 DXT_POSIX\n";
    let (log, _, _) = run("dxt-full", &["100"], &[], Some(conf));
    let t = traces(&log, DXT_POSIX);
    assert_eq!(names(&t), ["a.dat", "b.dat", "c.dat"]);
    assert_eq!(segs(&t[2].1).0.len(), 54);
    assert_eq!(
        ol(&segs(&t[2].1).0[..5]),
        [(0, 1 << 20), (1 << 20, 1 << 20), (2 << 20, 1 << 20), (3 << 20, 1 << 20), (4 << 20, 8)]
    );
    assert_ne!(log.header.partial_flag & (1 << DXT_POSIX), 0, "DXT_POSIX marked partial");
    assert_eq!(log.header.partial_flag & (1 << POSIX), 0, "POSIX is complete");
    let c = log.records(POSIX).unwrap().into_iter().find(|r| r.id == t[2].1.id).unwrap();
    assert_eq!(c.counters[px::WRITES], 104);
}

#[test]
fn thread_ids_on_request_are_written_as_dxt_posix_v2() {
    let (log, dir, printed) =
        run("dxt-tid", &[], &[("DARSHAN_MOD_ENABLE", "DXT_POSIX"), ("DARSHAN_DXT_THREAD_ID", "1")], None);
    let tid: u64 = printed.trim().strip_prefix("tid=").and_then(|t| t.parse().ok()).expect("the program's tid");
    assert_eq!(log.header.mod_ver[DXT_POSIX], 2);
    let t = traces(&log, DXT_POSIX);
    let tids: Vec<Option<u64>> =
        t.iter().flat_map(|(_, r)| segs(r).0.iter().chain(segs(r).1)).map(|s| s.pthread_id).collect();
    assert_eq!(tids.len(), 4 + 2 + 20 + 4);
    assert!(tids.iter().all(|t| *t == Some(tid)), "every segment has the program's pthread_self(), {tid}");
    assert_eq!(ol(segs(&t[0].1).0), A_WRITES);
    // darshan-dxt-parser prints every segment line as C's darshan-util
    // does for DXT_POSIX v2 (darshan-dxt-logutils.c at main):
    // printf("%8s%8" PRId64 "%7s%9d%16" PRId64 "%16" PRId64 "%12.4f%12.4f  ", ...)
    // then printf(" %4lu\n", pthread_id). Each line is rebuilt here from
    // that format and the log's segments (it once padded the id to 20).
    let out = output(Command::new(built("darshan-dxt-parser")).arg(only_log(&dir)));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with(" X_POSIX")).collect();
    assert_eq!(lines.len(), tids.len(), "{text}");
    let mut want = Vec::new();
    for (_, r) in &t {
        let (w, rd) = segs(r);
        for (op, list) in [("write", w), ("read", rd)] {
            for (i, s) in list.iter().enumerate() {
                want.push(format!(
                    "{:>8}{:>8}{:>7}{:>9}{:>16}{:>16}{:>12.4}{:>12.4}  {}",
                    "X_POSIX",
                    r.rank,
                    op,
                    i,
                    s.offset,
                    s.length,
                    s.start_time,
                    s.end_time,
                    format_args!(" {:>4}", s.pthread_id.unwrap())
                ));
            }
        }
    }
    assert_eq!(lines, want.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(lines[0].ends_with(&format!("   {tid}")), "three spaces before a long thread id: {}", lines[0]);
}

#[test]
fn a_killed_programs_traces_are_recovered_by_darshan_merge() {
    let dir = scratch("dxt-kill");
    let exe = compile("dxt_pattern", &dir, &[]);
    let mut cmd = instrumented(&exe, &dir);
    cmd.arg(dir.join("data")).args(["3", "kill"]).env("DARSHAN_MOD_ENABLE", "DXT_POSIX");
    let out = output(&mut cmd);
    assert!(!out.status.success(), "killed");
    let mmap = files(&dir.join("mmap"));
    assert_eq!(mmap.len(), 1, "the crash-safe file is left");
    let merged = dir.join("logs/merged.darshan");
    let st = status(Command::new(built("darshan-merge")).arg("--output").arg(&merged).args(&mmap));
    assert!(st.success());
    let log = LogFile::open(&merged).unwrap();
    let t = traces(&log, DXT_POSIX);
    assert_eq!(names(&t), ["a.dat", "b.dat", "c.dat"]);
    assert_eq!(ol(segs(&t[0].1).0), A_WRITES);
    assert_eq!(ol(segs(&t[0].1).1), A_READS);
    assert_eq!(segs(&t[2].1).0.len(), 7);
    let s = segs(&t[0].1).0[0];
    assert!(s.start_time >= 0.0 && s.start_time < 60.0, "times in seconds, not ticks: {s:?}");
}

fn mpi_traces(mpi: Mpi) {
    let dir = scratch(&format!("dxt-mpi-{}", mpi.tag()));
    let exe = mpi::mpicc(mpi, "dxt_mpi", &dir);
    let file = dir.join("data/shared.dat");
    let logs =
        mpi::mpirun(mpi, &exe, &[file.to_str().unwrap()], &dir, &[("DARSHAN_MOD_ENABLE", "DXT_POSIX,DXT_MPIIO")]);
    assert_eq!(logs.len(), 1);
    let log = LogFile::open(&logs[0]).unwrap();
    let t = traces(&log, DXT_MPIIO);
    let mut ranks: Vec<i64> = t.iter().map(|(_, r)| r.rank).collect();
    ranks.sort();
    assert_eq!(ranks, (0..NP).collect::<Vec<_>>(), "one record per rank, never reduced");
    for (name, r) in &t {
        assert_eq!(name, "shared.dat");
        let k = r.rank;
        let (w, rd) = segs(r);
        let lens = |s: &[DxtSegment]| s.iter().map(|s| s.length).collect::<Vec<_>>();
        assert_eq!(lens(w), [1024, 100, 10]);
        assert_eq!(lens(rd), [1024]);
        // Offsets: the MPICH family's byte offsets; -1 with Open MPI, as
        // Darshan writes there.
        let want = match mpi {
            Mpi::Mpich => vec![k * 1024, 4096 + k * 100, 8192 + k * 10, k * 1024],
            Mpi::OpenMpi => vec![-1; 4],
        };
        assert_eq!(w.iter().chain(rd).map(|s| s.offset).collect::<Vec<_>>(), want, "rank {k}");
    }
    // The MPI library's own POSIX accesses are traced too, with each
    // rank's own rank.
    let posix = traces(&log, DXT_POSIX);
    assert!(posix.iter().any(|(n, _)| n == "shared.dat"));
    assert!(posix.iter().all(|(_, r)| (0..NP).contains(&r.rank)));
}

on_both_mpis!(mpi_traces);

/// Regression: aio_return counted the access in POSIX but its own copy of
/// the counting skipped DXT, so a completed aio_write had no segment.
#[test]
fn an_aio_write_was_missing_from_its_files_trace() {
    let dir = scratch("dxt-aio");
    let exe = compile("api_mix", &dir, &["-lrt"]);
    let out = output(instrumented(&exe, &dir).arg(dir.join("data")).env("DARSHAN_MOD_ENABLE", "DXT_POSIX"));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let log = LogFile::open(only_log(&dir)).unwrap();
    let t = traces(&log, DXT_POSIX);
    let (_, b) = t.iter().find(|(n, _)| n == "b.dat").expect("b.dat traced");
    // writev 200 at 0, pwritev 50 at 1000, aio_write 64 at 4096; preadv 50 at 0.
    assert_eq!(ol(segs(b).0), [(0, 200), (1000, 50), (4096, 64)]);
    assert_eq!(ol(segs(b).1), [(0, 50)]);
}

/// dxt_pattern with `extra` 8-byte writes of c.dat, DXT_POSIX on or off
/// (a budget for every segment): the peak resident memory of its process
/// (KiB, from wait4: exit and the runtime's shutdown included) and its log.
fn peak_of_run(tag: &str, extra: usize, traced: bool) -> (i64, LogFile) {
    let dir = scratch(tag);
    let exe = compile("dxt_pattern", &dir, &[]);
    let conf = dir.join("darshan.conf");
    std::fs::write(&conf, format!("MAX_RECORDS {} DXT_POSIX\n", extra * 32 / 1024 + 64)).unwrap();
    let mut cmd = instrumented(&exe, &dir);
    cmd.arg(dir.join("data")).arg(extra.to_string()).env("DARSHAN_CONFIG_PATH", &conf);
    if traced {
        cmd.env("DARSHAN_MOD_ENABLE", "DXT_POSIX");
    }
    // Reaped by wait4 below, which gives its resource usage too.
    #[allow(clippy::zombie_processes)]
    let child = cmd.stdout(std::process::Stdio::null()).spawn_watched();
    // SAFETY: rusage is plain integers, for which all zeros is a value.
    let (mut st, mut ru) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    // SAFETY: our own child, reaped once; both pointers are to locals.
    let r = unsafe { libc::wait4(child.id() as i32, &mut st, 0, &mut ru) };
    assert!(r > 0 && libc::WIFEXITED(st) && libc::WEXITSTATUS(st) == 0, "dxt_pattern failed: {st}");
    (ru.ru_maxrss, LogFile::open(only_log(&dir)).unwrap())
}

/// KiB added at the peak of `dxt_pattern` with `extra` more segments
/// traced, over the same run untraced, and the trace's KiB (every segment
/// kept, checked).
fn trace_peak(tag: &str, extra: usize) -> (i64, i64) {
    let (untraced, _) = peak_of_run(&format!("{tag}-off"), extra, false);
    let (traced, log) = peak_of_run(&format!("{tag}-on"), extra, true);
    let t = traces(&log, DXT_POSIX);
    let segments: usize = t.iter().map(|(_, r)| segs(r).0.len() + segs(r).1.len()).sum();
    assert_eq!(segments, 4 + 2 + 20 + 4 + extra, "every segment kept");
    (traced - untraced, (segments * 32 / 1024) as i64)
}

/// The shutdown held a traced file's segments five times over (the
/// trace, 48-byte segments rebuilt from it, their bytes, their words,
/// and the run to compress): 137 MB of peak memory for a 27 MB trace.
/// Then the trace and one copy in the log's layout, and what compressing
/// it takes: under three times the segments' bytes over the same
/// program untraced.
#[test]
fn a_long_trace_was_held_five_times_over_at_shutdown() {
    let (added, trace_kib) = trace_peak("dxt-peak", 300_000);
    assert!(added < 3 * trace_kib, "{added} KiB added at peak for a trace of {trace_kib} KiB");
}

/// Then the shutdown still laid a long trace out whole in the log's
/// layout to compress it: the trace twice over, and the streams (27 MB
/// of trace added 66 MB at peak; C 3.5.0's shutdown 59 MB). Now each
/// part is laid out a megabyte at a time as it is compressed: the trace,
/// its compressed streams and the log they make, under twice the
/// segments' bytes in all (40 MB for the 27 MB; 27 MB for this test's
/// 18.3 MB, 45.5 MB before).
#[test]
fn a_long_trace_was_laid_out_whole_beside_itself_to_be_compressed() {
    let (added, trace_kib) = trace_peak("dxt-whole", 600_000);
    assert!(added < 2 * trace_kib, "{added} KiB added at peak for a trace of {trace_kib} KiB");
}
