//! A job's MPI communication, added up from AutoPerf's APMPI records (a C
//! Darshan built with `--enable-apmpi-mod` writes them): how long the
//! ranks spent in MPI calls other than I/O, and which operations took that
//! time. One set of rules for darshan-summary's section and
//! darshan-ingest's tables, whatever the install says about darshan-parser
//! (these are our tools' findings, not a copy of a C tool's output).
//!
//! The records are as hostile as any: a time that is NaN or negative is
//! no time, and counts add up saturating.

use std::collections::BTreeSet;

use darshan_log::autoperf::{Apmpi, ApmpiReader, Perf};
use darshan_log::counters::apmpi as c;
use darshan_log::{LogError, LogFile};

/// A rank and its seconds in MPI communication.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RankTime {
    pub rank: i64,
    pub seconds: f64,
}

/// One MPI operation over all ranks.
#[derive(Clone, Debug, PartialEq)]
pub struct OpTotal {
    /// As the format names it (`MPI_ALLREDUCE`).
    pub name: &'static str,
    pub calls: u64,
    /// Bytes moved; None for an operation that moves no data.
    pub bytes: Option<u64>,
    pub seconds: f64,
    /// The longest one call took, on any rank.
    pub max_call_seconds: f64,
}

/// A job's communication, over the ranks that have a record.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CommTotals {
    pub ranks: u64,
    /// Distinct processor names among them.
    pub nodes: usize,
    /// The ranks' communication seconds, added up.
    pub seconds: f64,
    pub least: RankTime,
    pub most: RankTime,
    /// The ranks' variance of their communication seconds (the header's).
    pub variance: f64,
    /// Whether the collectives' sync time was measured (the runtime's
    /// `--enable-apmpi-coll-sync`), and its sum over the ranks.
    pub sync_measured: bool,
    pub sync_seconds: f64,
    /// Every operation called at all, most time first (the format's
    /// order among equals).
    pub ops: Vec<OpTotal>,
}

impl CommTotals {
    /// Seconds a rank spent in MPI communication, on average.
    pub fn mean_seconds(&self) -> f64 {
        if self.ranks == 0 {
            0.0
        } else {
            self.seconds / self.ranks as f64
        }
    }
}

/// Where reading the region stopped early.
#[derive(Debug)]
pub enum Fault {
    /// The region cannot be read at all (a version this layout is not).
    Unreadable(LogError),
    /// Records after the first `records` could not be read.
    After { records: u64, why: LogError },
}

/// What a log's APMPI region adds up to.
#[derive(Debug, Default)]
pub struct CommRead {
    /// None when no rank's record was read.
    pub totals: Option<CommTotals>,
    /// Records read, the header included.
    pub records: u64,
    pub fault: Option<Fault>,
}

/// The log's APMPI region, added up; what was read before a fault is kept.
pub fn read(log: &LogFile) -> CommRead {
    let mut rd = match ApmpiReader::new(log) {
        Ok(rd) => rd,
        Err(e) => return CommRead { fault: Some(Fault::Unreadable(e)), ..CommRead::default() },
    };
    let mut acc = Acc::default();
    let mut out = CommRead::default();
    loop {
        match rd.next_record() {
            Ok(Some(rec)) => acc.add(&rec),
            Ok(None) => break,
            Err(why) => {
                out.fault = Some(Fault::After { records: out.records, why });
                break;
            }
        }
        out.records += 1;
    }
    out.totals = acc.finish();
    out
}

/// A time a record holds, as a time: NaN and negative ones are none.
fn secs(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

/// What the records add up to while they stream past.
struct Acc {
    out: CommTotals,
    calls: Vec<u64>,
    bytes: Vec<u64>,
    time: Vec<f64>,
    max_call: Vec<f64>,
    nodes: BTreeSet<Vec<u8>>,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            out: CommTotals::default(),
            calls: vec![0; c::NUM_OPS],
            bytes: vec![0; c::NUM_OPS],
            time: vec![0.0; c::NUM_OPS],
            max_call: vec![0.0; c::NUM_OPS],
            nodes: BTreeSet::new(),
        }
    }
}

impl Acc {
    fn add(&mut self, rec: &Apmpi) {
        match rec {
            Apmpi::Header(h) => {
                self.out.sync_measured = h.sync_flag != 0;
                self.out.variance = secs(h.variance_total_mpitime);
            }
            Apmpi::Perf(p) => self.add_rank(p),
        }
    }

    fn add_rank(&mut self, p: &Perf) {
        let comm = secs(p.global[0]);
        let rank = RankTime { rank: p.rank, seconds: comm };
        if self.out.ranks == 0 || comm < self.out.least.seconds {
            self.out.least = rank.clone();
        }
        if self.out.ranks == 0 || comm > self.out.most.seconds {
            self.out.most = rank;
        }
        self.out.ranks += 1;
        self.out.seconds += comm;
        self.out.sync_seconds += secs(p.global[1]);
        self.nodes.insert(p.node_name().to_vec());
        for (k, op) in c::OPS.iter().enumerate() {
            self.calls[k] = self.calls[k].saturating_add(p.counters[op.calls]);
            if let Some(b) = op.bytes {
                self.bytes[k] = self.bytes[k].saturating_add(p.counters[b]);
            }
            self.time[k] += secs(p.time[3 * k]);
            self.max_call[k] = self.max_call[k].max(secs(p.time[3 * k + 2]));
        }
    }

    fn finish(mut self) -> Option<CommTotals> {
        if self.out.ranks == 0 {
            return None;
        }
        self.out.nodes = self.nodes.len();
        let mut ops: Vec<OpTotal> = c::OPS
            .iter()
            .enumerate()
            .filter(|&(k, _)| self.calls[k] > 0)
            .map(|(k, op)| OpTotal {
                name: op.name,
                calls: self.calls[k],
                bytes: op.bytes.map(|_| self.bytes[k]),
                seconds: self.time[k],
                max_call_seconds: self.max_call[k],
            })
            .collect();
        // Most time first; the format's order among equals (a stable sort).
        ops.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        self.out.ops = ops;
        Some(self.out)
    }
}
