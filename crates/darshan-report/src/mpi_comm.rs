//! The MPI communication section, from AutoPerf's APMPI records (a C
//! Darshan built with `--enable-apmpi-mod` writes them; PyDarshan reads
//! them and shows nothing of them): how long each rank spent in MPI calls
//! other than I/O, which operations took that time, and how many bytes
//! they moved. It tells a job whose time goes to communication from one
//! whose time goes to I/O. Read whatever the install says: this section
//! is ours, not a copy of a C tool's output.

use std::collections::BTreeSet;

use darshan_log::autoperf::{Apmpi, ApmpiReader};
use darshan_log::counters::apmpi as c;
use darshan_log::LogFile;

use crate::model::{MpiComm, MpiOp, MpiRank};

/// What the records add up to while they stream past.
struct Acc {
    out: MpiComm,
    calls: Vec<u64>,
    bytes: Vec<u64>,
    time: Vec<f64>,
    max_call: Vec<f64>,
    sum_comm: f64,
    nodes: BTreeSet<Vec<u8>>,
}

/// The section, and how many records were read; a warning instead when
/// the region cannot be read at all (what was read before a fault is
/// kept, with a warning).
pub fn collect(log: &LogFile, top: usize, warnings: &mut Vec<String>) -> (Option<MpiComm>, u64) {
    let mut rd = match ApmpiReader::new(log) {
        Ok(rd) => rd,
        Err(e) => {
            warnings.push(format!("APMPI records could not be read ({e}); the module is left out."));
            return (None, 0);
        }
    };
    let mut acc = Acc {
        out: MpiComm::default(),
        calls: vec![0; c::NUM_OPS],
        bytes: vec![0; c::NUM_OPS],
        time: vec![0.0; c::NUM_OPS],
        max_call: vec![0.0; c::NUM_OPS],
        sum_comm: 0.0,
        nodes: BTreeSet::new(),
    };
    let mut records = 0;
    loop {
        match rd.next_record() {
            Ok(Some(rec)) => acc.add(&rec),
            Ok(None) => break,
            Err(e) => {
                warnings.push(format!("APMPI records after the first {records} could not be read ({e})."));
                break;
            }
        }
        records += 1;
    }
    (acc.finish(top), records)
}

/// A time a record holds, as a time: NaN and negative ones are none.
fn secs(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

impl Acc {
    fn add(&mut self, rec: &Apmpi) {
        let p = match rec {
            Apmpi::Header(h) => {
                self.out.sync_measured = h.sync_flag != 0;
                self.out.variance = secs(h.variance_total_mpitime);
                return;
            }
            Apmpi::Perf(p) => p,
        };
        let comm = secs(p.global[0]);
        let rank = MpiRank { rank: p.rank, seconds: comm };
        if self.out.ranks == 0 || comm < self.out.least.seconds {
            self.out.least = rank.clone();
        }
        if self.out.ranks == 0 || comm > self.out.most.seconds {
            self.out.most = rank;
        }
        self.out.ranks += 1;
        self.sum_comm += comm;
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

    fn finish(mut self, top: usize) -> Option<MpiComm> {
        if self.out.ranks == 0 {
            return None;
        }
        self.out.mean_seconds = self.sum_comm / self.out.ranks as f64;
        self.out.nodes = self.nodes.len();
        let mut ops: Vec<MpiOp> = c::OPS
            .iter()
            .enumerate()
            .filter(|&(k, _)| self.calls[k] > 0)
            .map(|(k, op)| MpiOp {
                name: op.name.to_string(),
                calls: self.calls[k],
                bytes: op.bytes.map(|_| self.bytes[k]),
                seconds: self.time[k],
                share: if self.sum_comm > 0.0 { self.time[k] / self.sum_comm } else { 0.0 },
                max_call_seconds: self.max_call[k],
            })
            .collect();
        // Most time first; the format's order among equals.
        ops.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        self.out.operations_called = ops.len();
        ops.truncate(top);
        self.out.ops = ops;
        Some(self.out)
    }
}
