//! A log's APMPI records (AutoPerf's MPI profile) into the `mpi_comm` and
//! `mpi_ops` rows, as darshan_util::mpi_comm adds them up: the same figures
//! darshan-summary's MPI communication section shows. Stored whatever the
//! install says about darshan-parser: a facility that runs AutoPerf wants
//! its jobs' communication beside their I/O.

use darshan_log::LogFile;
use darshan_util::mpi_comm::{self, CommTotals, Fault};

use crate::rows::{Row, Sink, Value};

/// The tables' indices in the schema.
#[derive(Clone, Copy, Debug)]
pub struct MpiTables {
    pub comm: usize,
    pub ops: usize,
}

/// What the module's `modules` row says (records read, and why reading
/// stopped early), and the totals for the job's facts.
pub struct MpiOutcome {
    pub records: u64,
    pub error: Option<String>,
    pub totals: Option<CommTotals>,
}

/// Read the region, send its rows (none when no rank's record was read).
pub fn stream(log: &LogFile, tables: MpiTables, sink: &mut dyn Sink) -> MpiOutcome {
    let read = mpi_comm::read(log);
    let error = read.fault.map(|f| match f {
        Fault::Unreadable(e) => e.to_string(),
        Fault::After { records, why } => format!("records after the first {records} could not be read: {why}"),
    });
    if let Some(t) = &read.totals {
        sink.rows(tables.comm, vec![comm_row(t)]);
        if !t.ops.is_empty() {
            sink.rows(tables.ops, ops_rows(t));
        }
    }
    MpiOutcome { records: read.records, error, totals: read.totals }
}

/// A count as SQLite and Parquet hold it (signed 64 bits, saturating).
fn int(v: u64) -> Value {
    Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

fn comm_row(t: &CommTotals) -> Row {
    vec![
        int(t.ranks),
        int(t.nodes as u64),
        Value::Real(t.seconds),
        Value::Real(t.mean_seconds()),
        Value::Int(t.least.rank),
        Value::Real(t.least.seconds),
        Value::Int(t.most.rank),
        Value::Real(t.most.seconds),
        Value::Real(t.variance),
        Value::Int(t.sync_measured as i64),
        Value::Real(t.sync_seconds),
        int(t.ops.len() as u64),
    ]
}

fn ops_rows(t: &CommTotals) -> Vec<Row> {
    let row = |o: &mpi_comm::OpTotal| {
        vec![
            Value::Text(o.name.to_string()),
            int(o.calls),
            o.bytes.map_or(Value::Null, int),
            Value::Real(o.seconds),
            Value::Real(o.max_call_seconds),
        ]
    };
    t.ops.iter().map(row).collect()
}
