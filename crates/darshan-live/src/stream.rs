//! What darshan-stream sends (docs/live.md): one JSON message per process
//! and per job each interval, with the fields of Darshan's LDMS
//! `darshanConnector` messages where they apply, and the per-job counters
//! it serves to Prometheus. Pure functions of an [`Interval`]: the
//! daemon's network side is in bin/darshan-stream.rs.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use crate::track::{Interval, Totals};

/// A process's or a job's interval, as published.
#[derive(Debug, Serialize)]
pub struct Message<'a> {
    /// "darshan_live" (LDMS's messages say "darshan_data").
    pub schema: &'static str,
    pub version: u32,
    /// "process" or "job".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub uid: i64,
    pub exe: &'a str,
    pub job_id: i64,
    pub job_key: &'a str,
    /// The process's rank (-1 for a job message).
    pub rank: i64,
    /// The node (LDMS: the host name).
    #[serde(rename = "ProducerName")]
    pub producer: &'a str,
    /// End of the interval, seconds since the epoch, and its length.
    pub timestamp: f64,
    pub interval: f64,
    /// A process: it ended in this interval (this is its last message).
    pub ended: bool,
    /// Processes a job message adds up.
    pub processes: usize,
    /// LDMS's per-operation fields, for the interval: reads + writes.
    pub cnt: i64,
    /// LDMS names a file; an interval covers many: "N/A" as LDMS's own
    /// "MOD" messages say, record_id 0, module "ALL".
    pub file: &'static str,
    pub record_id: u64,
    pub module: &'static str,
    /// The interval's deltas per module.
    pub modules: &'a BTreeMap<String, Totals>,
}

fn cnt(m: &BTreeMap<String, Totals>) -> i64 {
    m.iter()
        .filter(|(k, _)| crate::totals::reaches_files(k))
        .map(|(_, t)| t.reads.wrapping_add(t.writes))
        .fold(0, i64::wrapping_add)
}

/// A message with the fields every one has; the caller fills in whose.
fn message<'a>(iv: &Interval, producer: &'a str, modules: &'a BTreeMap<String, Totals>) -> Message<'a> {
    Message {
        schema: "darshan_live",
        version: 1,
        kind: "process",
        uid: 0,
        exe: "",
        job_id: 0,
        job_key: "",
        rank: -1,
        producer,
        timestamp: iv.at,
        interval: iv.seconds,
        ended: false,
        processes: 1,
        cnt: cnt(modules),
        file: "N/A",
        record_id: 0,
        module: "ALL",
        modules,
    }
}

/// The interval's messages: (subject suffix, JSON). Processes that did
/// nothing this interval (and did not end) send none.
pub fn messages(iv: &Interval, producer: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for p in iv.processes.iter().filter(|p| p.ended || !p.delta.values().all(Totals::is_zero)) {
        let m = Message {
            uid: p.uid,
            exe: &p.exe,
            job_id: p.jobid,
            job_key: &p.job_key,
            rank: p.rank,
            ended: p.ended,
            ..message(iv, producer, &p.delta)
        };
        out.push(("process", serde_json::to_string(&m).unwrap_or_default()));
    }
    for j in iv.jobs.iter().filter(|j| !j.delta.values().all(Totals::is_zero)) {
        let m = Message {
            kind: "job",
            uid: j.uid,
            exe: &j.exe,
            job_id: j.jobid,
            job_key: &j.job_key,
            processes: j.processes,
            ..message(iv, producer, &j.delta)
        };
        out.push(("job", serde_json::to_string(&m).unwrap_or_default()));
    }
    out
}

/// One job's counters since the daemon first saw it.
#[derive(Clone, Debug, Default)]
struct JobCounters {
    jobid: i64,
    uid: i64,
    exe: String,
    running: usize,
    totals: BTreeMap<String, Totals>,
    /// When it was last seen with a running process (seconds since the epoch).
    last: f64,
}

/// The Prometheus side: per job and module, counters that only grow.
/// A job is dropped `keep` seconds after its last process ended, so the
/// daemon's memory follows the node's jobs, not its uptime.
#[derive(Debug, Default)]
pub struct Metrics {
    /// By owner and job key (a user's process never adds to another's job).
    jobs: BTreeMap<(i64, String), JobCounters>,
    /// Files refused (not a regular file, a uid not their owner's,
    /// records claimed but not held ...), summed over intervals.
    pub refused: u64,
    /// Files not followed for the memory limit, summed over intervals.
    pub over_memory: u64,
    pub intervals: u64,
    pub files: usize,
    pub dropped: u64,
    pub published: u64,
    pub keep: f64,
}

/// A label value in the text format: backslash, quote and newline escaped.
pub fn label(v: &str) -> String {
    let mut o = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o
}

impl Metrics {
    pub fn new(keep: f64) -> Metrics {
        Metrics { keep, ..Default::default() }
    }

