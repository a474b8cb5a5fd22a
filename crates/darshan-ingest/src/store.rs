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

use crate::extract::{Row, Status, Value};
use crate::schema::{self, Table};

/// Bumped when a table changes: an older database is refused with a
/// clear message rather than half-filled.
pub const SCHEMA_VERSION: i64 = 1;

/// Commit at least this often by default (and every `COMMIT_ROWS` rows),
/// so an interruption loses little and readers see progress.
pub const COMMIT_EVERY: Duration = Duration::from_secs(2);
const COMMIT_ROWS: usize = 50_000;

pub struct Store {
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
#[derive(Debug)]
pub enum OpenError {
    /// Another darshan-ingest holds it.
    InUse(String),
    /// Not a database, not writable, a newer schema...
    Failed(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::InUse(m) | OpenError::Failed(m) => f.write_str(m),
        }
    }
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

fn err(e: rusqlite::Error) -> String {
    e.to_string()
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

impl Store {
    /// Open (or create) the database for one ingest run.
    pub fn open(path: &Path) -> Result<Store, String> {
        Self::open_locked(path).map_err(|e| e.to_string())
    }

    /// Like `open`, telling "in use by another ingest" apart.
    pub fn open_locked(path: &Path) -> Result<Store, OpenError> {
        let failed = |e: &dyn std::fmt::Display| OpenError::Failed(format!("{}: {e}", path.display()));
        let conn = Connection::open(path).map_err(|e| failed(&e))?;
        let lock = File::open(path).map_err(|e| failed(&e))?;
        match try_lock_briefly(&lock) {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(OpenError::InUse(format!(
                    "{}: the database is in use by another darshan-ingest; run again when it has finished",
                    path.display()
                )))
            }
            Err(TryLockError::Error(e)) => return Err(failed(&e)),
        }
        conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| failed(&e))?;
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;")
            .map_err(|e| failed(&e))?;
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
            _lock: lock,
        };
        s.create().map_err(|e| failed(&e))?;
        s.drop_unfinished().map_err(|e| failed(&e))?;
        s.next_id = s
            .conn
            .query_row("SELECT COALESCE(MAX(log_id), 0) + 1 FROM logs", [], |r| r.get(0))
            .map_err(|e| failed(&e))?;
        Ok(s)
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    fn create(&mut self) -> Result<(), String> {
        let c = &self.conn;
        c.execute_batch(
            "CREATE TABLE IF NOT EXISTS ingest_meta (key TEXT PRIMARY KEY, value TEXT);
             CREATE TABLE IF NOT EXISTS seen_files (path TEXT PRIMARY KEY, file_size INTEGER, mtime_ns INTEGER, log_id INTEGER);
             CREATE TABLE IF NOT EXISTS parquet_exported (log_id INTEGER PRIMARY KEY);",
        )
        .map_err(err)?;
        let v: Option<String> =
            c.query_row("SELECT value FROM ingest_meta WHERE key = 'schema_version'", [], |r| r.get(0)).ok();
        match v.and_then(|v| v.parse::<i64>().ok()) {
            Some(SCHEMA_VERSION) => {}
            Some(other) => {
                return Err(format!(
                    "the database has schema version {other}; this darshan-ingest writes {SCHEMA_VERSION}: ingest into a new file"
                ))
            }
            None => {
                c.execute(
                    "INSERT OR REPLACE INTO ingest_meta VALUES ('schema_version', ?1)",
                    [SCHEMA_VERSION.to_string()],
                )
                .map_err(err)?;
            }
        }
        for t in &self.tables {
            c.execute(&t.create_sql(), []).map_err(err)?;
            if t.name == "logs" {
                c.execute("CREATE UNIQUE INDEX IF NOT EXISTS logs_key ON logs(content_key)", []).map_err(err)?;
                c.execute("CREATE UNIQUE INDEX IF NOT EXISTS logs_id ON logs(log_id)", []).map_err(err)?;
            } else {
                c.execute(&format!("CREATE INDEX IF NOT EXISTS {0}_log ON {0}(log_id)", t.name), []).map_err(err)?;
            }
        }
        Ok(())
    }

