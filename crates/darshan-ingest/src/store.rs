//! The SQLite store: the tables of `schema`, plus the bookkeeping that
//! makes ingesting idempotent and resumable.
//!
//! * A log is keyed by its content (`logs.content_key`): the same bytes
//!   under another name or in another tree are not ingested twice.
//! * `seen_files` remembers each path with its size and mtime, so a
//!   re-run skips unchanged files without reading them.
//! * A log is written whole or not at all: its rows and its `logs` row
//!   are written one after the other by the one writer, and transactions
//!   are committed only between logs, so a run killed at any moment leaves
//!   every log either complete or absent; the next run ingests the absent
//!   ones. (Not a savepoint per log: in SQLite each one keeps a statement
//!   journal of every page it changes, a fifth of the ingest's time.) (Databases
//!   of earlier versions could hold logs left `loading`; those are
//!   deleted when such a database is opened.)
//! * One darshan-ingest at a time: the run holds an exclusive advisory
//!   lock (flock) on the database file, and a second run says in one line
//!   that the database is in use. Readers (darshan-study, sqlite3) are not
//!   kept out: SQLite's WAL lets them read committed logs meanwhile.

use std::collections::{HashMap, HashSet};
use std::fs::{File, TryLockError};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{params, params_from_iter, Connection, ToSql};

use crate::error::IngestError;
use crate::extract::Status;
use crate::rows::{Row, Value};
use crate::schema::{self, Table};

/// Bumped when a table changes. An older database is upgraded in place
/// when it is opened, by adding the columns it lacks (its logs keep NULL
/// there: not recorded), and the run says so: schema 2 added the
/// runtime's cost to `jobs`, schema 3 the processes' io_uring rings
/// (IO_URING version 2), schema 4 `job_facts` (what history compares a
/// job on, crate::facts: made for the logs already in the database from
/// their records when it is upgraded), schema 5 `mpi_comm` and `mpi_ops`
/// (AutoPerf's APMPI records, which no table held: the logs already in
/// the database have no rows there, and the upgrade says how many of them
/// have such records). A newer one is refused with a clear message.
pub const SCHEMA_VERSION: i64 = 5;

/// Commit at least this often by default (and every `COMMIT_ROWS` rows),
/// so an interruption loses little and readers see progress.
pub const COMMIT_EVERY: Duration = Duration::from_secs(2);
const COMMIT_ROWS: usize = 50_000;

pub struct Store {
    /// What opening the database upgraded (the run says it), if anything.
    pub upgraded: Option<String>,
    /// Dropped before `_lock` (fields drop in order): SQLite's own locks
    /// are released before the file whose flock guards the run is closed.
    conn: Connection,
    pub tables: Vec<Table>,
    in_tx: bool,
    /// The next log's log_id (one writer, by the lock: no query per log).
    next_id: i64,
    /// The log being written, and its rows per table.
    open_log: Option<(i64, Vec<u64>)>,
    rows_in_tx: usize,
    last_commit: Instant,
    /// How often to commit (`--commit-every`).
    pub commit_every: Duration,
    pub rows_written: Vec<u64>,
    _lock: File,
}

/// Why the database could not be opened for ingesting.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// Another darshan-ingest holds it.
    #[error("{}: the database is in use by another darshan-ingest; run again when it has finished", .0.display())]
    InUse(std::path::PathBuf),
    /// Not a database, not writable, a newer schema...
    #[error("{}: {source}", path.display())]
    Failed {
        path: std::path::PathBuf,
        #[source]
        source: IngestError,
    },
}

/// Waits at most this long for SQLite's own locks (a reader's checkpoint).
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Value::Int(v) => ToSqlOutput::Borrowed(ValueRef::Integer(*v)),
            // SQLite stores NaN as NULL; keep what the log says.
            Value::Real(v) => ToSqlOutput::Borrowed(ValueRef::Real(*v)),
            Value::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Value::Null => ToSqlOutput::Borrowed(ValueRef::Null),
        })
    }
}

