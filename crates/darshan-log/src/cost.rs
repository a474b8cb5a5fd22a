//! What the runtime cost the job, as it measured itself: the job
//! metadata's `darshan_cost_*` lines (docs/cost.md), one set of rules for
//! the runtime that writes them, the merges that sum them and the tools
//! that read them.
//!
//! Every figure is summed over the log's processes (process time), so a
//! merge adds its inputs' figures and the share is of the processes' run
//! time: `(startup + shutdown + est) / (run time × processes)`.

use crate::counters::{apmpi, h5d, h5f, mpiio, pnetcdf_file, pnetcdf_var, posix, posix_meta, stdio};
use crate::job::Job;
use crate::modules;

pub const STARTUP_US: &str = "darshan_cost_startup_us";
pub const SHUTDOWN_US: &str = "darshan_cost_shutdown_us";
pub const CALLS: &str = "darshan_cost_calls";
pub const CALL_NS: &str = "darshan_cost_call_ns";
pub const EST_US: &str = "darshan_cost_est_us";
pub const SHARE_PCT: &str = "darshan_cost_share_pct";

/// The runtime's own cost in one log (or one process).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// Start-up: the constructor and, in an MPI job, MPI_Init's part.
    pub startup_us: u64,
    /// Shutdown until the job record is made: finalize, the reduction
    /// across ranks, compression (the log's own write comes after and is
    /// not in it). 0 for a process that never shut down (crash-safe file).
    pub shutdown_us: u64,
    /// Calls counted in the records (one close per open).
    pub calls: u64,
    /// The estimated time the wrappers added: calls × the per-call cost
    /// (`call_ns`: sampled on the process's reads and writes, else
    /// calibrated at start-up; docs/cost.md).
    pub est_us: u64,
    /// Nanoseconds per call (the calls' weighted mean in a merge).
    pub call_ns: f64,
}

impl Cost {
    /// Total microseconds the runtime cost.
    pub fn total_us(&self) -> u64 {
        self.startup_us.saturating_add(self.shutdown_us).saturating_add(self.est_us)
    }

    /// The share of `processes` × `run_secs` of process time, percent
    /// (None for a run of no measurable length).
    pub fn share_pct(&self, run_secs: f64, processes: i64) -> Option<f64> {
        let whole = run_secs * processes.max(1) as f64 * 1e6;
        (whole.is_finite() && whole > 0.0).then(|| self.total_us() as f64 / whole * 100.0)
    }

    /// This cost with `calls` counted (from a crash-safe file's records:
    /// a killed process never counted them) at its own per-call cost.
    pub fn with_calls(&self, calls: u64) -> Cost {
        Cost { calls, est_us: round_u64(calls as f64 * self.call_ns / 1000.0), ..*self }
    }

    /// The sum of several logs' (or processes') costs.
    pub fn sum<'a>(costs: impl IntoIterator<Item = &'a Cost>) -> Cost {
        let mut t = Cost::default();
        for c in costs {
            t.startup_us = t.startup_us.saturating_add(c.startup_us);
            t.shutdown_us = t.shutdown_us.saturating_add(c.shutdown_us);
            t.calls = t.calls.saturating_add(c.calls);
            t.est_us = t.est_us.saturating_add(c.est_us);
            t.call_ns += c.call_ns * c.calls as f64;
        }
        t.call_ns = if t.calls > 0 { t.call_ns / t.calls as f64 } else { 0.0 };
        t
    }

    /// The metadata lines, `run_secs` and `processes` for the share.
    pub fn lines(&self, run_secs: f64, processes: i64) -> String {
        let mut s = format!(
            "{STARTUP_US}={}\n{SHUTDOWN_US}={}\n{CALLS}={}\n{CALL_NS}={:.2}\n{EST_US}={}\n",
            self.startup_us, self.shutdown_us, self.calls, self.call_ns, self.est_us
        );
        if let Some(p) = self.share_pct(run_secs, processes) {
            s.push_str(&format!("{SHARE_PCT}={}\n", share_text(p)));
        }
        s
    }

    /// The cost a log's job metadata states; None when it has none (a C
    /// Darshan log, or ours from before issue 51).
    pub fn of_job(job: &Job) -> Option<Cost> {
        let pairs = job.metadata_pairs();
        let get = |k: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == k.as_bytes())
                .and_then(|(_, v)| std::str::from_utf8(v).ok())
                .map(str::trim)
        };
        let int = |k: &str| get(k).and_then(|v| v.parse::<u64>().ok());
        let startup_us = int(STARTUP_US)?;
        Some(Cost {
            startup_us,
            shutdown_us: int(SHUTDOWN_US).unwrap_or(0),
            calls: int(CALLS).unwrap_or(0),
            est_us: int(EST_US).unwrap_or(0),
            call_ns: get(CALL_NS).and_then(|v| v.parse::<f64>().ok()).filter(|v| v.is_finite()).unwrap_or(0.0),
        })
    }

    /// The metadata `text` with its cost lines (and only those) replaced
    /// by this cost's, placed where the old ones were or else appended.
    pub fn replace_in(&self, text: &str, run_secs: f64, processes: i64) -> String {
        let mut out = String::with_capacity(text.len() + 200);
        let mut placed = false;
        for l in text.lines() {
            if is_cost_line(l) {
                if !placed {
                    out.push_str(&self.lines(run_secs, processes));
                    placed = true;
                }
                continue;
            }
            out.push_str(l);
            out.push('\n');
        }
        if !placed {
            out.push_str(&self.lines(run_secs, processes));
        }
        out
    }
}

