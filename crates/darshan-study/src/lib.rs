//! darshan-study: the seed papers' facility-wide study from a
//! darshan-ingest database, as one self-contained HTML page or JSON:
//! Intrepid's tables (job sizes, interfaces, sharing, access sizes,
//! read/write mix, I/O time, top producers and consumers), the Cray XE6
//! study's three job metrics, and the JSC and FSU metrics over the
//! facility's timeline. docs/facility.md defines every figure.
#![forbid(unsafe_code)]

pub mod calibrate;
pub mod error;
pub mod queries;
pub mod regressions;
pub mod render;
pub mod timeline;

use std::path::Path;
use std::time::Instant;

use darshan_report::diagnose::Config;
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

pub use error::{CalibrationError, StudyError};

pub const SCHEMA: &str = "darshan-study/1";

pub struct Options {
    /// Δt of the timeline, seconds.
    pub interval: f64,
    /// The FSU coefficients (darshan-summary's config file layout).
    pub config: Config,
}

impl Default for Options {
    fn default() -> Self {
        Options { interval: 600.0, config: Config::default() }
    }
}

#[derive(Debug, Serialize, Default)]
pub struct LogCounts {
    pub total: i64,
    pub ok: i64,
    pub partial: i64,
    pub error: i64,
}

#[derive(Debug, Serialize)]
pub struct BadLog {
    pub path: String,
    pub status: String,
    pub error: String,
}

/// The FSU coefficients used, and the config file they came from.
#[derive(Debug, Serialize)]
pub struct FsuCoefficients {
    #[serde(flatten)]
    pub coefficients: timeline::Fsu,
    pub source: String,
}

#[derive(Debug, Serialize)]
pub struct Study {
    pub schema: &'static str,
    pub database: String,
    pub logs: LogCounts,
    /// Logs that could not be read, or only in part (first 100).
    pub bad_logs: Vec<BadLog>,
    pub first_job_start: i64,
    pub last_job_end: i64,
    pub tables: Vec<queries::Table>,
    pub timeline: timeline::Timeline,
    pub fsu: FsuCoefficients,
    /// Per application, the runs that moved beyond their own history.
    pub regressions: regressions::Regressions,
    /// Wall time of the SQL queries and of the timeline.
    pub query_seconds: f64,
    pub timeline_seconds: f64,
}

