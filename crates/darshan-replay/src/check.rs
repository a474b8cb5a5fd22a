//! `--check`: the generated benchmark run under the runtime, and its log
//! against the original, per figure, each as a ratio.
//!
//! The files are laid out first by fio without the runtime
//! (`--create_only`), so a read job's layout writes are not in the
//! replay's log; then fio runs the job with the runtime preloaded. Only
//! the replay directory's files are compared (fio reads its own files
//! too), against the original's application files.

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_log::counters::posix as p;
use darshan_log::modules::POSIX;
use darshan_log::roles::Roles;
use darshan_log::LogFile;

/// What is compared: totals over the compared files.
#[derive(Clone, Debug, Default)]
pub struct Totals {
    pub files: f64,
    pub bytes_read: f64,
    pub bytes_written: f64,
    pub reads: f64,
    pub writes: f64,
    pub seq_ops: f64,
    /// Operations per size bucket: (label, reads, writes).
    pub buckets: Vec<(String, f64, f64)>,
}

/// The totals of one module (POSIX or STDIO) of `logs`, over the files
/// `keep` accepts.
pub fn totals(logs: &[PathBuf], module: usize, keep: &dyn Fn(&str) -> bool) -> anyhow::Result<Totals> {
    let roles = Roles::of(module).ok_or_else(|| anyhow::anyhow!("module {module} has no totals"))?;
    let role = |r: Option<usize>| r.ok_or_else(|| anyhow::anyhow!("{} has no reads and writes", roles.prefix));
    let [br, bw, nr, nw] =
        [role(roles.bytes_read)?, role(roles.bytes_written)?, role(roles.reads)?, role(roles.writes)?];
    let mut t = Totals {
        buckets: roles.size_buckets.iter().map(|(l, _, _)| (l.clone(), 0.0, 0.0)).collect(),
        ..Default::default()
    };
    let mut ids = std::collections::HashSet::new();
    for l in logs {
        crate::pattern::each_named(&LogFile::open(l)?, &[module], |_, name, rec| {
            if !keep(name) {
                return;
            }
            let c = |k: usize| rec.counters.get(k).copied().unwrap_or(0).max(0) as f64;
            if c(br) + c(bw) > 0.0 {
                ids.insert(rec.id);
            }
            t.bytes_read += c(br);
            t.bytes_written += c(bw);
            t.reads += c(nr);
            t.writes += c(nw);
            if module == POSIX {
                t.seq_ops += c(p::SEQ_READS) + c(p::SEQ_WRITES);
            }
            for (b, (_, r, w)) in t.buckets.iter_mut().zip(&roles.size_buckets) {
                b.1 += c(*r);
                b.2 += c(*w);
            }
        })?;
    }
    t.files = ids.len() as f64;
    Ok(t)
}

/// One figure of the comparison.
pub struct Line {
    pub what: String,
    pub original: f64,
    pub replay: f64,
}

impl Line {
    /// replay / original (1 when both are 0).
    pub fn ratio(&self) -> f64 {
        if self.original == 0.0 {
            if self.replay == 0.0 {
                1.0
            } else {
                f64::INFINITY
            }
        } else {
            self.replay / self.original
        }
    }
}

