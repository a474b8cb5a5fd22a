//! The history section of a report: what the report's JSON carries and
//! its HTML and text show.

use serde::Serialize;

use crate::judge::{Band, Kind};

/// How the run compares with its history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The database is not there or cannot be read: said, not an error.
    NoDatabase,
    /// Fewer earlier runs than a judgement needs: their values, unjudged.
    TooFew,
    /// Nothing moved beyond the runs' own noise.
    Consistent,
    /// Something did.
    Changed,
}

#[derive(Clone, Debug, Serialize)]
pub struct Section {
    pub database: String,
    /// What makes a run comparable ("executable ior").
    pub key: String,
    pub status: Status,
    /// One line that says it all.
    pub said: String,
    /// The earlier runs compared with, nearest first.
    pub runs: Vec<Run>,
    /// How many of them had another process count than this run.
    pub other_nprocs: usize,
    pub changes: Vec<Change>,
    /// Files that are new, gone or used differently.
    pub files: Vec<FileNote>,
    /// The slowest rank, when its time moved.
    pub ranks: Vec<RankNote>,
    /// With too few runs: this run's and the earlier runs' main figures.
    pub values: Vec<Values>,
    /// What limited the comparison (a cut file list, an older database).
    pub notes: Vec<String>,
}

impl Section {
    pub fn said_only(database: String, key: String, status: Status, said: String) -> Section {
        Section {
            database,
            key,
            status,
            said,
            runs: Vec::new(),
            other_nprocs: 0,
            changes: Vec::new(),
            files: Vec::new(),
            ranks: Vec::new(),
            values: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// An earlier run.
#[derive(Clone, Debug, Serialize)]
pub struct Run {
    pub log_id: i64,
    pub jobid: i64,
    pub nprocs: i64,
    pub start_time: i64,
    /// UTC, as the report's header shows times.
    pub start: String,
    pub run_time: f64,
}

/// One figure that moved.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// The module ("POSIX", "MPI-IO") or "job".
    pub scope: String,
    /// The fact's name in `job_facts` ("write_1M_4M").
    pub fact: String,
    /// What it is, in words ("writes of 1-4 MiB").
    pub label: String,
    pub kind: Kind,
    pub now: f64,
    pub band: Band,
    /// "up" or "down".
    pub direction: String,
    /// This run's value and the usual one, in units.
    pub now_text: String,
    pub usual_text: String,
    /// The range the earlier runs allow, in units ("7.20 MiB-8.80 MiB").
    pub range_text: String,
    /// The files and ranks that carry it, in words.
    pub carriers: Vec<String>,
}

/// A file this run used differently from its history.
#[derive(Clone, Debug, Serialize)]
pub struct FileNote {
    pub module: String,
    pub name: String,
    /// "new", "gone", "sizes", "bytes" or "slower".
    pub what: String,
    /// The rank that used it (-1: shared).
    pub rank: i64,
    pub said: String,
}

/// The slowest rank now against the usual one.
#[derive(Clone, Debug, Serialize)]
pub struct RankNote {
    pub scope: String,
    pub rank: i64,
    pub time: f64,
    pub usual_rank: Option<i64>,
    pub usual_time: f64,
    pub said: String,
}

/// A figure's value now and in each earlier run (too few to judge).
#[derive(Clone, Debug, Serialize)]
pub struct Values {
    pub scope: String,
    pub fact: String,
    pub label: String,
    pub now_text: String,
    pub earlier_text: Vec<String>,
}
