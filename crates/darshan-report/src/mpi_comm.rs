//! The MPI communication section, from AutoPerf's APMPI records as
//! [`darshan_util::mpi_comm`] adds them up (PyDarshan reads these records
//! and shows nothing of them): how long each rank spent in MPI calls other
//! than I/O, which operations took that time, and how many bytes they
//! moved. It tells a job whose time goes to communication from one whose
//! time goes to I/O. Read whatever the install says: this section is ours,
//! not a copy of a C tool's output.

use darshan_log::LogFile;
use darshan_util::mpi_comm::{self, CommTotals, Fault, RankTime};

use crate::model::{MpiComm, MpiOp, MpiRank};

/// The section, and how many records were read; a warning instead when
/// the region cannot be read at all (what was read before a fault is
/// kept, with a warning).
pub fn collect(log: &LogFile, top: usize, warnings: &mut Vec<String>) -> (Option<MpiComm>, u64) {
    let read = mpi_comm::read(log);
    match &read.fault {
        Some(Fault::Unreadable(e)) => {
            warnings.push(format!("APMPI records could not be read ({e}); the module is left out."))
        }
        Some(Fault::After { records, why }) => {
            warnings.push(format!("APMPI records after the first {records} could not be read ({why})."))
        }
        None => {}
    }
    (read.totals.map(|t| section(t, top)), read.records)
}

fn rank(r: RankTime) -> MpiRank {
    MpiRank { rank: r.rank, seconds: r.seconds }
}

/// The `top` operations with most time, each with its share of all ranks'
/// communication seconds.
fn section(t: CommTotals, top: usize) -> MpiComm {
    let total = t.seconds;
    let ops = t.ops.iter().take(top).map(|o| MpiOp {
        name: o.name.to_string(),
        calls: o.calls,
        bytes: o.bytes,
        seconds: o.seconds,
        share: if total > 0.0 { o.seconds / total } else { 0.0 },
        max_call_seconds: o.max_call_seconds,
    });
    MpiComm {
        ranks: t.ranks,
        nodes: t.nodes,
        mean_seconds: t.mean_seconds(),
        run_share: 0.0,
        variance: t.variance,
        sync_measured: t.sync_measured,
        sync_seconds: t.sync_seconds,
        operations_called: t.ops.len(),
        ops: ops.collect(),
        least: rank(t.least),
        most: rank(t.most),
    }
}