/// The figures side by side: bytes, operations, each size bucket with
/// requests on either side, the sequential share, the file count.
/// STDIO's streams (replayed as POSIX requests) have no sequential
/// counters or buckets: those are compared only when the original has
/// them (`posix`); their lines start with `stdio`.
pub fn compare(o: &Totals, r: &Totals, posix: bool) -> Vec<Line> {
    let tag = if posix { "" } else { "stdio " };
    let l = |what: &str, a: f64, b: f64| Line { what: format!("{tag}{what}"), original: a, replay: b };
    let mut out = vec![
        l("bytes read", o.bytes_read, r.bytes_read),
        l("bytes written", o.bytes_written, r.bytes_written),
        l("reads", o.reads, r.reads),
        l("writes", o.writes, r.writes),
    ];
    out.push(l("files", o.files, r.files));
    if !posix {
        return out;
    }
    let share = |t: &Totals| if t.reads + t.writes > 0.0 { t.seq_ops / (t.reads + t.writes) } else { 0.0 };
    out.insert(4, l("sequential share", share(o), share(r)));
    for ((label, or, ow), (_, rr, rw)) in o.buckets.iter().zip(&r.buckets) {
        if or + rr > 0.0 {
            out.push(l(&format!("reads of {label}"), *or, *rr));
        }
        if ow + rw > 0.0 {
            out.push(l(&format!("writes of {label}"), *ow, *rw));
        }
    }
    out
}

/// Run fio on `job` (laid out without the runtime, then run with it);
/// the logs it wrote.
pub fn run_fio(fio: &Path, lib: &Path, job: &Path, logs: &Path, exact: bool) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(logs)?;
    if !exact {
        let lay = Command::new(fio).arg("--create_only=1").arg(job).output()?;
        anyhow::ensure!(lay.status.success(), "fio --create_only: {}", String::from_utf8_lossy(&lay.stderr).trim());
    }
    let mut cmd = Command::new(fio);
    if exact {
        cmd.env("DXT_ENABLE_IO_TRACE", "1");
    }
    let child = cmd
        .arg(job)
        .env("LD_PRELOAD", lib)
        .env("DARSHAN_ENABLE_NONMPI", "1")
        .env("DARSHAN_LOGPATH", logs)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()?;
    let pid = child.id();
    let run = child.wait_with_output()?;
    anyhow::ensure!(run.status.success(), "fio: {}", String::from_utf8_lossy(&run.stderr).trim());
    // fio's own process sets the files up (it opens and stats them to
    // decide their layout) and its jobs are its children: the jobs' logs
    // are the replay's.
    let parent = format!("_id{pid}-{pid}_");
    let mut found: Vec<PathBuf> = std::fs::read_dir(logs)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().contains(&parent)))
        .collect();
    found.sort();
    anyhow::ensure!(!found.is_empty(), "fio ran but the runtime wrote no log in {}", logs.display());
    Ok(found)
}

/// Files without data, and the opens, stats and unlinks of them.
#[derive(Clone, Debug, Default)]
pub struct MetaTotals {
    pub files: f64,
    pub opens: f64,
    pub stats: f64,
    pub unlinks: f64,
}

pub fn meta_totals(logs: &[PathBuf], keep: &dyn Fn(&str) -> bool) -> anyhow::Result<MetaTotals> {
    let mut t = MetaTotals::default();
    let mut files = std::collections::HashSet::new();
    for l in logs {
        crate::pattern::each_named(&LogFile::open(l)?, &[POSIX, darshan_log::modules::POSIX_META], |m, name, rec| {
            if !keep(name) {
                return;
            }
            let c = |k: usize| rec.counters.get(k).copied().unwrap_or(0).max(0) as f64;
            if m == POSIX {
                if c(p::BYTES_READ) + c(p::BYTES_WRITTEN) == 0.0 {
                    files.insert(rec.id);
                    t.opens += c(p::OPENS);
                    t.stats += c(p::STATS);
                }
            } else {
                t.unlinks += c(darshan_log::counters::posix_meta::UNLINKS);
            }
        })?;
    }
    t.files = files.len() as f64;
    Ok(t)
}

/// The metadata figures side by side.
pub fn compare_meta(o: &MetaTotals, r: &MetaTotals) -> Vec<Line> {
    let l = |what: &str, a: f64, b: f64| Line { what: what.to_string(), original: a, replay: b };
    vec![
        l("files without data", o.files, r.files),
        l("opens of them", o.opens, r.opens),
        l("stats of them", o.stats, r.stats),
        l("unlinks of them", o.unlinks, r.unlinks),
    ]
}
