//! The diagnosis: Drishti's insights, the seed papers' metrics (Cray XE6
//! study, JSC heat-map metrics, NERSC FSU model) and Lustre striping
//! advice. Every finding carries its evidence and, where one applies, a
//! concrete recommendation.

mod as_drishti;
pub mod config;
pub mod drishti;
pub mod epochs;
pub mod internals;
pub mod lustre;
pub mod mpi_comm;
pub mod namespace;
pub mod seed;
mod small;
pub mod software;
pub mod uring;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use darshan_log::NameTable;

pub use config::{Config, ConfigError};

use crate::app_sums::RuleSums;
use crate::files::{FileAgg, Files};
use crate::model::{Finding, Level, Metrics, Withheld};
use crate::modstats::ModuleSums;

/// Files named in one finding's evidence.
pub const WORST: usize = 5;

/// Striping of one file from its LUSTRE record.
#[derive(Debug, Clone, Copy, Default)]
pub struct Striping {
    pub stripe_size: i64,
    pub stripe_count: i64,
}

/// What the diagnosis reads: the collected sums and files, and facts
/// gathered while records streamed past.
pub struct Ctx<'a> {
    pub cfg: &'a Config,
    /// The application's module sums, and every record's (app_sums.rs).
    pub sums: &'a RuleSums<'a>,
    /// Metadata seconds per process, the application's and the software
    /// loading's (X03).
    pub rank_meta: seed::RankMeta<'a>,
    pub files: &'a Files,
    pub names: &'a NameTable,
    pub modules_present: &'a [String],
    pub nprocs: i64,
    pub run_time: f64,
    /// POSIX records with more metadata time than `metadata_time_rank`.
    pub long_metadata: &'a [LongMetadata],
    pub lustre: &'a HashMap<u64, Striping>,
    pub dxt_hosts: &'a HashSet<String>,
    /// The MPI-IO hints (`h=` in the job metadata).
    pub hints: Option<&'a str>,
    /// An MPI job (MPI-IO used, or several processes in a log that is not
    /// a merge of processes without MPI): advice naming MPI (collectives,
    /// MPI_Bcast) is given only to such jobs; the others get what exists
    /// for them.
    pub mpi: bool,
    /// A Python job (software::python): advice about data loaders,
    /// shards and sample formats is given to such jobs only.
    pub python: bool,
    /// Files the MPI library made for itself (internals.rs): left out of
    /// every rule, listed once (N01).
    pub internal: HashSet<u64>,
    /// Software loading (software.rs): left out of every rule, summed
    /// once (N02).
    pub software: HashSet<u64>,
    /// Set while the rules are evaluated as Drishti counts (as_drishti.rs):
    /// software loading's files in every rule, every record in the
    /// module sums; to tell which rules fire only on them.
    pub as_drishti: std::cell::Cell<bool>,
    /// Rules held back, and why (Report::withheld).
    pub withheld: RefCell<Vec<Withheld>>,
    /// The heat maps (and DXT's binned segments): when the job read.
    pub heatmaps: &'a [crate::model::Heatmap],
    /// Σ submit-to-completion seconds of the io_uring reads and writes
    /// (IO_URING): I/O time POSIX's records do not hold.
    pub uring_time: f64,
}

/// A POSIX record whose metadata time passed `metadata_time_rank` (P17).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LongMetadata {
    pub id: u64,
    /// -1: a file every rank shared, whose time is summed over them.
    pub rank: i64,
    pub seconds: f64,
    /// POSIX_F_SLOWEST_RANK_TIME: a shared file's slowest rank's whole
    /// I/O time on it, the most any one rank spent in its metadata.
    pub slowest_rank_time: f64,
}