/// The database's lock, waiting up to 100 ms for it: a process that
/// has just closed the database may still have its lock held for a
/// moment by a child it forked that has not yet exec'd (the descriptor is
/// close-on-exec, not close-on-fork), which is not "in use".
fn try_lock_briefly(f: &File) -> Result<(), TryLockError> {
    let until = Instant::now() + Duration::from_millis(100);
    loop {
        match f.try_lock() {
            Err(TryLockError::WouldBlock) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            r => return r,
        }
    }
}

/// Whether this user may write the database and its directory (where
/// SQLite makes its -wal and -shm files). Opened read-only, SQLite would
/// make those files with the database's read-only mode, and every later
/// ingest would fail on them: nothing is opened unless both are writable.
fn writable(path: &Path) -> Result<(), String> {
    use rustix::fs::{access, Access};
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let denied = |what: &str| format!("{what} is read-only for this user; nothing was ingested");
    // Only a refusal is said here; a missing directory and the like are
    // left to SQLite, whose error keeps its code.
    let refused = |p: &Path| {
        matches!(
            access(p, Access::WRITE_OK),
            Err(rustix::io::Errno::ACCESS | rustix::io::Errno::ROFS | rustix::io::Errno::PERM)
        )
    };
    if path.exists() && refused(path) {
        return Err(denied("the database"));
    }
    if refused(dir) {
        return Err(denied("its directory"));
    }
    Ok(())
}

impl Store {
    /// Open (or create) the database for one ingest run.
    pub fn open(path: &Path) -> Result<Store, OpenError> {
        Self::open_locked(path)
    }

    /// Like `open`, telling "in use by another ingest" apart.
    pub fn open_locked(path: &Path) -> Result<Store, OpenError> {
        let failed = |e: IngestError| OpenError::Failed { path: path.to_path_buf(), source: e };
        // SQLite opens these by name, through links: root's ingest wrote
        // its tables into the file another user's link named, and a FIFO
        // there was "disk I/O error".
        let refused = |why: String| failed(IngestError::Refused(why));
        darshan_log::safe_fs::sqlite_files_plain(path)
            .map_err(|why| refused(format!("{why}; nothing was ingested")))?;
        writable(path).map_err(refused)?;
        let conn = Connection::open(path).map_err(|e| failed(e.into()))?;
        let lock = File::open(path).map_err(|e| failed(IngestError::io(path)(e)))?;
        match try_lock_briefly(&lock) {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(OpenError::InUse(path.to_path_buf())),
            Err(TryLockError::Error(e)) => return Err(failed(IngestError::io(path)(e))),
        }
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| failed(e.into()))?;
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;")
            .map_err(|e| failed(e.into()))?;
        let tables = schema::tables();
        let mut s = Store {
            conn,
            rows_written: vec![0; tables.len()],
            tables,
            in_tx: false,
            next_id: 0,
            open_log: None,
            rows_in_tx: 0,
            last_commit: Instant::now(),
            commit_every: COMMIT_EVERY,
            upgraded: None,
            _lock: lock,
        };
        s.create().map_err(failed)?;
        s.drop_unfinished().map_err(failed)?;
        s.next_id = s
            .conn
            .query_row("SELECT COALESCE(MAX(log_id), 0) + 1 FROM logs", [], |r| r.get(0))
            .map_err(|e| failed(e.into()))?;
        Ok(s)
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    fn create(&mut self) -> Result<(), IngestError> {
        let mut upgraded_from = None;
        let c = &self.conn;
        c.execute_batch(
            "CREATE TABLE IF NOT EXISTS ingest_meta (key TEXT PRIMARY KEY, value TEXT);
             CREATE TABLE IF NOT EXISTS seen_files (path TEXT PRIMARY KEY, file_size INTEGER, mtime_ns INTEGER, log_id INTEGER);
             CREATE TABLE IF NOT EXISTS parquet_exported (log_id INTEGER PRIMARY KEY);",
        )
        ?;
        let v: Option<String> =
            c.query_row("SELECT value FROM ingest_meta WHERE key = 'schema_version'", [], |r| r.get(0)).ok();
        match v.and_then(|v| v.parse::<i64>().ok()) {
            Some(SCHEMA_VERSION) => {}
            Some(old) if old < SCHEMA_VERSION => {
                let added = self.add_missing_columns()?;
                self.conn.execute(
                    "UPDATE ingest_meta SET value = ?1 WHERE key = 'schema_version'",
                    [SCHEMA_VERSION.to_string()],
                )?;
                upgraded_from = Some((old, added));
            }
            Some(other) => return Err(IngestError::Schema { found: other, ours: SCHEMA_VERSION }),
            None => {
                c.execute(
                    "INSERT OR REPLACE INTO ingest_meta VALUES ('schema_version', ?1)",
                    [SCHEMA_VERSION.to_string()],
                )?;
            }
        }
        self.create_tables()?;
        if let Some((old, added)) = upgraded_from {
            let facts = self.fill_facts()?;
            let mut said = upgrade_said(old, &added, facts);
            said.push_str(&self.mpi_comm_missing()?);
            self.upgraded = Some(said);
        }
        Ok(())
    }