    pub fn add(&mut self, iv: &Interval) {
        self.intervals += 1;
        // Running processes per job, counted in one pass (a node of a
        // thousand one-process jobs would otherwise compare every job
        // with every process).
        self.refused += iv.refused.len() as u64;
        self.over_memory += iv.over_memory as u64;
        let mut running: std::collections::HashMap<(i64, &str), usize> = std::collections::HashMap::new();
        for p in iv.processes.iter().filter(|p| !p.ended) {
            *running.entry((p.uid, p.job_key.as_str())).or_default() += 1;
        }
        for ((uid, key), j) in self.jobs.iter_mut() {
            j.running = running.get(&(*uid, key.as_str())).copied().unwrap_or(0);
        }
        for jv in &iv.jobs {
            let j = self.jobs.entry((jv.uid, jv.job_key.clone())).or_default();
            j.jobid = jv.jobid;
            j.uid = jv.uid;
            j.exe = jv.exe.split_whitespace().next().unwrap_or("").rsplit('/').next().unwrap_or("").to_string();
            j.running = running.get(&(jv.uid, jv.job_key.as_str())).copied().unwrap_or(0);
            j.last = iv.at;
            for (m, t) in &jv.delta {
                j.totals.entry(m.clone()).or_default().add(t);
            }
        }
        let keep = self.keep;
        self.jobs.retain(|_, j| j.running > 0 || iv.at - j.last < keep);
    }

    /// The Prometheus text exposition (format 0.0.4).
    pub fn render(&self, node: &str) -> String {
        let mut o = String::new();
        let node = label(node);
        self.job_series(&mut o, &node);
        self.processes(&mut o, &node);
        self.own_counters(&mut o, &node);
        o
    }

    /// Each job's totals per module: bytes, operations, seconds.
    fn job_series(&self, o: &mut String, node: &str) {
        type Get = fn(&Totals) -> f64;
        let series: [(&str, &str, Option<&str>, Get); 8] = [
            ("darshan_bytes_read_total", "Bytes read", None, |t| t.bytes_read as f64),
            ("darshan_bytes_written_total", "Bytes written", None, |t| t.bytes_written as f64),
            (
                "darshan_operations_total",
                "Operations (read, write, meta: opens, stats, seeks, syncs, namespace calls)",
                Some("read"),
                |t| t.reads as f64,
            ),
            ("darshan_operations_total", "", Some("write"), |t| t.writes as f64),
            ("darshan_operations_total", "", Some("meta"), |t| t.meta_ops as f64),
            ("darshan_io_seconds_total", "Seconds in I/O calls (read, write, meta)", Some("read"), |t| t.read_time),
            ("darshan_io_seconds_total", "", Some("write"), |t| t.write_time),
            ("darshan_io_seconds_total", "", Some("meta"), |t| t.meta_time),
        ];
        for (name, help, op, get) in series {
            if !help.is_empty() {
                let _ = writeln!(o, "# HELP {name} {help}, per job and module, as Darshan counts them.");
                let _ = writeln!(o, "# TYPE {name} counter");
            }
            for ((_, key), j) in &self.jobs {
                for (m, t) in &j.totals {
                    let op = op.map(|v| format!(",op=\"{v}\"")).unwrap_or_default();
                    let _ = writeln!(
                        o,
                        "{name}{{node=\"{node}\",job_key=\"{}\",jobid=\"{}\",uid=\"{}\",exe=\"{}\",module=\"{}\"{op}}} {}",
                        label(key),
                        j.jobid,
                        j.uid,
                        label(&j.exe),
                        label(m),
                        get(t)
                    );
                }
            }
        }
    }

    /// Each job's processes running on this node.
    fn processes(&self, o: &mut String, node: &str) {
        let _ = writeln!(
            o,
            "# HELP darshan_processes Processes of the job running on this node.\n# TYPE darshan_processes gauge"
        );
        for ((_, key), j) in &self.jobs {
            let _ = writeln!(
                o,
                "darshan_processes{{node=\"{node}\",job_key=\"{}\",jobid=\"{}\"}} {}",
                label(key),
                j.jobid,
                j.running
            );
        }
    }

    /// The stream's own counters.
    fn own_counters(&self, o: &mut String, node: &str) {
        let _ = writeln!(o, "# HELP darshan_stream_intervals_total Intervals read.\n# TYPE darshan_stream_intervals_total counter\ndarshan_stream_intervals_total{{node=\"{node}\"}} {}", self.intervals);
        let _ = writeln!(o, "# HELP darshan_stream_messages_total Messages published.\n# TYPE darshan_stream_messages_total counter\ndarshan_stream_messages_total{{node=\"{node}\"}} {}", self.published);
        let _ = writeln!(o, "# HELP darshan_stream_dropped_total Messages dropped (the server slow or away).\n# TYPE darshan_stream_dropped_total counter\ndarshan_stream_dropped_total{{node=\"{node}\"}} {}", self.dropped);
        let _ = writeln!(o, "# HELP darshan_stream_refused_total Crash-safe files refused (not a regular file, a uid not their owner's, records claimed but not held, too large), summed over intervals.\n# TYPE darshan_stream_refused_total counter\ndarshan_stream_refused_total{{node=\"{node}\"}} {}", self.refused);
        let _ = writeln!(o, "# HELP darshan_stream_over_memory_total Crash-safe files not followed for the memory limit, summed over intervals.\n# TYPE darshan_stream_over_memory_total counter\ndarshan_stream_over_memory_total{{node=\"{node}\"}} {}", self.over_memory);
        let _ = writeln!(o, "# HELP darshan_stream_files Crash-safe files read in the last interval.\n# TYPE darshan_stream_files gauge\ndarshan_stream_files{{node=\"{node}\"}} {}", self.files);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_cannot_break_the_format() {
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
