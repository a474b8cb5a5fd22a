//! What darshan-run prints after the command: where each new log is, and
//! for the command's own log the bytes moved, files touched and time spent
//! in I/O, per module, plus the busiest files. Names from logs are shown
//! through `visible` (a file name cannot drive the terminal); records are
//! read one at a time, so memory does not grow with a log's size.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use darshan_log::modules;
use darshan_log::roles::Roles;
use darshan_log::{LogFile, Record};
use darshan_report::units::{bytes, noun};
use darshan_util::visible::{visible_bytes, Visible as V};

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
fn io_of(l: &Roles, r: &Record) -> (i64, i64, f64) {
    let c = |i: Option<usize>| i.and_then(|i| r.counters.get(i)).copied().unwrap_or(0);
    (c(l.bytes_read), c(l.bytes_written), l.io_time(r))
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
    /// Logs that could not be read, with why.
    unreadable: Vec<(PathBuf, darshan_log::LogError)>,
}

impl Totals {
    fn add(&mut self, path: &Path) -> Result<(), darshan_log::LogError> {
        let log = LogFile::open(path)?;
        let names = log.names()?;
        let exe = String::from_utf8_lossy(log.job.exe()).split_whitespace().next().unwrap_or("?").to_string();
        let prog = exe.rsplit('/').next().unwrap_or(&exe).to_string();
        *self.programs.entry(prog).or_default() += log.job.nprocs.max(1) as usize;
        self.partial |= log.header.partial_flag;
        for m in log.modules_present() {
            let layout = match m {
                modules::POSIX | modules::MPIIO | modules::STDIO => Roles::of(m),
                _ => None,
            };
            let Some(layout) = layout else { continue };
            let mut rd = log.module_reader(m)?;
            let mut rec = Record::new(m);
            while rd.next_into(&mut rec)? {
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

    fn print(&self, o: &mut String) {
        for (m, (n, r, w, t)) in &self.modules {
            let _ = writeln!(
                o,
                "  {:<6} {:>5} {:<5}  read {:>10}  written {:>10}  I/O time {:.6} s",
                modules::module_name(*m),
                n,
                noun(*n as i64, "file"),
                bytes(*r as f64),
                bytes(*w as f64),
                t
            );
        }
        let mut busiest: Vec<_> = self.files.iter().collect();
        busiest.sort_by_key(|(_, v)| -(v.0 + v.1));
        for ((m, name), (r, w, t)) in busiest.iter().take(3).filter(|(_, v)| v.0 + v.1 > 0) {
            let _ = writeln!(
                o,
                "  busiest: {}  ({}: {} read, {} written, {t:.6} s)",
                visible_bytes(name),
                modules::module_name(*m),
                bytes(*r as f64),
                bytes(*w as f64)
            );
        }
        if self.partial != 0 {
            let parts: Vec<&str> =
                modules::known_ids().filter(|m| self.partial & (1 << m) != 0).map(modules::module_name).collect();
            let _ = writeln!(
                o,
                "  note: incomplete data for {} (memory limits reached; see DARSHAN_MODMEM / MAX_RECORDS)",
                parts.join(", ")
            );
        }
    }
}

/// What darshan-run knows of the command beyond its logs: its arguments
/// and when it started, to find files it wrote that no log saw written.
pub struct Run<'a> {
    pub args: &'a [String],
    pub started: SystemTime,
}

/// Files named among the command's arguments that changed during the run
/// but that no log records a write to: they were written through a
/// descriptor a process inherited rather than opened (`tar czf out.tgz`
/// hands out.tgz to gzip as its standard output), which Darshan, like the
/// C runtime, does not record. (argument as given, size now)
fn written_unseen(run: &Run, totals: &Totals) -> Vec<(String, u64)> {
    let written: std::collections::HashSet<PathBuf> = totals
        .files
        .iter()
        .filter(|(_, v)| v.1 > 0)
        .map(|((_, name), _)| PathBuf::from(String::from_utf8_lossy(name).into_owned()))
        .collect();
    // mtime has the file system's granularity: a second of slack.
    let since = run.started - std::time::Duration::from_secs(1);
    let mut out = Vec::new();
    for a in run.args.iter().flat_map(|a| [a.as_str(), a.split_once('=').map_or("", |(_, v)| v)]) {
        let p = Path::new(a);
        let Ok(m) = std::fs::metadata(p) else { continue };
        if a.is_empty() || !m.is_file() || m.modified().map_or(true, |t| t < since) {
            continue;
        }
        let Ok(full) = p.canonicalize() else { continue };
        if !written.contains(&full) && !out.iter().any(|(x, _): &(String, u64)| x == a) {
            out.push((a.to_string(), m.len()));
        }
    }
    out
}

/// The command's standard output, when a shell redirected it to a file.
fn stdout_file() -> Option<PathBuf> {
    let target = std::fs::read_link("/proc/self/fd/1").ok()?;
    std::fs::metadata("/proc/self/fd/1").ok()?.is_file().then_some(target)
}

/// After the command: which logs it made (a shell script or a launcher
/// makes one per process), what all of them together say, and which one
/// is the command's own process. Returns the text for standard error and
/// how many of the logs could not be read.
/// `job`: the job log the processes' logs were merged into, if any.
pub fn report(logs: &[PathBuf], pid: u32, run: Option<&Run>, job: Option<&Path>) -> (String, usize) {
    let mut o = String::new();
    if logs.is_empty() {
        o.push_str("darshan-run: no log was written (see the messages above)\n");
        return (o, 0);
    }
    let mut all = Totals::default();
    for l in logs {
        if let Err(e) = all.add(l) {
            all.unreadable.push((l.clone(), e));
        }
    }
    let procs: usize = all.programs.values().sum();
    headline(&mut o, &all, procs, logs.len(), job);
    // The command's own log (its pid is in the name); children of a fork
    // have logs of their own.
    let tag = format!("-{pid}_");
    let main = logs.iter().find(|l| l.file_name().is_some_and(|n| n.to_string_lossy().contains(&tag)));
    if job.is_none() {
        log_lines(&mut o, logs, main);
    }
    for (l, e) in &all.unreadable {
        let _ = writeln!(o, "darshan-run: cannot read {}: {}", shown(l), V(&e.to_string()));
    }
    if job.is_some() {
        let _ = writeln!(o, "darshan-run: all {procs} processes together:");
    } else if logs.len() > 1 {
        let _ = writeln!(o, "darshan-run: all {} logs together:", logs.len());
    } else if let Ok(log) = LogFile::open(&logs[0]) {
        let run_time = match log.job.ended() {
            true => format!("{:.3} s run time", log.job.run_time(log.header.version)),
            false => "run time unknown (the process did not finish: a crash-safe file)".to_string(),
        };
        let _ = writeln!(o, "darshan-run: {run_time}, nprocs {}", log.job.nprocs);
    }
    all.print(&mut o);
    if let Some(run) = run {
        notes(&mut o, run, &all);
    }
    // A job log covers every process: its diagnosis is the command's.
    let only = if logs.len() == 1 { logs.first().map(PathBuf::as_path) } else { None };
    if let Some(log) = job.or(main.map(PathBuf::as_path)).or(only) {
        diagnosis(&mut o, log);
    }
    (o, all.unreadable.len())
}

/// What ran: the instrumented programs (how many of each) and the logs,
/// or the job log they were merged into.
fn headline(o: &mut String, all: &Totals, procs: usize, nlogs: usize, job: Option<&Path>) {
    let progs: Vec<String> =
        all.programs.iter().map(|(p, n)| if *n > 1 { format!("{} x{n}", V(p)) } else { V(p).to_string() }).collect();
    if let Some(j) = job {
        let _ = writeln!(o, "darshan-run: the command ran {procs} instrumented processes: {}", progs.join(", "));
        let _ = writeln!(o, "darshan-run: job log {}  ({} process logs merged into it)", shown(j), nlogs);
    } else {
        let _ = writeln!(
            o,
            "darshan-run: the command ran {procs} instrumented process{} and wrote {} log{}: {}",
            if procs == 1 { "" } else { "es" },
            nlogs,
            if nlogs == 1 { "" } else { "s" },
            progs.join(", ")
        );
    }
}

/// The first five logs, the command's own marked, and how many more.
fn log_lines(o: &mut String, logs: &[PathBuf], main: Option<&PathBuf>) {
    for l in logs.iter().take(5) {
        let own = if Some(l) == main { "  (the command's own process)" } else { "" };
        let _ = writeln!(o, "darshan-run: log {}{own}", shown(l));
    }
    if logs.len() > 5 {
        let _ = writeln!(
            o,
            "darshan-run: ... and {} more in {}",
            logs.len() - 5,
            shown(logs[0].parent().unwrap_or(Path::new(".")))
        );
    }
}

/// What the logs cannot show: files written during the run through an
/// inherited descriptor, and a standard output redirected to a file.
fn notes(o: &mut String, run: &Run, all: &Totals) {
    for (a, size) in written_unseen(run, all) {
        let _ = writeln!(
            o,
            "  note: {} ({} now) was written during the run, but no log records a write to it: a process wrote it \
             through a descriptor it inherited (a shell redirection, or the archive tar hands gzip as its \
             standard output), which is not recorded",
            V(&a),
            bytes(size as f64)
        );
    }
    if let Some(f) = stdout_file() {
        let _ = writeln!(
            o,
            "  note: the command's standard output went to {}: what it wrote there (as <STDOUT>) is counted, \
             but writes by processes that inherited it are not",
            shown(&f)
        );
    }
}

/// The diagnosis of `log`, from the same analysis as darshan-summary's
/// report (whose text renderer escapes what comes from the log).
fn diagnosis(o: &mut String, log: &Path) {
    if let Ok(r) = darshan_report::analyze(log, &darshan_report::Options::default()) {
        o.push_str(&darshan_report::render::text::diagnosis(&r).replace("\nDiagnosis\n", "darshan-run: diagnosis\n"));
        let _ = writeln!(o, "darshan-run: full report: darshan-summary {}", shown(log));
    }
}

/// A path as a terminal may show it.
fn shown(p: &Path) -> String {
    visible_bytes(p.as_os_str().as_encoded_bytes()).into_owned()
}
