//! A job against its application's earlier runs: the runs of the same
//! application in a darshan-ingest database (same executable name, or a
//! key a site chooses; the nearest process counts first), their facts
//! (darshan_ingest::facts: the same rules the database was filled with,
//! applied to this log), and what moved beyond the runs' own noise
//! (judge: median and MAD over at least [`MIN_RUNS`] runs), with the
//! files and ranks that carry it. A run that matches its history gets
//! one line; with too few runs the values are shown, not judged.
#![forbid(unsafe_code)]

pub mod files;
pub mod judge;
pub mod model;
pub mod runs;
pub mod words;

mod compare;

use std::path::{Path, PathBuf};

use darshan_ingest::facts::{Fact, FactsBuilder, FileFacts};
use darshan_log::{LogFile, Record};

pub use compare::judged;

/// The figures of `this` run that moved beyond `earlier` runs' noise (at
/// least [`MIN_RUNS`] of them), farthest first, the job's before each
/// module's: the judgement the report's section makes, for callers with
/// facts in hand (darshan-study's regressions).
pub fn moved(this: &[Fact], earlier: &[&[Fact]], scale: judge::Scale) -> Vec<model::Change> {
    compare::moved(this, earlier, scale)
}
pub use model::{Section, Status};
pub use runs::Key;

/// Fewer earlier runs than this are shown, not judged.
pub const MIN_RUNS: usize = 5;
/// Earlier runs compared with, by default.
pub const DEFAULT_RUNS: usize = 20;
/// Records per module of each earlier run read for naming files (the
/// busiest; the facts themselves are the stored ones).
pub const FILE_LIMIT: usize = 5000;

#[derive(Clone, Debug)]
pub struct Options {
    pub db: PathBuf,
    pub key: Key,
    /// The last N comparable runs.
    pub runs: usize,
}

impl Options {
    pub fn new(db: PathBuf) -> Options {
        Options { db, key: Key::Exe, runs: DEFAULT_RUNS }
    }
}

/// This log's run against its history. Err only when the log itself
/// cannot be read; a missing database or too few runs are said in the
/// section.
pub fn compare(log: &Path, opts: &Options) -> Result<Section, String> {
    let (this, facts, files) = read_this(log)?;
    let key = describe(&opts.key, &this);
    let db = opts.db.display().to_string();
    let conn = match runs::open(&opts.db) {
        Ok(c) => c,
        Err(e) => return Ok(Section::said_only(db, key, Status::NoDatabase, format!("no history: {e}"))),
    };
    if this.value(&opts.key).is_none() {
        let said = format!("no history: this run has no {key} to look its earlier runs up by");
        return Ok(Section::said_only(db, key, Status::TooFew, said));
    }
    let earlier = runs::comparable(&conn, &opts.key, &this, opts.runs.max(MIN_RUNS))
        .map_err(|e| format!("{}: {e}", opts.db.display()))?;
    compare::judged(&conn, Now { this: &this, facts, files }, earlier, db, key)
        .map_err(|e| format!("{}: {e}", opts.db.display()))
}

/// This run: what it is and its facts.
pub struct Now<'a> {
    pub this: &'a runs::This,
    pub facts: Vec<Fact>,
    pub files: Vec<FileFacts>,
}

fn describe(key: &Key, this: &runs::This) -> String {
    match key {
        Key::Exe => format!("executable {}", this.app),
        Key::Command => format!("command line {}", this.command),
        Key::Meta(n) => match this.value(key) {
            Some(v) => format!("metadata {n}={v}"),
            None => format!("metadata {n}"),
        },
    }
}

/// The log's run and its facts, by the rules ingest stores them with.
pub fn read_this(path: &Path) -> Result<(runs::This, Vec<Fact>, Vec<FileFacts>), String> {
    let shown = || path.display().to_string();
    let log = LogFile::open(path).map_err(|e| format!("{}: {e}", shown()))?;
    let names = log.names().map_err(|e| format!("{}: name table: {e}", shown()))?;
    let content_key = darshan_ingest::run::content_key(path).map_err(|e| format!("{}: {e}", shown()))?;
    let j = &log.job;
    let command = String::from_utf8_lossy(j.exe()).into_owned();
    let this = runs::This {
        content_key,
        app: darshan_ingest::extract::app_of(&command),
        command,
        metadata: String::from_utf8_lossy(&j.metadata).into_owned(),
        nprocs: j.nprocs,
        start_time: j.start_time_sec,
    };
    let mut b = FactsBuilder::with_files();
    for m in log.modules_present().into_iter().filter(|m| FactsBuilder::takes(*m)) {
        let Ok(mut rd) = log.module_reader(m) else { continue };
        let mut rec = Record::new(m);
        // A module that stops at damage counts what came before, as
        // darshan-ingest stores it.
        while let Ok(true) = rd.next_into(&mut rec) {
            b.inject(&rec, names.get(rec.id));
        }
    }
    if log.modules_present().contains(&darshan_log::modules::APMPI) {
        if let Some(t) = darshan_util::mpi_comm::read(&log).totals {
            b.comm(&t);
        }
    }
    let (facts, files) = b.finish(j.run_time(log.header.version));
    Ok((this, facts, files))
}
