//! The live view's reader on real running processes (docs/live.md): a
//! program writing from several threads is never seen half way through a
//! record update, and the per-interval deltas add up to the program's
//! final log (tests/programs/live_writer.c).

mod common;

use std::path::Path;

use common::*;
use darshan_live::{find_files, snapshot, Tracker};
use darshan_log::counters::posix as px;
use darshan_log::modules::{IO_URING, POSIX};
use darshan_test_support::SpawnWatched;

fn uid() -> u32 {
    darshan_live::find::my_uid()
}

/// The POSIX record of `name` in a snapshot.
fn record<'a>(s: &'a darshan_live::Snapshot, name: &Path) -> Option<&'a darshan_log::Record> {
    let n = name.to_str()?;
    s.modules.get(&POSIX)?.iter().find(|r| s.names.get(&r.id).map(String::as_str) == Some(n))
}

/// 4 threads update one record as fast as they can; every snapshot
/// taken meanwhile has BYTES_WRITTEN = 4096 x WRITES (a copy taken in the
/// middle of an update has the bytes of one more write than writes, or
/// the reverse), and the counts never go back.
#[test]
fn a_reader_never_sees_a_record_half_updated() {
    let d = scratch("live-torn");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/shared").to_path_buf();
    let (mut child, _) = start_ready(instrumented(&exe, &d).arg(&data).args(["4", "3"]));
    let (mut checked, mut last, mut stale) = (0, 0i64, 0);
    let mut bad = Vec::new();
    while child.try_wait().unwrap().is_none() {
        for f in find_files(&[d.join("mmap")], uid()) {
            let Ok(s) = snapshot::take(&f, None) else { continue };
            stale += s.stale.len();
            let Some(r) = record(&s, &data) else { continue };
            let (w, b) = (r.counters[px::WRITES], r.counters[px::BYTES_WRITTEN]);
            let bucket = r.counters[px::SIZE_WRITE_1K_10K];
            if b != 4096 * w || bucket != w || w < last {
                bad.push(format!("writes {w}, bytes {b}, 1K-10K {bucket}, previous writes {last}"));
            }
            last = w;
            checked += 1;
        }
    }
    assert!(child.wait().unwrap().success());
    assert!(bad.is_empty(), "{} torn copies of {checked}: {:?}", bad.len(), &bad[..bad.len().min(5)]);
    assert!(checked >= 20 && last > 1000, "{checked} copies checked, {last} writes seen (stale modules: {stale})");
}