    /// Every table of the schema and its indexes, where missing.
    fn create_tables(&self) -> Result<(), IngestError> {
        let c = &self.conn;
        for t in &self.tables {
            c.execute(&t.create_sql(), [])?;
            if t.name == "logs" {
                c.execute("CREATE UNIQUE INDEX IF NOT EXISTS logs_key ON logs(content_key)", [])?;
                c.execute("CREATE UNIQUE INDEX IF NOT EXISTS logs_id ON logs(log_id)", [])?;
            } else if t.indexed_by_log() {
                c.execute(&format!("CREATE INDEX IF NOT EXISTS {0}_log ON {0}(log_id)", t.name), [])?;
            }
        }
        // History looks runs up by application.
        c.execute("CREATE INDEX IF NOT EXISTS jobs_app ON jobs(app)", [])?;
        Ok(())
    }

    /// `job_facts` for every readable log that has none, made from its
    /// stored records (one transaction); how many logs got them.
    fn fill_facts(&self) -> Result<usize, IngestError> {
        let todo: Vec<(i64, f64)> = {
            let mut st = self.conn.prepare(
                "SELECT j.log_id, COALESCE(j.run_time, 0) FROM jobs j JOIN logs l ON l.log_id = j.log_id \
                 WHERE l.status != 'error' AND NOT EXISTS (SELECT 1 FROM job_facts f WHERE f.log_id = j.log_id)",
            )?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut ins = tx.prepare("INSERT INTO job_facts (log_id, module, fact, value) VALUES (?1, ?2, ?3, ?4)")?;
            let tables = crate::stored::RecordTables::of(&tx)?;
            for (id, run_time) in &todo {
                let (facts, _, _) = crate::stored::facts_from_records(&tables, *id, *run_time, usize::MAX)?;
                for (m, f, v) in facts {
                    ins.execute(params![id, m, f, v])?;
                }
            }
        }
        tx.commit()?;
        Ok(todo.len())
    }

