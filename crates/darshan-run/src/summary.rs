//! What darshan-run prints after the command: where each new log is, and
//! for the command's own log the bytes moved, files touched and time spent
//! in I/O, per module, plus the busiest files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use darshan_log::modules::{self, MODULE_NAMES};
use darshan_log::{LogFile, Record};

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

/// (bytes read, bytes written, read+write+meta seconds) of one record.
fn io_of(r: &Record) -> Option<(i64, i64, f64)> {
    use darshan_log::counters::{posix as p, stdio as s};
    match r.module {
        modules::POSIX => Some((
            r.counters[p::BYTES_READ],
            r.counters[p::BYTES_WRITTEN],
            r.fcounters[p::F_READ_TIME] + r.fcounters[p::F_WRITE_TIME] + r.fcounters[p::F_META_TIME],
        )),
        modules::STDIO => Some((
            r.counters[s::BYTES_READ],
            r.counters[s::BYTES_WRITTEN],
            r.fcounters[s::F_READ_TIME] + r.fcounters[s::F_WRITE_TIME] + r.fcounters[s::F_META_TIME],
        )),
        _ => None,
    }
}

fn human(b: i64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u < 4 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} B")
    } else {
        format!("{v:.1} {}", U[u])
    }
}

fn summarize(path: &Path) -> Result<(), String> {
    let log = LogFile::open(path).map_err(|e| e.to_string())?;
    let names = log.names().map_err(|e| e.to_string())?;
    let run = log.job.run_time(log.header.version);
    eprintln!("darshan-run: {:.3} s run time, nprocs {}", run, log.job.nprocs);
    let mut files: BTreeMap<u64, (i64, i64, f64)> = BTreeMap::new();
    for m in log.modules_present() {
        let recs = log.records(m).map_err(|e| e.to_string())?;
        let (mut r, mut w, mut t) = (0, 0, 0.0);
        let mut n = 0;
        for rec in &recs {
            if let Some((a, b, c)) = io_of(rec) {
                r += a;
                w += b;
                t += c;
                n += 1;
                let f = files.entry(rec.id).or_default();
                f.0 += a;
                f.1 += b;
                f.2 += c;
            }
        }
        if n > 0 {
            eprintln!(
                "  {:<6} {:>5} files  read {:>10}  written {:>10}  I/O time {:.6} s",
                MODULE_NAMES[m],
                n,
                human(r),
                human(w),
                t
            );
        }
    }
    let mut busiest: Vec<_> = files.iter().collect();
    busiest.sort_by_key(|(_, v)| -(v.0 + v.1));
    for (id, (r, w, t)) in busiest.iter().take(3).filter(|(_, v)| v.0 + v.1 > 0) {
        let name = names.get(**id).map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_default();
        eprintln!("  busiest: {name}  ({} read, {} written, {t:.6} s)", human(*r), human(*w));
    }
    if log.header.partial_flag != 0 {
        let parts: Vec<&str> = (0..MODULE_NAMES.len())
            .filter(|m| log.header.partial_flag & (1 << m) != 0)
            .map(|m| MODULE_NAMES[m])
            .collect();
        eprintln!(
            "  note: incomplete data for {} (memory limits reached; see DARSHAN_MODMEM / MAX_RECORDS)",
            parts.join(", ")
        );
    }
    Ok(())
}

pub fn report(logs: &[PathBuf], pid: u32) {
    if logs.is_empty() {
        eprintln!("darshan-run: no log was written (see the messages above)");
        return;
    }
    let tag = format!("-{pid}_");
    for l in logs {
        eprintln!("darshan-run: log {}", l.display());
    }
    // The command's own log (its pid is in the name); children of a fork
    // have logs of their own.
    let main = logs.iter().find(|l| l.file_name().is_some_and(|n| n.to_string_lossy().contains(&tag)));
    if let Some(m) = main.or(logs.last()) {
        if let Err(e) = summarize(m) {
            eprintln!("darshan-run: cannot read {}: {e}", m.display());
        }
    }
}
