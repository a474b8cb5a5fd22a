//! What can stop a study, typed: the database missing or not one of
//! darshan-ingest's, SQLite's own error (kept, with the view, query or
//! step it came from), a timeline too fine for its span, the report's
//! template, and the calibration file's mistakes (with their line).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error("{}: no such database (make one with darshan-ingest)", .0.display())]
    NoDatabase(PathBuf),
    #[error("{}: not a darshan-ingest database", .0.display())]
    NotIngest(PathBuf),
    #[error(
        "{}: {logs} logs are only partly written (an interrupted ingest): run darshan-ingest on the database again \
         to finish them",
        path.display()
    )]
    Unfinished { path: PathBuf, logs: i64 },
    #[error("{}: the database holds no logs yet (darshan-ingest adds them)", .0.display())]
    Empty(PathBuf),
    #[error("{}: {source}", path.display())]
    Open { path: PathBuf, source: rusqlite::Error },
    /// The database, or SQLite's file beside it, is another user's link or
    /// not a regular file (`why` names which).
    #[error("{}: {why}", path.display())]
    Refused { path: PathBuf, why: String },
    #[error("{0}")]
    Db(#[from] rusqlite::Error),
    /// SQLite failed in `what` (a view, a query, the timeline).
    #[error("{what}: {source}")]
    Sql { what: String, source: rusqlite::Error },
    #[error("the interval must be a positive number of seconds, not {0}")]
    Interval(f64),
    #[error(
        "the timeline would have {intervals:.0} intervals of {dt} s (its jobs span {span} s): use a larger --interval"
    )]
    TooManyIntervals { intervals: f64, dt: f64, span: i64 },
    #[error("study template: {0}")]
    Template(#[from] minijinja::Error),
}

impl StudyError {
    /// SQLite's error in `what`.
    pub fn sql(what: impl Into<String>) -> impl Fn(rusqlite::Error) -> StudyError {
        let what = what.into();
        move |source| StudyError::Sql { what: what.clone(), source }
    }
}

/// A calibration file (op,size,count,seconds) that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    #[error("the first line must be the header op,size,count,seconds")]
    Header,
    #[error("line {line}: {what}: {text}")]
    Line { line: usize, what: &'static str, text: String },
    #[error("at least two different request sizes are needed")]
    TooFewSizes,
    /// The reads' or the writes' fit failed.
    #[error("{ops}: {source}")]
    Fit { ops: &'static str, source: Box<CalibrationError> },
}