impl Ctx<'_> {
    /// A module's sums over the application's records (every record's
    /// while the rules count as Drishti does).
    pub fn sums(&self, module: usize) -> Option<&ModuleSums> {
        self.sums.get(module, self.as_drishti.get())
    }

    pub fn module_present(&self, name: &str) -> bool {
        self.modules_present.iter().any(|m| m == name)
    }

    /// The application's files of a module (the MPI library's own left out).
    pub fn files_of(&self, module: usize) -> impl Iterator<Item = &FileAgg> {
        self.files.of(module).filter(move |e| self.application_file(e.id))
    }

    /// Not a file the MPI library made for itself, nor (unless the rules
    /// count as Drishti does) software loading.
    pub fn application_file(&self, id: u64) -> bool {
        !self.internal.contains(&id) && (self.as_drishti.get() || !self.software.contains(&id))
    }

    /// Hold a rule back, saying why (once per code and reason).
    pub fn withhold(&self, code: &str, reason: String) {
        let w = Withheld { code: code.to_string(), reason };
        let mut v = self.withheld.borrow_mut();
        if !v.contains(&w) {
            v.push(w);
        }
    }

    /// The advice that fits the job's interfaces: `mpi` for an MPI job,
    /// `other` for one without MPI.
    pub fn advice(&self, mpi: &'static str, other: &'static str) -> &'static str {
        self.advice_for(mpi, other, other)
    }

    /// The advice that fits the job's interfaces: `mpi` for an MPI job,
    /// `python` for a Python job without MPI, `plain` for the others.
    pub fn advice_for(&self, mpi: &'static str, python: &'static str, plain: &'static str) -> &'static str {
        if self.mpi {
            mpi
        } else if self.python {
            python
        } else {
            plain
        }
    }

    /// Bytes under which a finding about data volume is not worth a
    /// reader's time (config `min_volume`, 1 MiB by default).
    pub fn min_volume(&self) -> f64 {
        self.cfg.get("min_volume")
    }

    /// Seconds under which a finding about time is not (config `min_time`).
    pub fn min_time(&self) -> f64 {
        self.cfg.get("min_time")
    }

    /// Every MPI-IO access to the file was collective (and there was at
    /// least one): its POSIX I/O is done by the MPI library's
    /// aggregators, so an uneven split between ranks is by design.
    pub fn collective_only(&self, id: u64) -> bool {
        self.files.get(darshan_log::modules::MPIIO, id).is_some_and(|m| {
            let (ir, iw, cr, cw) = m.mpiio_ops();
            ir + iw == 0 && cr + cw > 0
        })
    }

    /// Evidence lines for the files behind a finding: the `WORST` with
    /// the largest key first (ties by record id), then how many more.
    pub fn worst(&self, mut v: Vec<(f64, &FileAgg)>, line: impl Fn(&str, &FileAgg, f64) -> String) -> Vec<String> {
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
        let mut ev: Vec<String> =
            v.iter().take(WORST).map(|(k, e)| line(&crate::files::name_of(self.names, e.id), e, *k)).collect();
        if v.len() > WORST {
            ev.push(format!("and {} more files", v.len() - WORST));
        }
        ev
    }

    pub fn lustre_stripe_sizes(&self) -> Vec<i64> {
        let mut v: Vec<i64> = self.lustre.values().map(|s| s.stripe_size).filter(|s| *s > 0).collect();
        v.sort();
        v.dedup();
        v
    }

    /// `cb_nodes` from the MPI-IO hints.
    pub fn cb_nodes(&self) -> Option<i64> {
        self.hints?.split(';').find_map(|h| h.trim().strip_prefix("cb_nodes=")?.trim().parse().ok())
    }

    /// Compute nodes, from the DXT records' host names.
    pub fn nodes(&self) -> Option<i64> {
        (!self.dxt_hosts.is_empty()).then_some(self.dxt_hosts.len() as i64)
    }
}

pub fn finding(code: &str, level: Level, title: String, evidence: Vec<String>, rec: Option<&str>) -> Finding {
    Finding { code: code.to_string(), level, title, evidence, recommendation: rec.map(str::to_string) }
}

pub use crate::units::counted;

/// A share a over b (b = 0: infinite, so that any threshold is passed
/// only where there is something to share).
pub fn ratio(a: i64, b: i64) -> f64 {
    if b == 0 {
        f64::INFINITY
    } else {
        a as f64 / b as f64
    }
}

pub fn pct(a: i64, b: i64) -> String {
    if b == 0 {
        return "n/a".to_string();
    }
    format!("{:.2}%", a as f64 / b as f64 * 100.0)
}

/// All findings, most severe first (stable within a level), and the
/// rules held back with why.
pub fn diagnose(cx: &Ctx, metrics: &Metrics) -> (Vec<Finding>, Vec<Withheld>) {
    let drishti_view = as_drishti::counts(cx);
    let mut out = drishti::insights(cx);
    out.extend(lustre::advice(cx));
    out.extend(seed::findings(cx, metrics));
    if let Some(view) = drishti_view {
        view.tell(cx, &mut out);
    }
    out.extend(internals::named_once(cx));
    out.extend(software::summary(cx));
    if let Some(e) = epochs::passes(cx) {
        // The re-read bytes are the passes': said once, with the advice
        // that fits a data set read epoch after epoch.
        if let Some(k) = out.iter().position(|f| f.code == "P09") {
            out.remove(k);
            cx.withhold("P09", format!("the same re-reads as E01 ({})", e.title));
        }
        out.push(e);
    }
    out.sort_by(|a, b| a.level.cmp(&b.level));
    (out, cx.withheld.take())
}