    /// What an upgrade says of the logs already in the database whose
    /// APMPI records have no rows in `mpi_comm` (their records were never
    /// stored, so nothing can be made from the database).
    fn mpi_comm_missing(&self) -> Result<String, IngestError> {
        let n: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM modules m WHERE m.module = 'APMPI'
               AND NOT EXISTS (SELECT 1 FROM mpi_comm c WHERE c.log_id = m.log_id)",
            [],
            |r| r.get(0),
        )?;
        Ok(match n {
            0 => String::new(),
            n => format!(
                "; {n} log{} already in it {} APMPI records, which are not in mpi_comm and mpi_ops \
                 (ingest {} into a new database to have them)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "has" } else { "have" },
                if n == 1 { "it" } else { "them" },
            ),
        })
    }

    /// The columns of our tables an existing database lacks, added (in
    /// one transaction); "table.column" of each.
    fn add_missing_columns(&self) -> Result<Vec<String>, IngestError> {
        let tx = self.conn.unchecked_transaction()?;
        let mut added = Vec::new();
        for t in &self.tables {
            let have: Vec<String> = {
                let mut st = tx.prepare(&format!("SELECT name FROM pragma_table_info('{}')", t.name))?;
                let rows = st.query_map([], |r| r.get(0))?;
                rows.collect::<Result<_, _>>()?
            };
            if have.is_empty() {
                continue; // made whole by create_sql below
            }
            for col in t.columns.iter().filter(|c| !have.contains(&c.name)) {
                tx.execute(&format!("ALTER TABLE {} ADD COLUMN \"{}\" {}", t.name, col.name, col.ty.sql()), [])?;
                added.push(format!("{}.{}", t.name, col.name));
            }
        }
        tx.commit()?;
        Ok(added)
    }

    /// Delete what an interrupted run left half-written.
    fn drop_unfinished(&mut self) -> Result<(), IngestError> {
        let ids: Vec<i64> = {
            let mut st = self.conn.prepare("SELECT log_id FROM logs WHERE status = 'loading'")?;
            let rows = st.query_map([], |r| r.get(0))?;
            rows.collect::<Result<_, _>>()?
        };
        if ids.is_empty() {
            return Ok(());
        }
        let tx = self.conn.transaction()?;
        for id in &ids {
            for t in &self.tables {
                tx.execute(&format!("DELETE FROM {} WHERE log_id = ?1", t.name), [id])?;
            }
            tx.execute("DELETE FROM seen_files WHERE log_id = ?1", [id])?;
        }
        Ok(tx.commit()?)
    }

    /// Content keys of every log already in the database.
    pub fn known_keys(&self) -> Result<HashSet<String>, IngestError> {
        let mut st = self.conn.prepare("SELECT content_key FROM logs")?;
        let rows = st.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Job keys of the job logs of jobs without MPI already stored
    /// (crate::job_groups).
    pub fn job_log_keys(&self) -> Result<HashSet<String>, IngestError> {
        let mut st = self.conn.prepare("SELECT metadata FROM jobs WHERE metadata LIKE '%job_processes=%'")?;
        let rows = st.query_map([], |r| r.get::<_, Option<String>>(0))?;
        let metas: Vec<String> = rows.filter_map(|r| r.ok().flatten()).collect();
        Ok(crate::job_groups::known_job_keys(metas.into_iter()))
    }

    /// Paths already ingested (their bytes), with the size and mtime they
    /// had.
    pub fn seen(&self) -> Result<HashMap<Vec<u8>, (i64, i64)>, IngestError> {
        let mut st = self.conn.prepare("SELECT path, file_size, mtime_ns FROM seen_files")?;
        let rows = st.query_map([], |r| {
            let path = match r.get_ref(0)? {
                ValueRef::Text(b) | ValueRef::Blob(b) => b.to_vec(),
                _ => Vec::new(),
            };
            Ok((path, (r.get(1)?, r.get(2)?)))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn tx(&mut self) -> Result<(), IngestError> {
        if !self.in_tx {
            self.conn.execute_batch("BEGIN")?;
            self.in_tx = true;
        }
        Ok(())
    }

    /// Start writing a log; `finish_log` ends it. No commit happens
    /// between the two. Returns its log_id.
    pub fn begin_log(&mut self) -> Result<i64, IngestError> {
        if self.open_log.is_some() {
            return Err(IngestError::Internal("a log was begun while another was open"));
        }
        self.tx()?;
        let id = self.next_id;
        self.next_id += 1;
        self.open_log = Some((id, vec![0; self.tables.len()]));
        Ok(id)
    }

    pub fn insert(&mut self, log_id: i64, table: usize, rows: &[Row]) -> Result<(), IngestError> {
        self.tx()?;
        let sql = self.tables[table].insert_sql();
        let mut st = self.conn.prepare_cached(&sql)?;
        let id = Value::Int(log_id);
        for row in rows {
            let params = std::iter::once(&id as &dyn ToSql).chain(row.iter().map(|v| v as &dyn ToSql));
            st.execute(params_from_iter(params))?;
        }
        if let Some((_, n)) = self.open_log.as_mut() {
            n[table] += rows.len() as u64;
        }
        self.rows_in_tx += rows.len();
        Ok(())
    }

    /// The log's `logs` row, with its final status, and the end of its
    /// writing: from here the log is part of the next commit, whole.
    pub fn finish_log(
        &mut self,
        key: &str,
        path: &str,
        size: i64,
        status: Status,
        error: Option<&str>,
    ) -> Result<i64, IngestError> {
        let Some((id, rows)) = self.open_log.take() else {
            return Err(IngestError::Internal("a log was finished that was not begun"));
        };
        self.conn
            .prepare_cached("INSERT INTO logs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .and_then(|mut st| st.execute(params![id, key, path, size, status.as_str(), error, now()]))?;
        for (w, n) in self.rows_written.iter_mut().zip(rows) {
            *w += n;
        }
        self.rows_written[0] += 1;
        Ok(id)
    }

    /// Drop everything written since the last commit (a log's worker went
    /// away in the middle of it, which only a bug can do): the next run
    /// ingests those logs.
    pub fn abandon(&mut self) -> Result<(), IngestError> {
        self.open_log = None;
        if self.in_tx {
            self.conn.execute_batch("ROLLBACK")?;
            self.in_tx = false;
        }
        self.rows_in_tx = 0;
        self.next_id = self.conn.query_row("SELECT COALESCE(MAX(log_id), 0) + 1 FROM logs", [], |r| r.get(0))?;
        Ok(())
    }

    /// `path` was looked at: kept as the file system's bytes (TEXT when
    /// they are UTF-8, as every path was before; a BLOB otherwise, which
    /// SQLite keeps as is in this column), so that two names that differ
    /// only in bytes that are not UTF-8 stay two files.
    pub fn mark_seen(&mut self, path: &Path, size: i64, mtime_ns: i64, log_id: Option<i64>) -> Result<(), IngestError> {
        self.tx()?;
        let key = match path.to_str() {
            Some(s) => SqlValue::Text(s.to_string()),
            None => SqlValue::Blob(path.as_os_str().as_bytes().to_vec()),
        };
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO seen_files VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut st| st.execute(params![key, size, mtime_ns, log_id]))?;
        Ok(())
    }

    /// The log_id of content already stored.
    pub fn log_of_key(&self, key: &str) -> Option<i64> {
        self.conn.query_row("SELECT log_id FROM logs WHERE content_key = ?1", [key], |r| r.get(0)).ok()
    }

    /// Commit if it is time; never inside a log.
    pub fn commit_if_due(&mut self) -> Result<(), IngestError> {
        if self.in_tx
            && self.open_log.is_none()
            && (self.rows_in_tx >= COMMIT_ROWS || self.last_commit.elapsed() >= self.commit_every)
        {
            self.commit()?;
        }
        Ok(())
    }

    pub fn commit(&mut self) -> Result<(), IngestError> {
        if self.open_log.is_some() {
            return Err(IngestError::Internal("a commit was asked for in the middle of a log"));
        }
        if self.in_tx {
            self.conn.execute_batch("COMMIT")?;
            self.in_tx = false;
        }
        self.rows_in_tx = 0;
        self.last_commit = Instant::now();
        Ok(())
    }
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

/// What an upgrade of the database from schema `old` did: the columns
/// `added`, and the logs given facts from their records.
fn upgrade_said(old: i64, added: &[String], facts: usize) -> String {
    let mut said = format!(
        "upgraded the database from schema {old} to {SCHEMA_VERSION}: {} column{} added{}",
        added.len(),
        if added.len() == 1 { "" } else { "s" },
        if added.is_empty() {
            String::new()
        } else {
            format!(" ({}; the logs already in it have no value there)", added.join(", "))
        },
    );
    if facts > 0 {
        said.push_str(&format!(
            "; the facts history compares on made for the {facts} logs already in it, from their records"
        ));
    }
    said
}
