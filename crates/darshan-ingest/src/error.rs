//! What can go wrong while ingesting, typed: the database's own error
//! (its kind kept: a full disk, a locked or corrupt file), a file that
//! could not be read or written (with its path), the Parquet writer's,
//! and this tool's refusals (a newer schema, an internal sequence error).
//! The binary prints one line from it.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("{0}")]
    Sql(#[from] rusqlite::Error),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// The database was written by another version of the schema.
    #[error("the database has schema version {found}; this darshan-ingest writes {ours}: ingest into a new file")]
    Schema { found: i64, ours: i64 },
    /// A log could not be read, or made (synthetic logs for tests and
    /// benchmarks).
    #[error("{0}")]
    Log(#[from] darshan_log::LogError),
    #[error("--commit-every must be a non-negative number of seconds, not {0}")]
    CommitEvery(f64),
    /// A worker thread ended in the middle of a log (it panicked).
    #[error(
        "internal: the worker reading {0} stopped in the middle of it; the logs since the last commit will be \
         ingested by the next run"
    )]
    WorkerStopped(String),
    /// Asked to stop (SIGTERM, SIGINT): what was committed stays.
    #[error("stopped by a signal; the logs ingested so far are kept, the rest are ingested by the next run")]
    Interrupted,
    /// Calls out of order: a bug of this tool, not of the input.
    #[error("internal: {0}")]
    Internal(&'static str),
    /// A file or directory this tool will not open or write, and why
    /// (read-only for this user, another user's link, not a regular file).
    #[error("{0}")]
    Refused(String),
}

impl IngestError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> IngestError {
        let path = path.to_path_buf();
        move |source| IngestError::Io { path, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{OpenError, Store};

    /// The message kept SQLite's words but lost what kind of failure it
    /// was: a caller could not tell a missing directory from a locked or
    /// corrupt file without parsing text. The error keeps SQLite's code.
    #[test]
    fn a_database_that_cannot_be_opened_keeps_sqlites_error_code() {
        let path = std::path::Path::new("/nonexistent-dir-for-darshan-ingest/x.db");
        match Store::open(path) {
            Err(OpenError::Failed { source: IngestError::Sql(rusqlite::Error::SqliteFailure(e, _)), path: p }) => {
                assert_eq!(e.code, rusqlite::ErrorCode::CannotOpen);
                assert_eq!(p, path);
            }
            Err(other) => panic!("another error: {other:?}"),
            Ok(_) => panic!("opened a database in a missing directory"),
        }
    }

    /// A file the export cannot write keeps its path and the I/O error's kind.
    #[test]
    fn an_io_error_keeps_its_path_and_kind() {
        let e = IngestError::io(std::path::Path::new("/a/b"))(std::io::Error::from(std::io::ErrorKind::StorageFull));
        assert_eq!(e.to_string(), format!("/a/b: {}", std::io::Error::from(std::io::ErrorKind::StorageFull)));
        let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(source.map(|s| s.kind()), Some(std::io::ErrorKind::StorageFull));
    }
}