    /// Delete what an interrupted run left half-written.
    fn drop_unfinished(&mut self) -> Result<(), String> {
        let ids: Vec<i64> = {
            let mut st = self.conn.prepare("SELECT log_id FROM logs WHERE status = 'loading'").map_err(err)?;
            let rows = st.query_map([], |r| r.get(0)).map_err(err)?;
            rows.collect::<Result<_, _>>().map_err(err)?
        };
        if ids.is_empty() {
            return Ok(());
        }
        let tx = self.conn.transaction().map_err(err)?;
        for id in &ids {
            for t in &self.tables {
                tx.execute(&format!("DELETE FROM {} WHERE log_id = ?1", t.name), [id]).map_err(err)?;
            }
            tx.execute("DELETE FROM seen_files WHERE log_id = ?1", [id]).map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// Content keys of every log already in the database.
    pub fn known_keys(&self) -> Result<HashSet<String>, String> {
        let mut st = self.conn.prepare("SELECT content_key FROM logs").map_err(err)?;
        let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    /// Paths already ingested (their bytes), with the size and mtime they
    /// had.
    pub fn seen(&self) -> Result<HashMap<Vec<u8>, (i64, i64)>, String> {
        let mut st = self.conn.prepare("SELECT path, file_size, mtime_ns FROM seen_files").map_err(err)?;
        let rows = st
            .query_map([], |r| {
                let path = match r.get_ref(0)? {
                    ValueRef::Text(b) | ValueRef::Blob(b) => b.to_vec(),
                    _ => Vec::new(),
                };
                Ok((path, (r.get(1)?, r.get(2)?)))
            })
            .map_err(err)?;
        rows.collect::<Result<_, _>>().map_err(err)
    }

    fn tx(&mut self) -> Result<(), String> {
        if !self.in_tx {
            self.conn.execute_batch("BEGIN").map_err(err)?;
            self.in_tx = true;
        }
        Ok(())
    }

    /// Start writing a log; `finish_log` ends it. No commit happens
    /// between the two. Returns its log_id.
    pub fn begin_log(&mut self) -> Result<i64, String> {
        if self.open_log.is_some() {
            return Err("internal: a log was begun while another was open".into());
        }
        self.tx()?;
        let id = self.next_id;
        self.next_id += 1;
        self.open_log = Some((id, vec![0; self.tables.len()]));
        Ok(id)
    }

    pub fn insert(&mut self, log_id: i64, table: usize, rows: &[Row]) -> Result<(), String> {
        self.tx()?;
        let sql = self.tables[table].insert_sql();
        let mut st = self.conn.prepare_cached(&sql).map_err(err)?;
        let id = Value::Int(log_id);
        for row in rows {
            let params = std::iter::once(&id as &dyn ToSql).chain(row.iter().map(|v| v as &dyn ToSql));
            st.execute(params_from_iter(params)).map_err(err)?;
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
    ) -> Result<i64, String> {
        let Some((id, rows)) = self.open_log.take() else {
            return Err("internal: a log was finished that was not begun".into());
        };
        self.conn
            .prepare_cached("INSERT INTO logs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
            .and_then(|mut st| st.execute(params![id, key, path, size, status.as_str(), error, now()]))
            .map_err(err)?;
        for (w, n) in self.rows_written.iter_mut().zip(rows) {
            *w += n;
        }
        self.rows_written[0] += 1;
        Ok(id)
    }

    /// Drop everything written since the last commit (a log's worker went
    /// away in the middle of it, which only a bug can do): the next run
    /// ingests those logs.
    pub fn abandon(&mut self) -> Result<(), String> {
        self.open_log = None;
        if self.in_tx {
            self.conn.execute_batch("ROLLBACK").map_err(err)?;
            self.in_tx = false;
        }
        self.rows_in_tx = 0;
        self.next_id =
            self.conn.query_row("SELECT COALESCE(MAX(log_id), 0) + 1 FROM logs", [], |r| r.get(0)).map_err(err)?;
        Ok(())
    }

    /// `path` was looked at: kept as the file system's bytes (TEXT when
    /// they are UTF-8, as every path was before; a BLOB otherwise, which
    /// SQLite keeps as is in this column), so that two names that differ
    /// only in bytes that are not UTF-8 stay two files.
    pub fn mark_seen(&mut self, path: &Path, size: i64, mtime_ns: i64, log_id: Option<i64>) -> Result<(), String> {
        self.tx()?;
        let key = match path.to_str() {
            Some(s) => SqlValue::Text(s.to_string()),
            None => SqlValue::Blob(path.as_os_str().as_bytes().to_vec()),
        };
        self.conn
            .prepare_cached("INSERT OR REPLACE INTO seen_files VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut st| st.execute(params![key, size, mtime_ns, log_id]))
            .map_err(err)?;
        Ok(())
    }

    /// The log_id of content already stored.
    pub fn log_of_key(&self, key: &str) -> Option<i64> {
        self.conn.query_row("SELECT log_id FROM logs WHERE content_key = ?1", [key], |r| r.get(0)).ok()
    }

    /// Commit if it is time; never inside a log.
    pub fn commit_if_due(&mut self) -> Result<(), String> {
        if self.in_tx
            && self.open_log.is_none()
            && (self.rows_in_tx >= COMMIT_ROWS || self.last_commit.elapsed() >= self.commit_every)
        {
            self.commit()?;
        }
        Ok(())
    }

    pub fn commit(&mut self) -> Result<(), String> {
        if self.open_log.is_some() {
            return Err("internal: a commit was asked for in the middle of a log".into());
        }
        if self.in_tx {
            self.conn.execute_batch("COMMIT").map_err(err)?;
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
