//! What darshan-run prints after the command: where each new log is, and
//! for the command's own log the bytes moved, files touched and time spent
//! in I/O, per module, plus the busiest files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use darshan_log::modules::{self, MODULE_NAMES};
use darshan_log::{LogFile, Record};
use darshan_report::layout::Layout;
use darshan_report::units::bytes;

/// The logs in `dir`, oldest first.
pub fn logs_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<(SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".darshan"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    v.sort();
    v.into_iter().map(|(_, p)| p).collect()
}

/// (bytes read, bytes written, read+write+meta seconds) of one record of
/// POSIX, MPI-IO or STDIO, found through darshan-report's layouts.
fn io_of(l: &Layout, r: &Record) -> (i64, i64, f64) {
    let c = |i: Option<usize>| i.and_then(|i| r.counters.get(i)).copied().unwrap_or(0);
    let f = |i: Option<usize>| i.and_then(|i| r.fcounters.get(i)).copied().unwrap_or(0.0);
    (c(l.bytes_read), c(l.bytes_written), f(l.read_time) + f(l.write_time) + f(l.meta_time))
}

/// Totals over the logs summarized: per module (files, read, written,
/// I/O time), per file name, partial modules, and per program the number
/// of processes.
#[derive(Default)]
struct Totals {
    modules: BTreeMap<usize, (usize, i64, i64, f64)>,
    /// Per (module, file name): a file read through MPI-IO is also read
    /// through POSIX; the two views are not added up.
    files: BTreeMap<(usize, Vec<u8>), (i64, i64, f64)>,
    partial: u64,
    programs: BTreeMap<String, usize>,
    unreadable: usize,
}

impl Totals {
    fn add(&mut self, path: &Path) -> Result<(), String> {
        let log = LogFile::open(path).map_err(|e| e.to_string())?;
        let names = log.names().map_err(|e| e.to_string())?;
        let exe = String::from_utf8_lossy(log.job.exe()).split_whitespace().next().unwrap_or("?").to_string();
        let prog = exe.rsplit('/').next().unwrap_or(&exe).to_string();
        *self.programs.entry(prog).or_default() += log.job.nprocs.max(1) as usize;
        self.partial |= log.header.partial_flag;
        for m in log.modules_present() {
            let layout = match m {
                modules::POSIX | modules::MPIIO | modules::STDIO => Layout::of(m),
                _ => None,
            };
            let Some(layout) = layout else { continue };
            for rec in log.records(m).map_err(|e| e.to_string())? {
                let (a, b, c) = io_of(&layout, &rec);
                let t = self.modules.entry(m).or_default();
                t.0 += 1;
                t.1 += a;
                t.2 += b;
                t.3 += c;
                let name = names.get(rec.id).unwrap_or(b"?").to_vec();
                let f = self.files.entry((m, name)).or_default();
                f.0 += a;
                f.1 += b;
                f.2 += c;
            }
        }
        Ok(())
    }

    fn print(&self) {
        for (m, (n, r, w, t)) in &self.modules {
            eprintln!(
                "  {:<6} {:>5} files  read {:>10}  written {:>10}  I/O time {:.6} s",
                MODULE_NAMES[*m],
                n,
                bytes(*r as f64),
                bytes(*w as f64),
                t
            );
        }
        let mut busiest: Vec<_> = self.files.iter().collect();
        busiest.sort_by_key(|(_, v)| -(v.0 + v.1));
        for ((m, name), (r, w, t)) in busiest.iter().take(3).filter(|(_, v)| v.0 + v.1 > 0) {
            eprintln!(
                "  busiest: {}  ({}: {} read, {} written, {t:.6} s)",
                String::from_utf8_lossy(name),
                MODULE_NAMES[*m],
                bytes(*r as f64),
                bytes(*w as f64)
            );
        }
        if self.partial != 0 {
            let parts: Vec<&str> =
                (0..MODULE_NAMES.len()).filter(|m| self.partial & (1 << m) != 0).map(|m| MODULE_NAMES[m]).collect();
            eprintln!(
                "  note: incomplete data for {} (memory limits reached; see DARSHAN_MODMEM / MAX_RECORDS)",
                parts.join(", ")
            );
        }
    }
}

/// After the command: which logs it made (a shell script or a launcher
/// makes one per process), what all of them together say, and which one
/// is the command's own process.
pub fn report(logs: &[PathBuf], pid: u32) {
    if logs.is_empty() {
        eprintln!("darshan-run: no log was written (see the messages above)");
        return;
    }
    let mut all = Totals::default();
    for l in logs {
        if all.add(l).is_err() {
            all.unreadable += 1;
        }
    }
    let procs: usize = all.programs.values().sum();
    let progs: Vec<String> =
        all.programs.iter().map(|(p, n)| if *n > 1 { format!("{p} x{n}") } else { p.clone() }).collect();
    eprintln!(
        "darshan-run: the command ran {procs} instrumented process{} and wrote {} log{}: {}",
        if procs == 1 { "" } else { "es" },
        logs.len(),
        if logs.len() == 1 { "" } else { "s" },
        progs.join(", ")
    );
    // The command's own log (its pid is in the name); children of a fork
    // have logs of their own.
    let tag = format!("-{pid}_");
    let main = logs.iter().find(|l| l.file_name().is_some_and(|n| n.to_string_lossy().contains(&tag)));
    for l in logs.iter().take(5) {
        let own = if Some(l) == main { "  (the command's own process)" } else { "" };
        eprintln!("darshan-run: log {}{own}", l.display());
    }
    if logs.len() > 5 {
        eprintln!(
            "darshan-run: ... and {} more in {}",
            logs.len() - 5,
            logs[0].parent().unwrap_or(Path::new(".")).display()
        );
    }
    if all.unreadable > 0 {
        eprintln!("darshan-run: {} log(s) could not be read", all.unreadable);
    }
    if logs.len() > 1 {
        eprintln!("darshan-run: all {} logs together:", logs.len());
    } else if let Ok(log) = LogFile::open(&logs[0]) {
        eprintln!("darshan-run: {:.3} s run time, nprocs {}", log.job.run_time(log.header.version), log.job.nprocs);
    }
    all.print();
    // The diagnosis of the command's own log (or the only one), from the
    // same analysis as darshan-summary's report.
    if let Some(log) = main.or(if logs.len() == 1 { logs.first() } else { None }) {
        if let Ok(r) = darshan_report::analyze(log, &darshan_report::Options::default()) {
            eprint!(
                "{}",
                darshan_report::render::text::diagnosis(&r).replace("\nDiagnosis\n", "darshan-run: diagnosis\n")
            );
            eprintln!("darshan-run: full report: darshan-summary {}", log.display());
        }
    }
}