/// The share a log's metadata states (percent of its processes' run time).
pub fn stated_share(job: &Job) -> Option<f64> {
    job.metadata_pairs()
        .into_iter()
        .find(|(k, _)| *k == SHARE_PCT.as_bytes())
        .and_then(|(_, v)| std::str::from_utf8(v).ok()?.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// Whether a metadata line is one of the cost lines.
pub fn is_cost_line(line: &str) -> bool {
    line.starts_with("darshan_cost_")
}

/// A share in percent with four significant digits, never in exponent
/// form (0.0004213, 1.25, 12.5).
pub fn share_text(pct: f64) -> String {
    if pct <= 0.0 || !pct.is_finite() {
        return "0".into();
    }
    // Four significant digits: one decimal fewer per power of ten above 1
    // (no log10: the runtime links no libm).
    let (mut digits, mut bound) = (3usize, 10.0);
    while pct >= bound && digits > 0 {
        digits -= 1;
        bound *= 10.0;
    }
    let mut bound = 1.0;
    while pct < bound && digits < 12 {
        digits += 1;
        bound /= 10.0;
    }
    format!("{pct:.digits$}")
}

/// `x` rounded to the nearest whole number, 0 below 0.5 (without libm's
/// `round`: the runtime links libc alone).
pub fn round_u64(x: f64) -> u64 {
    if x.is_finite() && x > 0.0 {
        (x + 0.5) as u64
    } else {
        0
    }
}

/// Which counters count a module's calls: the module, where its counters
/// start in a record, the operation counters, and the counters whose
/// calls each have a close (no counter counts closes).
struct CallCounters {
    module: usize,
    counters_at: usize,
    calls: &'static [usize],
    closed: &'static [usize],
    /// The words a record of calls has: a shorter one counts none (APMPI's
    /// header, beside its ranks' records).
    min_words: usize,
}

const CALL_COUNTERS: [CallCounters; 9] = [
    CallCounters {
        module: modules::POSIX,
        counters_at: posix::COUNTERS_AT,
        calls: &[
            posix::OPENS,
            posix::FILENOS,
            posix::DUPS,
            posix::READS,
            posix::WRITES,
            posix::SEEKS,
            posix::STATS,
            posix::MMAPS,
            posix::FSYNCS,
            posix::FDSYNCS,
            posix::RENAME_SOURCES,
        ],
        closed: &[posix::OPENS, posix::DUPS],
        min_words: 0,
    },
    CallCounters {
        module: modules::STDIO,
        counters_at: stdio::COUNTERS_AT,
        calls: &[stdio::OPENS, stdio::FDOPENS, stdio::READS, stdio::WRITES, stdio::SEEKS, stdio::FLUSHES],
        closed: &[stdio::OPENS, stdio::FDOPENS],
        min_words: 0,
    },
    CallCounters {
        module: modules::MPIIO,
        counters_at: mpiio::COUNTERS_AT,
        calls: &[
            mpiio::INDEP_OPENS,
            mpiio::COLL_OPENS,
            mpiio::INDEP_READS,
            mpiio::INDEP_WRITES,
            mpiio::COLL_READS,
            mpiio::COLL_WRITES,
            mpiio::SPLIT_READS,
            mpiio::SPLIT_WRITES,
            mpiio::NB_READS,
            mpiio::NB_WRITES,
            mpiio::SYNCS,
            mpiio::HINTS,
            mpiio::VIEWS,
        ],
        closed: &[mpiio::INDEP_OPENS, mpiio::COLL_OPENS],
        min_words: 0,
    },
    CallCounters {
        module: modules::H5F,
        counters_at: h5f::COUNTERS_AT,
        calls: &[h5f::OPENS, h5f::FLUSHES],
        closed: &[h5f::OPENS],
        min_words: 0,
    },
    CallCounters {
        module: modules::H5D,
        counters_at: h5d::COUNTERS_AT,
        calls: &[h5d::OPENS, h5d::READS, h5d::WRITES, h5d::FLUSHES],
        closed: &[h5d::OPENS],
        min_words: 0,
    },
    CallCounters {
        module: modules::PNETCDF_FILE,
        counters_at: pnetcdf_file::COUNTERS_AT,
        calls: &[
            pnetcdf_file::CREATES,
            pnetcdf_file::OPENS,
            pnetcdf_file::REDEFS,
            pnetcdf_file::INDEP_WAITS,
            pnetcdf_file::COLL_WAITS,
            pnetcdf_file::SYNCS,
        ],
        closed: &[pnetcdf_file::CREATES, pnetcdf_file::OPENS],
        min_words: 0,
    },
    CallCounters {
        module: modules::PNETCDF_VAR,
        counters_at: pnetcdf_var::COUNTERS_AT,
        calls: &[
            pnetcdf_var::OPENS,
            pnetcdf_var::INDEP_READS,
            pnetcdf_var::INDEP_WRITES,
            pnetcdf_var::COLL_READS,
            pnetcdf_var::COLL_WRITES,
            pnetcdf_var::NB_READS,
            pnetcdf_var::NB_WRITES,
        ],
        closed: &[],
        min_words: 0,
    },
    CallCounters {
        module: modules::POSIX_META,
        counters_at: posix_meta::COUNTERS_AT,
        calls: &[
            posix_meta::UNLINKS,
            posix_meta::RENAMES_FROM,
            posix_meta::MKDIRS,
            posix_meta::RMDIRS,
            posix_meta::OPENDIRS,
            posix_meta::READDIRS,
            posix_meta::TRUNCATES,
            posix_meta::FALLOCATES,
            posix_meta::CHMODS,
            posix_meta::CHOWNS,
            posix_meta::ACCESSES,
            posix_meta::LINKS,
            posix_meta::SYMLINKS,
            posix_meta::READLINKS,
            posix_meta::UTIMES,
            posix_meta::XATTR_GETS,
            posix_meta::XATTR_SETS,
            posix_meta::MMAPS,
            posix_meta::MSYNCS,
            posix_meta::MUNMAPS,
        ],
        closed: &[posix_meta::OPENDIRS],
        min_words: 0,
    },
    // A rank's APMPI record (its counters after id and rank).
    CallCounters {
        module: modules::APMPI,
        counters_at: 2,
        calls: &apmpi::CALL_COUNTS,
        closed: &[],
        min_words: apmpi::PERF_SIZE / 8,
    },
];

/// The calls a record counts: its module's operation counters, and one
/// close per open. Modules that count no calls of their own (DXT, whose
/// calls are POSIX's or MPI-IO's; Lustre, BG/Q, HEATMAP) give 0, as does a
/// record too short for its module's layout (past its words, 0).
pub fn record_calls(module: usize, words: &[u64]) -> u64 {
    let Some(c) = CALL_COUNTERS.iter().find(|c| c.module == module) else { return 0 };
    if words.len() < c.min_words {
        return 0;
    }
    calls_of(c, |k| words.get(c.counters_at + k).map_or(0, |&v| v as i64))
}

/// Whether module `module`'s records count calls ([`counters_calls`]).
pub fn counts_calls(module: usize) -> bool {
    CALL_COUNTERS.iter().any(|c| c.module == module)
}

/// The calls a parsed record counts (its counters, as a tool reads them).
pub fn counters_calls(module: usize, counters: &[i64]) -> u64 {
    let Some(c) = CALL_COUNTERS.iter().find(|c| c.module == module) else { return 0 };
    calls_of(c, |k| counters.get(k).copied().unwrap_or(0))
}

/// Negative counters (C's -1 for what it did not record) count nothing.
fn calls_of(c: &CallCounters, counter: impl Fn(usize) -> i64) -> u64 {
    c.calls.iter().chain(c.closed).map(|&k| counter(k).max(0) as u64).fold(0, u64::saturating_add)
}

/// A merged log's metadata (`meta`, the first input's): its cost lines
/// replaced by the sum of its inputs' `costs`, or dropped when no input
/// stated one (the first input's alone would misstate the job's).
pub fn merged_metadata(meta: &str, costs: &[Cost], run_secs: f64, processes: i64) -> String {
    if costs.is_empty() {
        return meta.lines().filter(|l| !is_cost_line(l)).map(|l| format!("{l}\n")).collect();
    }
    Cost::sum(costs).replace_in(meta, run_secs, processes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posix_record(set: &[(usize, i64)]) -> Vec<u64> {
        let mut r = vec![0u64; posix::RECORD_WORDS];
        for &(k, v) in set {
            r[posix::COUNTERS_AT + k] = v as u64;
        }
        r
    }

    #[test]
    fn a_posix_record_counts_its_operations_and_a_close_per_open() {
        let r = posix_record(&[(posix::OPENS, 2), (posix::READS, 10), (posix::WRITES, 5), (posix::SEEKS, 3)]);
        assert_eq!(record_calls(modules::POSIX, &r), 2 + 10 + 5 + 3 + 2);
    }

    #[test]
    fn an_apmpi_record_counts_every_operation_call_and_not_its_bytes_nor_the_header() {
        let mut r = vec![0u64; apmpi::PERF_SIZE / 8];
        let at = |name: &str| 2 + apmpi::NAMES.iter().position(|n| *n == name).unwrap();
        r[at("MPI_SEND_CALL_COUNT")] = 3;
        r[at("MPI_SEND_TOTAL_BYTES")] = 4000;
        r[at("MPI_WAIT_CALL_COUNT")] = 5;
        r[at("MPI_WIN_SYNC_CALL_COUNT")] = 7;
        assert_eq!(record_calls(modules::APMPI, &r), 3 + 5 + 7);
        // The header: id, rank, magic, flag, two variances.
        let header = [1, 0, apmpi::MAGIC as u64, 0, 0, 0];
        assert_eq!(record_calls(modules::APMPI, &header), 0);
    }

    #[test]
    fn c_darshans_minus_one_for_mmaps_counts_nothing() {
        let r = posix_record(&[(posix::OPENS, 1), (posix::MMAPS, -1)]);
        assert_eq!(record_calls(modules::POSIX, &r), 2);
    }

    #[test]
    fn a_short_record_and_a_module_without_calls_count_nothing_past_their_bytes() {
        assert_eq!(record_calls(modules::POSIX, &[1, 0, 7]), 7 + 7);
        assert_eq!(record_calls(modules::LUSTRE, &[1, 0, 7, 7, 7]), 0);
    }

    #[test]
    fn lines_read_back_and_sum_with_a_weighted_call_cost() {
        let a = Cost { startup_us: 100, shutdown_us: 50, calls: 1000, est_us: 40, call_ns: 40.0 };
        let b = Cost { startup_us: 120, shutdown_us: 0, calls: 3000, est_us: 180, call_ns: 60.0 };
        let mut job = Job { metadata: format!("lib_ver=3.5.0\n{}", a.lines(2.0, 1)).into_bytes(), ..Job::default() };
        assert_eq!(Cost::of_job(&job), Some(a));
        let s = Cost::sum([&a, &b]);
        assert_eq!((s.startup_us, s.shutdown_us, s.calls, s.est_us), (220, 50, 4000, 220));
        assert!((s.call_ns - 55.0).abs() < 1e-9);
        job.metadata = s.replace_in(&String::from_utf8_lossy(&job.metadata), 2.0, 2).into_bytes();
        assert_eq!(Cost::of_job(&job), Some(Cost { call_ns: 55.0, ..s }));
        assert_eq!(String::from_utf8_lossy(&job.metadata).matches("darshan_cost_startup_us").count(), 1);
    }

    #[test]
    fn the_share_is_of_the_processes_run_time() {
        let c = Cost { startup_us: 300, shutdown_us: 100, calls: 0, est_us: 100, call_ns: 0.0 };
        // 500 us of 2 processes × 1 s.
        assert!((c.share_pct(1.0, 2).unwrap() - 0.025).abs() < 1e-12);
        assert_eq!(c.share_pct(0.0, 2), None);
        assert_eq!(share_text(0.025), "0.02500");
        assert_eq!(share_text(12.5), "12.50");
        assert_eq!(share_text(0.0), "0");
        assert_eq!(share_text(5.331), "5.331");
        assert_eq!(share_text(1234.5), "1234");
        assert_eq!(share_text(0.00012345), "0.0001234");
        assert_eq!((round_u64(2.5), round_u64(2.49), round_u64(-3.0)), (3, 2, 0));
    }

    #[test]
    fn a_log_without_cost_lines_has_no_cost() {
        let job = Job { metadata: b"lib_ver=3.5.0\nh=romio_no_indep_rw=true;cb_nodes=4\n".to_vec(), ..Job::default() };
        assert_eq!(Cost::of_job(&job), None);
    }
}