/// A reader that follows a file from one snapshot to the next shares the
/// records of modules whose sequence word did not move, and copies the
/// others: while 2 threads write, every snapshot's record is whole and
/// newer than the last (a module taken as unmoved while it moved would
/// stay frozen); once the program is idle, nothing is copied, the records
/// are the previous snapshot's own, and they equal a fresh full copy.
#[test]
fn a_followed_file_is_copied_only_where_it_moved() {
    let d = scratch("live-reuse");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/shared").to_path_buf();
    let (mut child, mut lines) = start_ready(instrumented(&exe, &d).arg(&data).args(["2", "1.5", "20", "30"]));
    let file = || find_files(&[d.join("mmap")], uid()).pop().expect("its crash-safe file");
    let mut prev: Option<darshan_live::Snapshot> = None;
    // HEATMAP has no word of its own: its bins move under POSIX's lock.
    let heat = |s: &darshan_live::Snapshot| -> i64 {
        let recs = s.modules.get(&darshan_log::modules::HEATMAP);
        recs.into_iter()
            .flat_map(|v| v.iter())
            .map(|r| match &r.extra {
                darshan_log::Extra::Heatmap { write_bins, .. } => write_bins.iter().sum::<i64>(),
                _ => 0,
            })
            .sum()
    };
    let (mut copies, mut grew, mut heat_grew, mut bad) = (0, 0, 0, Vec::new());
    let until = std::time::Instant::now() + std::time::Duration::from_millis(1300);
    while std::time::Instant::now() < until {
        let s = snapshot::take(&file(), prev.as_ref()).unwrap();
        if let (Some(r), Some(p)) = (record(&s, &data), prev.as_ref().and_then(|p| record(p, &data))) {
            let (w, b) = (r.counters[px::WRITES], r.counters[px::BYTES_WRITTEN]);
            if b != 4096 * w || w < p.counters[px::WRITES] {
                bad.push(format!("writes {w}, bytes {b}, before {}", p.counters[px::WRITES]));
            }
            grew += usize::from(w > p.counters[px::WRITES]);
            heat_grew += usize::from(heat(&s) > heat(prev.as_ref().unwrap()));
            copies += 1;
        }
        prev = Some(s);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(bad.is_empty(), "{bad:?}");
    assert!(copies >= 50 && grew * 10 >= copies * 9, "{grew} of {copies} snapshots saw new writes");
    assert!(heat_grew * 10 >= copies * 9, "{heat_grew} of {copies} snapshots saw the heatmap grow");
    assert_eq!(lines.next().and_then(Result::ok).as_deref(), Some("idle"));
    std::thread::sleep(std::time::Duration::from_millis(100));
    let before = snapshot::take(&file(), prev.as_ref()).unwrap();
    let idle = snapshot::take(&file(), Some(&before)).unwrap();
    let fresh = snapshot::take(&file(), None).unwrap();
    assert!(idle.copied.is_empty() && idle.same_as_before(), "copied while idle: {:?}", idle.copied);
    assert!(
        std::sync::Arc::ptr_eq(&idle.modules[&POSIX], &before.modules[&POSIX]),
        "the idle module's records are shared"
    );
    assert_eq!(idle.modules.keys().collect::<Vec<_>>(), fresh.modules.keys().collect::<Vec<_>>());
    for (m, recs) in &fresh.modules {
        assert_eq!(**recs, *idle.modules[m], "module {m}: the shared records are the file's");
    }
    assert!(!fresh.copied.is_empty());
    let _ = child.kill();
    let _ = child.wait();
}

/// A file named with terminal control bytes (a screen clear, a bell):
/// darshan-top's text shows the name made visible, never the raw bytes
/// that would act on the terminal of whoever watches.
#[test]
fn darshan_top_never_sends_a_file_names_control_bytes_to_the_terminal() {
    let d = scratch("live-top-names");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/evil\x1b[2J\x07name");
    let (mut child, _) = start_ready(instrumented(&exe, &d).arg(&data).args(["1", "3", "50"]));
    let o = output(
        std::process::Command::new(built("darshan-top"))
            .args(["--once", "--interval", "0.5", "--dir"])
            .arg(d.join("mmap")),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("evil") && text.contains("name"), "the busy file is listed: {text}");
    assert!(!o.stdout.iter().any(|&b| b == 0x1b || b == 0x07), "raw control bytes reached the terminal: {text:?}");
}

/// A program writing for 2 s: the deltas grow while it runs, the process
/// is reported ended once, and the deltas over all intervals add up to
/// its final log's bytes and writes.
#[test]
fn interval_deltas_add_up_to_the_final_log() {
    let d = scratch("live-deltas");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/shared").to_path_buf();
    let (mut child, _) = start_ready(instrumented(&exe, &d).arg(&data).args(["1", "2", "50"]));
    let mut t = Tracker::new(vec![d.join("logs")]);
    let (mut bytes, mut writes, mut growing, mut ended) = (0i64, 0i64, 0, Vec::new());
    let mut add = |iv: darshan_live::Interval| {
        for p in iv.processes {
            if let Some(x) = p.delta.get("POSIX") {
                bytes += x.bytes_written;
                writes += x.writes;
                growing += usize::from(x.bytes_written > 0 && !p.ended);
            }
            if p.ended {
                ended.push(p.final_from.clone().unwrap_or_default());
            }
        }
    };
    while child.try_wait().unwrap().is_none() {
        add(t.interval(&find_files(&[d.join("mmap")], uid())));
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(child.wait().unwrap().success());
    for _ in 0..2 {
        add(t.interval(&find_files(&[d.join("mmap")], uid())));
    }
    assert!(growing >= 3, "the deltas grew while it ran: {growing} intervals");
    assert_eq!(ended.len(), 1, "{ended:?}");
    assert!(ended[0].starts_with("final log "), "{ended:?}");
    let log = darshan_log::LogFile::open(only_log(&d)).unwrap();
    let recs = log.records(POSIX).unwrap();
    let names = log.names().unwrap();
    let r = recs.iter().find(|r| names.get(r.id) == Some(data.to_str().unwrap().as_bytes())).unwrap();
    let final_bytes: i64 = recs.iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum();
    assert_eq!((bytes, writes), (final_bytes, recs.iter().map(|r| r.counters[px::WRITES]).sum::<i64>()));
    assert_eq!(r.counters[px::BYTES_WRITTEN], 4096 * r.counters[px::WRITES]);
}

/// `darshan-top --once --json` on a known program (one Slurm task writing
/// 4 KiB blocks): its job and process are listed with their rank, the
/// totals are whole writes, and the write rate is the interval's delta.
#[test]
fn darshan_top_once_json_shows_the_running_job() {
    let d = scratch("live-top");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/shared").to_path_buf();
    let mut cmd = instrumented(&exe, &d);
    cmd.arg(&data)
        .args(["2", "3", "50"])
        .env("SLURM_JOB_ID", "31337")
        .env("SLURM_STEP_ID", "2")
        .env("SLURM_PROCID", "5")
        .env("SLURM_NTASKS", "8");
    let (mut child, _) = start_ready(&mut cmd);
    let o = output(
        std::process::Command::new(built("darshan-top"))
            .args(["--once", "--json", "--interval", "0.5", "--dir"])
            .arg(d.join("mmap")),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let job = &s["jobs"][0];
    assert_eq!(
        (job["job_key"].as_str(), job["jobid"].as_i64(), job["processes"].as_i64()),
        (Some("slurm-31337.2"), Some(31337), Some(1))
    );
    let p = &s["processes"][0];
    assert_eq!(p["rank"].as_i64(), Some(5));
    let total = &p["total"]["POSIX"];
    let (b, w) = (total["bytes_written"].as_i64().unwrap(), total["writes"].as_i64().unwrap());
    assert!(w > 0 && b == 4096 * w, "{total}");
    let rate = p["rates"]["write_bytes"].as_f64().unwrap();
    assert!(rate > 0.0 && rate * s["seconds"].as_f64().unwrap() <= b as f64 + 1.0, "{rate} {b}");
    assert!(child.wait().unwrap().success());
    assert!(s["jobs"].as_array().unwrap().len() == 1, "only this directory's files: {s}");
}

/// A process tracing a million writes with DXT (room for them given
/// with MAX_RECORDS: 32 MiB of trace), looked at by `darshan-top --once`:
/// every reading copied and decoded the DXT region, which the live view
/// never shows (it sums POSIX, STDIO, MPI-IO, POSIX_META and IO_URING),
/// about 90 MB here. Now only the summed modules' regions are read: within
/// 24 MiB, and the process's writes are the known pattern's.
#[test]
fn a_live_view_copied_dxt_traces_it_never_shows() {
    const EXTRA: i64 = 1_000_000;
    let d = scratch("live-dxt");
    let exe = compile("dxt_pattern", &d, &[]);
    let conf = d.join("darshan.conf");
    std::fs::write(&conf, "MAX_RECORDS 32768 DXT_POSIX\n").unwrap();
    let mut cmd = instrumented(&exe, &d);
    cmd.arg(d.join("data")).args([&EXTRA.to_string(), "hold"]);
    cmd.env("DXT_ENABLE_IO_TRACE", "1").env("DARSHAN_CONFIG_PATH", &conf);
    let (mut child, _) = start_ready(&mut cmd);
    let top = built("darshan-top");
    let o = output(
        darshan_test_support::under_gnu_time(&top, false)
            .args(["--once", "--json", "--interval", "0.2", "--dir"])
            .arg(d.join("mmap")),
    );
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // a.dat: write, write, pwrite, writev; b.dat: 20; c.dat: 4 + EXTRA.
    assert_eq!(s["processes"][0]["total"]["POSIX"]["writes"].as_i64(), Some(4 + 20 + 4 + EXTRA), "{s}");
    let peak = darshan_test_support::peak_kib(&o);
    assert!(peak < 24 * 1024, "darshan-top: peak {peak} KiB");
}

/// The terminal view, drawn in tmux and captured (the picture in
/// docs/live.md comes from here: target/live/darshan-top.txt).
#[test]
fn darshan_top_draws_in_a_terminal() {
    let d = scratch("live-tmux");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/shared").to_path_buf();
    let mut cmd = instrumented(&exe, &d);
    // Writing until its input closes: with a fixed 4 s, a loaded machine
    // (CI's two cores) showed it ended by the time the screen was taken.
    cmd.arg(&data)
        .args(["2", "0", "50"])
        .env("SLURM_JOB_ID", "4711")
        .env("SLURM_STEP_ID", "0")
        .env("SLURM_PROCID", "0")
        .env("SLURM_NTASKS", "1");
    let (mut child, _) = start_ready(&mut cmd);
    let session = format!("darshan-top-{}", std::process::id());
    let top = format!("{} --interval 0.5 --dir {}", built("darshan-top").display(), d.join("mmap").display());
    let tmux = |args: &[&str]| output(std::process::Command::new("tmux").args(args));
    let started = tmux(&["new-session", "-d", "-s", &session, "-x", "120", "-y", "30", &top]);
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    std::thread::sleep(std::time::Duration::from_millis(2000));
    let shot = tmux(&["capture-pane", "-p", "-t", &session]);
    let _ = tmux(&["send-keys", "-t", &session, "q"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let _ = tmux(&["kill-session", "-t", &session]);
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    let text = String::from_utf8_lossy(&shot.stdout).into_owned();
    let out = root().join("target/live");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("darshan-top.txt"), &text).unwrap();
    for want in ["darshan-top", " jobs ", " processes ", "slurm-4711.0", "running", "busiest files", "iB/s"] {
        assert!(text.contains(want), "{want:?} not on the screen:\n{text}");
    }
}

/// A killed process leaves its crash-safe file: its last state is
/// reported once, as ended, and the file is not read again.
#[test]
fn a_killed_process_is_reported_ended_once() {
    let d = scratch("live-killed");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/shared").to_path_buf();
    let (mut child, _) = start_ready(instrumented(&exe, &d).arg(&data).args(["1", "30", "50"]));
    let mut t = Tracker::new(vec![d.join("logs")]);
    let files = || find_files(&[d.join("mmap")], uid());
    let first = t.interval(&files());
    assert_eq!(first.processes.len(), 1);
    assert!(!first.processes[0].ended);
    std::thread::sleep(std::time::Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(files().len(), 1, "the killed process's file stays");
    // /proc is asked about a file once it stops moving, at most once a
    // second: the end is reported within a few intervals.
    let mut reports = Vec::new();
    let mut written = first.processes[0].delta["POSIX"].bytes_written;
    for _ in 0..12 {
        std::thread::sleep(std::time::Duration::from_millis(250));
        let iv = t.interval(&files());
        for p in iv.processes {
            written += p.delta.get("POSIX").map_or(0, |x| x.bytes_written);
            reports.push(p);
        }
    }
    let ended: Vec<_> = reports.iter().filter(|p| p.ended).collect();
    assert_eq!(ended.len(), 1, "reported ended once: {reports:?}");
    let p = ended[0];
    assert_eq!(p.final_from.as_deref(), Some("killed: its crash-safe file"), "{p:?}");
    assert!(reports.last().is_some_and(|l| l.ended), "not read again once reported ended");
    // Its last state is what the file holds, and the deltas add up to it.
    let fin = snapshot::take(&files()[0], None).unwrap();
    let file_bytes: i64 = fin.modules[&POSIX].iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum();
    assert!(file_bytes > 0);
    assert_eq!((p.total["POSIX"].bytes_written, written), (file_bytes, file_bytes));
}

/// A 4-rank MPI job (Open MPI) watched while it runs: one job of four
/// ranks, each rank's file under its rank, all writing; once the ranks
/// end, the job's log (shared file reduced to one record) gives the job's
/// last delta, and the job's deltas over all intervals add up to its log.
#[test]
fn an_mpi_job_is_one_job_of_four_ranks() {
    use common::mpi::*;
    let d = scratch("live-mpi");
    let mut child = start_live_mpi(&d, "3");
    let mut t = Tracker::new(vec![d.join("logs")]);
    let mut seen = None;
    let (mut bytes, mut writes, mut ends) = (0i64, 0i64, Vec::new());
    let mut add = |iv: &darshan_live::Interval| {
        for j in &iv.jobs {
            bytes += j.delta.get("POSIX").map_or(0, |x| x.bytes_written);
            writes += j.delta.get("POSIX").map_or(0, |x| x.writes);
            if let Some(f) = &j.final_from {
                ends.push((f.clone(), j.total.get("POSIX").map_or(0, |x| x.bytes_written)));
            }
        }
    };
    while child.try_wait().unwrap().is_none() {
        let iv = t.interval(&find_files(&[d.join("mmap")], uid()));
        add(&iv);
        if let Some(j) = iv.jobs.iter().find(|j| j.processes == 4) {
            let mut ranks = j.ranks.clone();
            ranks.sort();
            let b = j.delta.get("POSIX").map_or(0, |x| x.bytes_written);
            if b > 0 {
                seen = Some((ranks, j.job_key.clone()));
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    assert!(child.wait().unwrap().success());
    for _ in 0..3 {
        add(&t.interval(&find_files(&[d.join("mmap")], uid())));
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (ranks, key) = seen.expect("the job seen with 4 processes writing");
    assert_eq!(ranks, [0, 1, 2, 3], "{key}");
    let log = darshan_log::LogFile::open(only_log(&d)).unwrap();
    assert_eq!(key, format!("id{}", log.job.jobid), "the job's key is the MPI job's id");
    let recs = log.records(POSIX).unwrap();
    assert!(recs.iter().any(|r| r.rank == -1), "the shared file is one reduced record");
    let fin: (i64, i64) =
        (recs.iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum(), recs.iter().map(|r| r.counters[px::WRITES]).sum());
    assert_eq!(ends.len(), 1, "the job's log is read once: {ends:?}");
    assert!(ends[0].0.starts_with("final log "), "{ends:?}");
    assert_eq!(ends[0].1, fin.0, "the job's total is its log's");
    assert_eq!((bytes, writes), fin, "the job's deltas add up to its log");
}

/// The same job run with DARSHAN_ENABLE_NONMPI=1, each process writing
/// a file and waiting 2 s before MPI_Init, watched from its start: each
/// process is first what its launcher says (Open MPI: a job keyed by its
/// PMIx namespace; MPICH: no key, so a job of its own, `id<pid>`); once
/// MPI_Init rewrote its job record it is a rank of the MPI job,
/// `id<jobid>`, as its log is. The failure: the tracker kept the key and
/// rank it saw first, for the process's whole life (MPICH: four jobs of
/// one process that never met their log). Nothing is counted twice: the
/// deltas under every key add up to the job's log, the early writes
/// under the keys they were first seen under.
#[test]
fn a_process_that_recorded_before_mpi_init_joins_its_mpi_job() {
    use common::mpi::*;
    for mpi in [OpenMpi, Mpich] {
        let d = scratch(&format!("live-mpi-early-{}", mpi.tag()));
        let (bytes, whole) = watch_early_mpi_job(mpi, &d);
        let log = darshan_log::LogFile::open(only_log(&d)).unwrap();
        let key = format!("id{}", log.job.jobid);
        let (mut ranks, seen_key) = whole.unwrap_or_else(|| panic!("{mpi:?}: no job of 4 processes; keys {bytes:?}"));
        ranks.sort();
        assert_eq!((ranks, seen_key), (vec![0, 1, 2, 3], key.clone()), "{mpi:?}: keys {bytes:?}");
        let early: i64 = bytes.iter().filter(|(k, _)| **k != key).map(|(_, b)| b).sum();
        assert!(
            [5, 10, 15, 20].contains(&early),
            "{mpi:?}: no process was seen before MPI_Init, or not as its own figures: {bytes:?}"
        );
        let fin: i64 = log.records(POSIX).unwrap().iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum();
        assert_eq!(bytes.values().sum::<i64>(), fin, "{mpi:?}: the deltas under every key are the job's log");
    }
}

/// The POSIX bytes written that each job key's deltas add up to, and the
/// job of 4 processes last seen (its ranks and key).
type Watched = (std::collections::BTreeMap<String, i64>, Option<(Vec<i64>, String)>);

/// Runs live_mpi with 2 s before MPI_Init, read every 200 ms.
fn watch_early_mpi_job(mpi: common::mpi::Mpi, d: &Path) -> Watched {
    use std::process::Stdio;
    let mut cmd = common::mpi::live_mpi(mpi, d, &["3", "2"], &[("DARSHAN_ENABLE_NONMPI", "1")]);
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn_watched();
    let mut t = Tracker::new(vec![d.join("logs")]);
    let (mut bytes, mut whole) = (std::collections::BTreeMap::new(), None);
    let mut add = |iv: &darshan_live::Interval| {
        for j in &iv.jobs {
            *bytes.entry(j.job_key.clone()).or_insert(0) += j.delta.get("POSIX").map_or(0, |x| x.bytes_written);
            if j.processes == 4 {
                whole = Some((j.ranks.clone(), j.job_key.clone()));
            }
        }
    };
    let mut after = 0;
    while after < 3 {
        let running = child.try_wait().unwrap().is_none();
        add(&t.interval(&find_files(&[d.join("mmap")], uid())));
        after += usize::from(!running);
        std::thread::sleep(std::time::Duration::from_millis(if running { 200 } else { 100 }));
    }
    assert!(child.wait().unwrap().success(), "{mpi:?}: the job failed");
    (bytes, whole)
}

/// Twenty one-shot readings (`darshan-top --once --json`) of a busy
/// process (4 threads writing 4 KiB blocks with 10 µs pauses): each
/// reading's write rate is within 2× of the rate its totals show across
/// readings, or the reading says what it could not measure (`stale`).
/// The failure: in 3 of 20 readings a module busy at the first look was
/// taken as empty, and the next gave the whole history as one interval
/// (9-22× the real rate) with `stale: []`.
#[test]
fn one_shot_readings_of_a_busy_process_are_right_or_flagged_stale() {
    let d = scratch("live-rates");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let mut cmd = instrumented(&exe, &d);
    cmd.arg(d.join("data/shared")).args(["4", "40", "10"]);
    let (mut child, _) = start_ready(&mut cmd);
    let mut last: Option<(f64, f64)> = None;
    let (mut checked, mut flagged) = (0, 0);
    for _ in 0..20 {
        let o = output(
            std::process::Command::new(built("darshan-top"))
                .args(["--once", "--json", "--interval", "0.3", "--dir"])
                .arg(d.join("mmap")),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let Some(p) = s["processes"].as_array().and_then(|v| v.first()) else { continue };
        let at = s["at"].as_f64().unwrap();
        let total = p["total"]["POSIX"]["bytes_written"].as_f64().unwrap_or(0.0);
        let rate = p["rates"]["write_bytes"].as_f64().unwrap_or(0.0);
        let stale = p["stale"].as_array().is_some_and(|v| !v.is_empty());
        if let Some((at0, total0)) = last.filter(|(a, _)| at > *a) {
            let real = (total - total0) / (at - at0);
            if stale {
                flagged += 1;
            } else {
                assert!(
                    real > 0.0 && rate <= 2.0 * real && rate >= real / 2.0,
                    "rate {rate:.0} B/s against {real:.0} B/s: {p}"
                );
                checked += 1;
            }
        }
        last = Some((at, total));
    }
    let _ = child.kill();
    let _ = child.wait();
    eprintln!("{checked} readings within 2x, {flagged} flagged stale");
    assert!(checked + flagged >= 15, "{checked} + {flagged} readings");
}

/// The cause, made certain: a module whose lock is held at every try of
/// the first reading (its word odd) and free at the second. The second
/// interval's delta is the module's whole history: it is flagged stale,
/// never shown as that interval's rate.
#[test]
fn a_module_busy_when_first_seen_is_flagged_when_it_is_taken() {
    let d = scratch("live-first-busy");
    let exe = compile("live_writer", &d, &["-pthread"]);
    let data = d.join("data/shared").to_path_buf();
    let (mut child, mut lines) = start_ready(instrumented(&exe, &d).arg(&data).args(["1", "0.3", "100", "30"]));
    assert_eq!(lines.next().and_then(Result::ok).as_deref(), Some("idle"));
    let src = find_files(&[d.join("mmap")], uid()).pop().expect("its crash-safe file");
    let copy = d.join("copy").join(src.file_name().unwrap());
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(&src, &copy).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    use std::os::unix::fs::FileExt;
    let word_at = (darshan_log::crash_safe::LIVE_OFF + 8 * POSIX) as u64;
    let f = std::fs::OpenOptions::new().read(true).write(true).open(&copy).unwrap();
    let mut w = [0u8; 8];
    f.read_exact_at(&mut w, word_at).unwrap();
    let word = u64::from_le_bytes(w);
    assert!(word > 0 && word % 2 == 0, "POSIX publishes a word: {word}");
    let mut t = darshan_live::Tracker::new(Vec::new());
    f.write_all_at(&(word + 1).to_le_bytes(), word_at).unwrap();
    let first = t.interval(std::slice::from_ref(&copy));
    assert!(first.processes[0].stale.contains(&"POSIX".to_string()), "busy at every try: {:?}", first.processes[0]);
    f.write_all_at(&(word + 2).to_le_bytes(), word_at).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    let second = t.interval(std::slice::from_ref(&copy));
    let p = &second.processes[0];
    assert!(p.delta["POSIX"].bytes_written > 0, "{p:?}");
    assert!(p.stale.contains(&"POSIX".to_string()), "its history given as one interval's delta, unflagged: {p:?}");
    let third = t.interval(&[copy]);
    assert!(third.processes[0].stale.is_empty(), "measured again once taken twice: {:?}", third.processes[0]);
}

/// A liburing copy (16 blocks of 64 KiB and one of 1,000 bytes each way)
/// held open once done: the live view counts its io_uring requests while
/// it runs, per module and per file, and the deltas over all intervals
/// add up to the known pattern; they are not POSIX's.
#[test]
fn io_uring_requests_are_counted_live_and_add_up_to_the_copy() {
    let d = scratch("live-uring");
    let exe = compile("uring_copy", &d, &["-luring"]);
    let (src, dst) = (d.join("data/src.dat"), d.join("data/dst.dat"));
    const SIZE: i64 = 16 * 65536 + 1000;
    std::fs::write(&src, vec![3u8; SIZE as usize]).unwrap();
    let mut cmd = instrumented(&exe, &d);
    cmd.args([&src, &dst]).args(["65536", "4", "plain", "hold"]);
    // Its stdout stays open: it prints once more at the end.
    let (mut child, _stdout) = start_ready(&mut cmd);
    let mut t = Tracker::new(vec![d.join("logs")]);
    let dst_name = dst.to_str().unwrap().to_string();
    let (mut sum, mut dst_bytes) = (darshan_live::Totals::default(), 0);
    let mut add = |t: &mut Tracker| {
        let iv = t.interval(&find_files(&[d.join("mmap")], uid()));
        for p in &iv.processes {
            if let Some(x) = p.delta.get("IO_URING") {
                sum.add(x);
            }
        }
        dst_bytes += iv.busiest.iter().filter(|f| f.0 == dst_name).map(|f| f.2).sum::<i64>();
        (sum, dst_bytes)
    };
    let (live, _) = add(&mut t);
    assert_eq!((live.reads, live.writes, live.bytes_read, live.bytes_written), (17, 17, SIZE, SIZE), "while it runs");
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    add(&mut t);
    let (sum, dst_bytes) = add(&mut t);
    assert_eq!((sum.reads, sum.writes, sum.bytes_read, sum.bytes_written), (17, 17, SIZE, SIZE), "in all");
    assert_eq!(dst_bytes, SIZE, "the destination's bytes, by file");
    let log = darshan_log::LogFile::open(only_log(&d)).unwrap();
    assert!(log.records(IO_URING).unwrap().len() >= 2);
    let posix_written: i64 = log.records(POSIX).unwrap().iter().map(|r| r.counters[px::BYTES_WRITTEN]).sum();
    assert_eq!(posix_written, 0, "a ring's writes are not POSIX's");
}
