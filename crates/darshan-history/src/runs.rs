//! The earlier runs of the same application in a darshan-ingest
//! database: opened read-only (never changed, whatever its schema),
//! comparable by a key, the nearest process counts first, then the newest.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::model::Run;

/// What makes an earlier run the same application's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// The executable's name, without its directory or arguments (the
    /// database's `jobs.app`): the default.
    Exe,
    /// The whole command line.
    Command,
    /// The value of `NAME=` in the job's metadata (a project or job name
    /// a site puts there with DARSHAN_METADATA or its job prolog).
    Meta(String),
}

impl std::str::FromStr for Key {
    type Err = String;
    fn from_str(s: &str) -> Result<Key, String> {
        match s {
            "exe" => Ok(Key::Exe),
            "command" => Ok(Key::Command),
            _ => match s.strip_prefix("meta:") {
                Some(n) if !n.is_empty() && !n.contains(['=', '\n']) => Ok(Key::Meta(n.to_string())),
                _ => Err(format!("{s:?}: a history key is exe, command or meta:NAME")),
            },
        }
    }
}

/// The run a report is about, as the database would describe it.
#[derive(Clone, Debug, Default)]
pub struct This {
    pub content_key: String,
    pub app: String,
    pub command: String,
    pub metadata: String,
    pub nprocs: i64,
    pub start_time: i64,
}

impl This {
    /// The key's value for this run (None: the run has no such value).
    pub fn value(&self, key: &Key) -> Option<String> {
        match key {
            Key::Exe => Some(self.app.clone()).filter(|a| !a.is_empty()),
            Key::Command => Some(self.command.clone()).filter(|c| !c.is_empty()),
            Key::Meta(name) => meta_value(&self.metadata, name),
        }
    }
}

/// `NAME=value` from a job's metadata lines.
pub fn meta_value(metadata: &str, name: &str) -> Option<String> {
    metadata.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix('=')).map(str::to_string)
}

/// The database, read-only. Err: one line saying why it cannot be used.
pub fn open(db: &Path) -> Result<Connection, String> {
    // SQLite opens them by name, through links: never another user's.
    darshan_log::safe_fs::sqlite_files_plain(db).map_err(|why| format!("{}: {why}", db.display()))?;
    if !db.is_file() {
        return Err(format!("{} is not there (darshan-ingest LOGDIR --db {} makes it)", db.display(), db.display()));
    }
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        .map_err(|e| format!("{}: {e}", db.display()))?;
    let has_jobs: bool = conn
        .query_row("SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'jobs'", [], |r| r.get(0))
        .map_err(|e| format!("{}: {e}", db.display()))?;
    if !has_jobs {
        return Err(format!("{} is not a darshan-ingest database (it has no jobs table)", db.display()));
    }
    Ok(conn)
}

/// Up to `limit` earlier runs with this run's key: not this log itself
/// (by content), none that started after it, none whose log could not be
/// read; the nearest process counts first, then the newest.
pub fn comparable(conn: &Connection, key: &Key, this: &This, limit: usize) -> rusqlite::Result<Vec<Run>> {
    let Some(value) = this.value(key) else { return Ok(Vec::new()) };
    let (filter, arg) = match key {
        Key::Exe => ("j.app = ?1", value.clone()),
        Key::Command => ("j.exe = ?1", value.clone()),
        Key::Meta(name) => {
            ("j.metadata LIKE ?1 ESCAPE '\\'", format!("%{}={}%", like_escape(name), like_escape(&value)))
        }
    };
    let sql = format!(
        "SELECT j.log_id, j.jobid, j.nprocs, j.start_time, COALESCE(j.run_time, 0), j.metadata, l.content_key \
         FROM jobs j JOIN logs l ON l.log_id = j.log_id WHERE {filter} AND l.status != 'error'"
    );
    let mut st = conn.prepare(&sql)?;
    let rows = st.query_map([arg], |r| {
        let meta: Option<String> = r.get(5)?;
        let run = Run {
            log_id: r.get(0)?,
            jobid: r.get(1)?,
            nprocs: r.get(2)?,
            start_time: r.get(3)?,
            start: String::new(),
            run_time: r.get(4)?,
        };
        Ok((run, meta.unwrap_or_default(), r.get::<_, String>(6)?))
    })?;
    let mut runs = Vec::new();
    for row in rows {
        let (mut run, meta, content) = row?;
        let same_key = match key {
            Key::Meta(name) => meta_value(&meta, name).as_deref() == Some(value.as_str()),
            _ => true,
        };
        if same_key && content != this.content_key && run.start_time <= this.start_time {
            run.start = utc(run.start_time);
            runs.push(run);
        }
    }
    runs.sort_by_key(|r| ((r.nprocs - this.nprocs).unsigned_abs(), -r.start_time, -r.log_id));
    runs.truncate(limit);
    Ok(runs)
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// Seconds since the epoch as the report's header writes times.
pub fn utc(t: i64) -> String {
    chrono::DateTime::from_timestamp(t, 0)
        .map_or_else(|| t.to_string(), |d| d.format("%Y-%m-%d %H:%M:%S UTC").to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_exe_command_or_a_metadata_name() {
        assert_eq!("exe".parse::<Key>(), Ok(Key::Exe));
        assert_eq!("meta:project".parse::<Key>(), Ok(Key::Meta("project".into())));
        assert!("meta:".parse::<Key>().is_err() && "user".parse::<Key>().is_err());
        assert_eq!(meta_value("lib_ver=3.5\nproject=abc_1\n", "project").as_deref(), Some("abc_1"));
        assert_eq!(meta_value("projects=x", "project"), None);
    }
}