impl Study {
    pub fn table(&self, name: &str) -> Option<&queries::Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

pub fn open(db: &Path) -> Result<Connection, StudyError> {
    // SQLite opens them by name, through links: a centre's study as root
    // must not open (and, read-write, checkpoint into) what another
    // user's link names.
    darshan_log::safe_fs::sqlite_files_plain(db).map_err(|why| StudyError::Refused { path: db.into(), why })?;
    if !db.is_file() {
        return Err(StudyError::NoDatabase(db.into()));
    }
    // The study only reads (its views are temporary), but a read-only
    // connection to a WAL database leaves its -wal and -shm files behind
    // it; a read-write one removes them on close. Read-only where the
    // database cannot be written.
    let rw = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let ro = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let c = Connection::open_with_flags(db, rw)
        .or_else(|_| Connection::open_with_flags(db, ro))
        .map_err(|e| StudyError::Open { path: db.into(), source: e })?;
    let ok: bool = c
        .query_row("SELECT COUNT(*) FROM sqlite_master WHERE name IN ('jobs', 'logs', 'posix_records')", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|n| n == 3)
        .map_err(|e| StudyError::Open { path: db.into(), source: e })?;
    if !ok {
        return Err(StudyError::NotIngest(db.into()));
    }
    stand_in_for_missing_tables(&c).map_err(|e| StudyError::Open { path: db.into(), source: e })?;
    Ok(c)
}

/// Tables a database ingested by an older darshan-ingest may lack:
/// `io_uring_records` (before IO_URING), `mpi_comm` and `mpi_ops` (before
/// schema 5).
const LATER_TABLES: [&str; 3] = ["io_uring_records", "mpi_comm", "mpi_ops"];

/// Each of [`LATER_TABLES`] a database lacks is read as one without rows,
/// with the schema's columns (a temporary view: the database itself is
/// never changed by a study).
fn stand_in_for_missing_tables(c: &Connection) -> rusqlite::Result<()> {
    use darshan_ingest::schema::ColType;
    for t in darshan_ingest::schema::tables().into_iter().filter(|t| LATER_TABLES.contains(&t.name.as_str())) {
        let present: i64 =
            c.query_row("SELECT COUNT(*) FROM sqlite_master WHERE name = ?1", [&t.name], |r| r.get(0))?;
        if present > 0 {
            continue;
        }
        let zero = |ty| match ty {
            ColType::Int => "0",
            ColType::Real => "0.0",
            ColType::Text => "''",
        };
        let cols: Vec<String> = t.columns.iter().map(|c| format!("{} AS \"{}\"", zero(c.ty), c.name)).collect();
        c.execute_batch(&format!("CREATE TEMPORARY VIEW {} AS SELECT {} WHERE 0", t.name, cols.join(", ")))?;
    }
    Ok(())
}

pub fn study(db: &Path, opts: &Options) -> Result<Study, StudyError> {
    if !(opts.interval.is_finite() && opts.interval > 0.0) {
        return Err(StudyError::Interval(opts.interval));
    }
    let conn = open(db)?;
    let logs = log_counts(&conn, db)?;
    let bad_logs = {
        let mut st = conn
            .prepare(
                "SELECT path, status, COALESCE(error, '') FROM logs WHERE status IN ('error', 'partial') ORDER BY status, path LIMIT 100",
            )
            ?;
        let rows = st.query_map([], |r| Ok(BadLog { path: r.get(0)?, status: r.get(1)?, error: r.get(2)? }))?;
        rows.collect::<Result<Vec<_>, _>>()?
    };
    let (first, last): (Option<i64>, Option<i64>) =
        conn.query_row("SELECT MIN(start_time), MAX(end_time) FROM jobs", [], |r| Ok((r.get(0)?, r.get(1)?)))?;
    let t0 = Instant::now();
    let tables = queries::run_all(&conn)?;
    let query_seconds = t0.elapsed().as_secs_f64();
    let c = |k: &str| opts.config.get(k);
    let fsu = timeline::Fsu {
        a0_read: c("fsu_a0_read"),
        a1_read: c("fsu_a1_read"),
        a0_write: c("fsu_a0_write"),
        a1_write: c("fsu_a1_write"),
    };
    let t1 = Instant::now();
    let timeline = timeline::compute(&conn, opts.interval, fsu)?;
    let timeline_seconds = t1.elapsed().as_secs_f64();
    let regressions = regressions::compute(&conn)?;
    Ok(Study {
        schema: SCHEMA,
        database: db.display().to_string(),
        logs,
        bad_logs,
        first_job_start: first.unwrap_or(0),
        last_job_end: last.unwrap_or(0),
        tables,
        timeline,
        fsu: FsuCoefficients { coefficients: fsu, source: opts.config.source.clone() },
        regressions,
        query_seconds,
        timeline_seconds,
    })
}

/// The database's logs by status. Only a darshan-ingest older than its
/// transactional writer leaves logs half-written ('loading'): their rows
/// must not count as jobs, so such a database is refused, as is one with
/// no logs.
fn log_counts(conn: &Connection, db: &Path) -> Result<LogCounts, StudyError> {
    let mut logs = LogCounts::default();
    let mut loading = 0;
    let mut st = conn.prepare("SELECT status, COUNT(*) FROM logs GROUP BY status")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (s, n): (String, i64) = (r.get(0)?, r.get(1)?);
        match s.as_str() {
            "ok" => logs.ok = n,
            "partial" => logs.partial = n,
            "error" => logs.error = n,
            _ => loading += n,
        }
    }
    logs.total = logs.ok + logs.partial + logs.error;
    if loading > 0 {
        return Err(StudyError::Unfinished { path: db.into(), logs: loading });
    }
    if logs.total == 0 {
        return Err(StudyError::Empty(db.into()));
    }
    Ok(logs)
}
