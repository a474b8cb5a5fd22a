//! The tables, one definition shared by the SQLite store and the Parquet
//! export, so both hold the same columns under the same names (the study's
//! SQL runs unchanged on either).
//!
//! Counter columns keep Darshan's names (`POSIX_BYTES_READ`), as
//! darshan-parser prints them and PyDarshan's data frames name them.

use darshan_log::modules::{self, counter_names, module_name};
use darshan_util::accum;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColType {
    Int,
    Real,
    Text,
}

impl ColType {
    pub fn sql(self) -> &'static str {
        match self {
            ColType::Int => "INTEGER",
            ColType::Real => "REAL",
            ColType::Text => "TEXT",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Column {
    pub name: String,
    pub ty: ColType,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Logs,
    Jobs,
    Modules,
    /// One row per record (per file and rank, or a shared record) of a
    /// fixed-layout module.
    Records(usize),
    /// One row per job: the module's `darshan-parser --total` line.
    Totals(usize),
    /// HEATMAP bins, one row per (source, rank, bin) with data.
    Heatmap,
    /// LUSTRE striping: one row per OST of a file.
    LustreOsts,
    /// What history compares a job on (crate::facts): one row per
    /// (module or "job", fact) that is not 0.
    Facts,
    /// A job's MPI communication from AutoPerf's APMPI records
    /// (darshan_util::mpi_comm): one row per log that has them.
    MpiComm,
    /// Its operations: one row per (log, operation called).
    MpiOps,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub kind: Kind,
    pub columns: Vec<Column>,
}

impl Table {
    pub fn create_sql(&self) -> String {
        let cols: Vec<String> = self.columns.iter().map(|c| format!("\"{}\" {}", c.name, c.ty.sql())).collect();
        // The facts are read by log: kept in log order in their own
        // b-tree, with no second index to maintain per row (a third of
        // the ingest's time otherwise).
        let clustered =
            if self.kind == Kind::Facts { ", PRIMARY KEY (log_id, module, fact)) WITHOUT ROWID" } else { ")" };
        format!("CREATE TABLE IF NOT EXISTS {} ({}{clustered}", self.name, cols.join(", "))
    }

    /// Whether the table needs an index on log_id of its own.
    pub fn indexed_by_log(&self) -> bool {
        !matches!(self.kind, Kind::Logs | Kind::Facts)
    }

    /// Columns named: a table an upgrade added columns to has them last.
    pub fn insert_sql(&self) -> String {
        let marks = vec!["?"; self.columns.len()].join(",");
        let names: Vec<String> = self.columns.iter().map(|c| format!("\"{}\"", c.name)).collect();
        format!("INSERT INTO {} ({}) VALUES ({marks})", self.name, names.join(","))
    }
}

/// Modules whose records have a fixed counter layout (a table each).
pub fn record_modules() -> Vec<usize> {
    modules::known_ids().filter(|&m| m != modules::NULL && !counter_names(m).0.is_empty()).collect()
}

/// Modules darshan-parser prints `--total` for (a totals table each).
pub fn totals_modules() -> Vec<usize> {
    record_modules().into_iter().filter(|&m| accum::supported(m)).collect()
}

/// `posix`, `mpiio`, `bgq`, `pnetcdf_file`: the module's name as a table stem.
pub fn stem(module: usize) -> String {
    module_name(module).to_ascii_lowercase().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

fn cols(spec: &[(&str, ColType)]) -> Vec<Column> {
    spec.iter().map(|(n, t)| Column { name: n.to_string(), ty: *t }).collect()
}

fn counters(module: usize) -> Vec<Column> {
    let (c, f) = counter_names(module);
    let ints = c.iter().map(|n| Column { name: n.to_string(), ty: ColType::Int });
    ints.chain(f.iter().map(|n| Column { name: n.to_string(), ty: ColType::Real })).collect()
}

/// Modules whose records name the file record they belong to (a dataset
/// or variable of an HDF5 or netCDF file).
pub fn has_file_rec_id(module: usize) -> bool {
    module == modules::H5D || module == modules::PNETCDF_VAR
}

/// A table whose columns are the same for every log.
type Fixed = (&'static str, Kind, &'static [(&'static str, ColType)]);

/// The tables before the per-module ones.
const HEAD: &[Fixed] = {
    use ColType::*;
    &[
        (
            "logs",
            Kind::Logs,
            &[
                ("log_id", Int),
                ("content_key", Text),
                ("path", Text),
                ("file_size", Int),
                ("status", Text),
                ("error", Text),
                ("ingested_at", Int),
            ],
        ),
        (
            "jobs",
            Kind::Jobs,
            &[
                ("log_id", Int),
                ("jobid", Int),
                ("uid", Int),
                ("username", Text),
                ("exe", Text),
                ("app", Text),
                ("nprocs", Int),
                ("start_time", Int),
                ("end_time", Int),
                ("run_time", Real),
                ("core_hours", Real),
                ("log_version", Text),
                ("runtime_version", Text),
                ("metadata", Text),
                // What the runtime said it cost (darshan_cost_*), NULL
                // for logs without it (C Darshan's).
                ("cost_startup_us", Int),
                ("cost_shutdown_us", Int),
                ("cost_calls", Int),
                ("cost_est_us", Int),
                ("cost_share_pct", Real),
            ],
        ),
        (
            "modules",
            Kind::Modules,
            &[
                ("log_id", Int),
                ("module", Text),
                ("version", Int),
                ("records", Int),
                ("compressed_bytes", Int),
                ("partial", Int),
                ("error", Text),
            ],
        ),
    ]
};

/// The tables after the per-module ones.
const TAIL: &[Fixed] = {
    use ColType::*;
    &[
        (
            "heatmap",
            Kind::Heatmap,
            &[
                ("log_id", Int),
                ("source", Text),
                ("rank", Int),
                ("bin", Int),
                ("bin_width", Real),
                ("read_bytes", Int),
                ("write_bytes", Int),
            ],
        ),
        ("job_facts", Kind::Facts, &[("log_id", Int), ("module", Text), ("fact", Text), ("value", Real)]),
        (
            "lustre_osts",
            Kind::LustreOsts,
            &[
                ("log_id", Int),
                ("record_id", Int),
                ("rank", Int),
                ("stripe_size", Int),
                ("stripe_count", Int),
                ("ost_id", Int),
            ],
        ),
        (
            "mpi_comm",
            Kind::MpiComm,
            &[
                ("log_id", Int),
                ("ranks", Int),
                ("nodes", Int),
                ("comm_seconds", Real),
                ("mean_seconds", Real),
                ("least_rank", Int),
                ("least_seconds", Real),
                ("most_rank", Int),
                ("most_seconds", Real),
                ("variance", Real),
                ("sync_measured", Int),
                ("sync_seconds", Real),
                ("operations_called", Int),
            ],
        ),
        (
            "mpi_ops",
            Kind::MpiOps,
            &[
                ("log_id", Int),
                ("operation", Text),
                ("calls", Int),
                ("bytes", Int),
                ("seconds", Real),
                ("max_call_seconds", Real),
            ],
        ),
    ]
};

pub fn tables() -> Vec<Table> {
    let fixed = |list: &'static [Fixed]| {
        list.iter().map(|&(name, kind, columns)| Table { name: name.into(), kind, columns: cols(columns) })
    };
    let mut t: Vec<Table> = fixed(HEAD).collect();
    t.extend(record_modules().into_iter().map(records_table));
    t.extend(totals_modules().into_iter().map(totals_table));
    t.extend(fixed(TAIL));
    t
}

/// A module's records: where each came from, then its counters.
fn records_table(m: usize) -> Table {
    use ColType::*;
    let mut c = cols(&[
        ("log_id", Int),
        ("record_id", Int),
        ("rank", Int),
        ("file_name", Text),
        ("mount_point", Text),
        ("fs_type", Text),
    ]);
    if has_file_rec_id(m) {
        c.push(Column { name: "file_rec_id".into(), ty: Int });
    }
    c.extend(counters(m));
    Table { name: format!("{}_records", stem(m)), kind: Kind::Records(m), columns: c }
}

/// A module's totals over a log's records (darshan-parser --total).
fn totals_table(m: usize) -> Table {
    let mut c = cols(&[("log_id", ColType::Int)]);
    c.extend(counters(m));
    Table { name: format!("{}_totals", stem(m)), kind: Kind::Totals(m), columns: c }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_name_and_column_is_unique_and_posix_keeps_darshan_names() {
        let t = tables();
        let mut names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), t.len());
        for table in &t {
            let mut c: Vec<String> = table.columns.iter().map(|c| c.name.to_ascii_lowercase()).collect();
            c.sort();
            c.dedup();
            assert_eq!(c.len(), table.columns.len(), "{}", table.name);
        }
        let posix = t.iter().find(|t| t.name == "posix_records").unwrap();
        assert!(posix.columns.iter().any(|c| c.name == "POSIX_BYTES_READ" && c.ty == ColType::Int));
        assert!(posix.columns.iter().any(|c| c.name == "POSIX_F_META_TIME" && c.ty == ColType::Real));
        assert!(t.iter().any(|t| t.name == "mpiio_totals"));
        assert!(t.iter().any(|t| t.name == "bgq_records"));
    }
}
