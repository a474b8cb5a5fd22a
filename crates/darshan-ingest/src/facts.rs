//! What a job is compared with its own history on (darshan-summary
//! `--history`, darshan-study's regressions): per module and for the job
//! as a whole, its bytes, operations by size bucket, metadata operations
//! and time, read and write time, slowest rank, files opened, shared and
//! unique files, collective and independent MPI-IO, POSIX_META's counts.
//!
//! One set of rules, fed record by record: by darshan-ingest as it reads
//! a log (the `job_facts` table), by the upgrade of a database ingested
//! before that table existed (its records rebuilt from the record
//! tables), and by the report for the log it is about. With `files`, it
//! also keeps each file's figures, for naming the files a change is in.

use std::collections::{BTreeMap, HashMap};

use darshan_log::modules::{self, counter_names, module_name};
use darshan_log::roles::{self, time_at, Roles};
use darshan_log::Record;
use darshan_util::mpi_comm::CommTotals;

/// The module name of the facts about the job as a whole.
pub const JOB: &str = "job";

/// One figure: (module name or [`JOB`], fact name, value). Facts that are
/// 0 are not listed: an absent fact is 0.
pub type Fact = (String, String, f64);

/// Modules whose files are the files the job touched (the job's file
/// count is over their record ids).
const FILE_MODULES: [usize; 8] = [
    modules::POSIX,
    modules::STDIO,
    modules::MPIIO,
    modules::H5F,
    modules::PNETCDF_FILE,
    modules::DFS,
    modules::DAOS,
    modules::IO_URING,
];
/// The lowest layers: what their bytes and times say reached the files
/// (MPI-IO's and HDF5's run through POSIX's, so they are not added).
const BOTTOM_MODULES: [usize; 5] = [modules::POSIX, modules::STDIO, modules::DFS, modules::DAOS, modules::IO_URING];
/// Layers stacked on POSIX: a rank's time in I/O is the largest of these
/// (each contains the ones beneath), plus its STDIO time.
const STACKED: [&[usize]; 4] = [
    &[modules::POSIX],
    &[modules::MPIIO],
    &[modules::H5F, modules::H5D],
    &[modules::PNETCDF_FILE, modules::PNETCDF_VAR],
];

/// Counter suffixes that are metadata operations.
const META_OPS: [&str; 8] = ["OPENS", "INDEP_OPENS", "COLL_OPENS", "STATS", "FSYNCS", "FDSYNCS", "SYNCS", "FLUSHES"];
/// POSIX_META counters that are amounts, not operations.
const META_AMOUNTS: [&str; 3] = ["DIR_ENTRIES", "MMAP_BYTES", "MMAP_SHARED_WRITE_BYTES"];

/// One file's figures in one module (summed over its records).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileFacts {
    pub module: usize,
    pub name: String,
    /// The one rank that used it, or -1 when it was shared.
    pub rank: i64,
    pub bytes_read: f64,
    pub bytes_written: f64,
    pub time: f64,
    /// Operations per size bucket: (label, reads, writes).
    pub buckets: Vec<(String, f64, f64)>,
}

impl FileFacts {
    /// The size bucket most of its reads (or writes) fell in.
    pub fn usual_bucket(&self, writes: bool) -> Option<&str> {
        let count = |b: &(String, f64, f64)| if writes { b.2 } else { b.1 };
        let best = self.buckets.iter().filter(|b| count(b) > 0.0).max_by(|a, b| count(a).total_cmp(&count(b)))?;
        Some(&best.0)
    }
}

/// What a module's facts are and where each counter goes, made once per
/// module for the whole run (darshan-ingest reads thousands of logs).
struct Layout {
    roles: Roles,
    /// Each fact's name, in a fixed order.
    names: Vec<String>,
    /// Counters summed into facts: bytes, operations, buckets, metadata.
    counters: Vec<Route>,
    /// Fcounters (times) summed into facts.
    fcounters: Vec<Route>,
}

impl Layout {
    /// The layout of `module`'s facts, made at its first use.
    fn of(module: usize, prefix: &'static str) -> &'static Layout {
        static LAYOUTS: std::sync::OnceLock<Vec<std::sync::OnceLock<Layout>>> = std::sync::OnceLock::new();
        let all = LAYOUTS.get_or_init(|| (0..modules::MAX_MODS).map(|_| std::sync::OnceLock::new()).collect());
        all[module].get_or_init(|| Layout::new(module, prefix))
    }

    fn new(module: usize, prefix: &'static str) -> Layout {
        let roles = Roles::named(module, prefix);
        let names = counter_names(module).0;
        let mut l = Layout { roles: Roles::default(), names: Vec::new(), counters: Vec::new(), fcounters: Vec::new() };
        for (fact, k) in [
            ("bytes_read", roles.bytes_read),
            ("bytes_written", roles.bytes_written),
            ("reads", roles.reads),
            ("writes", roles.writes),
        ] {
            l.route(fact.to_string(), k, false);
        }
        for (fact, k) in
            [("read_time", roles.read_time), ("write_time", roles.write_time), ("meta_time", roles.meta_time)]
        {
            l.route(fact.to_string(), k, true);
        }
        for (label, i, j) in &roles.size_buckets {
            l.route(format!("read_{label}"), Some(*i), false);
            l.route(format!("write_{label}"), Some(*j), false);
        }
        let meta_ops = l.slot("meta_ops".to_string());
        for (k, n) in names.iter().enumerate() {
            let Some(suffix) = n.strip_prefix(prefix).and_then(|s| s.strip_prefix('_')) else { continue };
            let is_meta = if module == modules::POSIX_META {
                !META_AMOUNTS.contains(&suffix)
            } else {
                META_OPS.contains(&suffix)
            };
            if is_meta {
                l.counters.push((k, meta_ops));
                if module == modules::POSIX_META {
                    l.route(suffix.to_ascii_lowercase(), Some(k), false);
                }
            }
        }
        if module == modules::MPIIO {
            let (coll, indep) = (l.slot("collective_ops".into()), l.slot("independent_ops".into()));
            for (n, to) in
                [("COLL_READS", coll), ("COLL_WRITES", coll), ("INDEP_READS", indep), ("INDEP_WRITES", indep)]
            {
                if let Some(k) = roles.counter(&format!("MPIIO_{n}")) {
                    l.counters.push((k, to));
                }
            }
        }
        l.roles = roles;
        l
    }

    fn slot(&mut self, fact: String) -> usize {
        self.names.push(fact);
        self.names.len() - 1
    }

    fn route(&mut self, fact: String, k: Option<usize>, time: bool) {
        let Some(k) = k else { return };
        let s = self.slot(fact);
        if time {
            self.fcounters.push((k, s))
        } else {
            self.counters.push((k, s))
        }
    }
}

/// The counters and fcounters of `module` the facts read (a database's
/// records are read back with these columns only).
pub fn read_counters(module: usize) -> (Vec<usize>, Vec<usize>) {
    let Some(prefix) = roles::prefix(module).or_else(|| roles::extension_prefix(module)) else {
        return (Vec::new(), Vec::new());
    };
    let l = Layout::of(module, prefix);
    let r = &l.roles;
    let mut c: Vec<usize> = l.counters.iter().map(|x| x.0).chain(r.slowest_rank).collect();
    let mut f: Vec<usize> = l.fcounters.iter().map(|x| x.0).chain(r.f_slowest_time).collect();
    c.sort_unstable();
    c.dedup();
    f.sort_unstable();
    f.dedup();
    (c, f)
}

/// Where a counter's value goes: (counter index, fact index).
type Route = (usize, usize);

struct ModuleAcc {
    layout: &'static Layout,
    roles: &'static Roles,
    /// The sum of each of the layout's facts.
    sums: Vec<f64>,
    /// Record id → the rank that used it, -1 once a second rank did.
    ranks_of: HashMap<u64, i64>,
    rank_time: BTreeMap<i64, f64>,
}

impl ModuleAcc {
    fn new(module: usize, prefix: &'static str) -> ModuleAcc {
        let layout = Layout::of(module, prefix);
        ModuleAcc {
            layout,
            roles: &layout.roles,
            sums: vec![0.0; layout.names.len()],
            ranks_of: HashMap::new(),
            rank_time: BTreeMap::new(),
        }
    }

    fn inject(&mut self, rec: &Record) {
        for &(k, s) in &self.layout.counters {
            // Not recorded (C's -1 in POSIX_MMAPS) and damage are no count.
            if let Some(v) = rec.counters.get(k).copied().filter(|v| *v > 0) {
                self.sums[s] += v as f64;
            }
        }
        for &(k, s) in &self.layout.fcounters {
            if let Some(v) = rec.fcounters.get(k).copied().filter(|v| *v > 0.0 && v.is_finite()) {
                self.sums[s] += v;
            }
        }
        let r = self.roles;
        let time = r.io_time(rec);
        let slowest = r.slowest_rank.and_then(|k| rec.counters.get(k).copied());
        let slowest_time = time_at(rec, r.f_slowest_time);
        self.ranks_of
            .entry(rec.id)
            .and_modify(|r| {
                if *r != rec.rank {
                    *r = -1
                }
            })
            .or_insert(rec.rank);
        // A shared record's time is its ranks' sum: the slowest rank's
        // own is what it says it had.
        match (rec.rank, slowest) {
            (r, _) if r >= 0 => *self.rank_time.entry(r).or_default() += time,
            (_, Some(s)) if s >= 0 && slowest_time > 0.0 => *self.rank_time.entry(s).or_default() += slowest_time,
            _ => {}
        }
    }

    fn facts(self, module: &str, out: &mut Vec<Fact>) {
        let shared = self.ranks_of.values().filter(|r| **r < 0).count();
        let counts =
            [("files", self.ranks_of.len()), ("shared_files", shared), ("unique_files", self.ranks_of.len() - shared)];
        let mut push = |fact: &str, v: f64| {
            if v != 0.0 {
                out.push((module.to_string(), fact.to_string(), v));
            }
        };
        for (fact, n) in counts {
            push(fact, n as f64);
        }
        for (fact, v) in self.layout.names.iter().zip(&self.sums) {
            push(fact, *v);
        }
        if let Some((rank, t)) = slowest(&self.rank_time) {
            push("slowest_rank_time", t);
            out.push((module.to_string(), "slowest_rank".into(), rank as f64));
        }
    }
}

/// The rank with the most time, and its time (the lowest rank on a tie).
fn slowest(rank_time: &BTreeMap<i64, f64>) -> Option<(i64, f64)> {
    rank_time.iter().filter(|(_, t)| **t > 0.0).fold(None, |best, (r, t)| match best {
        Some((_, bt)) if bt >= *t => best,
        _ => Some((*r, *t)),
    })
}

/// The application's own I/O, for the job's facts: files the job loaded
/// as software (darshan_log::software: interpreters' modules, packages,
/// shared libraries) are left out, as the report leaves them out of its
/// file-level findings.
#[derive(Default)]
struct AppAcc {
    ids: std::collections::HashSet<u64>,
    bytes_read: f64,
    bytes_written: f64,
    io_time: f64,
}

/// The facts of one job, fed its records one at a time.
#[derive(Default)]
pub struct FactsBuilder {
    modules: BTreeMap<usize, ModuleAcc>,
    app: AppAcc,
    files: Option<HashMap<(usize, u64), FileFacts>>,
    /// The job's MPI communication (AutoPerf's APMPI records), as facts.
    comm: Vec<Fact>,
}

impl FactsBuilder {
    pub fn new() -> FactsBuilder {
        FactsBuilder::default()
    }

    /// Also keep each file's figures ([`FactsBuilder::files`]).
    pub fn with_files() -> FactsBuilder {
        FactsBuilder { files: Some(HashMap::new()), ..Default::default() }
    }

    /// Whether the facts take this module's records (others are skipped).
    pub fn takes(module: usize) -> bool {
        roles::prefix(module).or_else(|| roles::extension_prefix(module)).is_some()
    }

    /// One record, with its file's name when the log has one.
    pub fn inject(&mut self, rec: &Record, name: Option<&[u8]>) {
        let Some(prefix) = roles::prefix(rec.module).or_else(|| roles::extension_prefix(rec.module)) else { return };
        let acc = self.modules.entry(rec.module).or_insert_with(|| ModuleAcc::new(rec.module, prefix));
        acc.inject(rec);
        let software =
            name.is_some_and(|n| darshan_log::software::software_loading(&String::from_utf8_lossy(n)).is_some());
        if !software {
            app_inject(&mut self.app, acc.roles, rec);
        }
        if let Some(files) = self.files.as_mut() {
            file_inject(files, acc.roles, rec, name);
        }
    }

    /// The job's MPI communication, from its APMPI records
    /// (darshan_util::mpi_comm): under the module APMPI, the ranks'
    /// communication time added up and the slowest rank's, and each
    /// operation's calls, bytes and time, so that a run whose time went to
    /// MPI rather than to I/O is told from its history.
    pub fn comm(&mut self, t: &CommTotals) {
        let module = module_name(modules::APMPI);
        if t.most.seconds > 0.0 && t.most.seconds.is_finite() {
            // Which rank, as the I/O scopes name theirs (rank 0 too).
            self.comm.push((module.to_string(), "slowest_rank".into(), t.most.rank as f64));
        }
        let mut push = |fact: String, v: f64| {
            if v != 0.0 && v.is_finite() {
                self.comm.push((module.to_string(), fact, v));
            }
        };
        push("comm_time".into(), t.seconds);
        push("slowest_rank_comm_time".into(), t.most.seconds);
        for o in &t.ops {
            push(format!("{}_calls", o.name), o.calls as f64);
            push(format!("{}_bytes", o.name), o.bytes.unwrap_or(0) as f64);
            push(format!("{}_time", o.name), o.seconds);
        }
    }

    /// The job's facts; `run_time` is the job's (from its header).
    pub fn finish(self, run_time: f64) -> (Vec<Fact>, Vec<FileFacts>) {
        let mut out = Vec::new();
        if run_time > 0.0 {
            out.push((JOB.to_string(), "run_time".to_string(), run_time));
        }
        job_facts(&self.modules, &self.app, &mut out);
        for (m, acc) in self.modules {
            acc.facts(module_name(m), &mut out);
        }
        out.extend(self.comm);
        let mut files: Vec<FileFacts> = self.files.map(|f| f.into_values().collect()).unwrap_or_default();
        files.sort_by(|a, b| (a.module, &a.name).cmp(&(b.module, &b.name)));
        (out, files)
    }
}

fn file_inject(files: &mut HashMap<(usize, u64), FileFacts>, r: &Roles, rec: &Record, name: Option<&[u8]>) {
    let c =
        |k: Option<usize>| k.and_then(|k| rec.counters.get(k).copied()).filter(|v| *v > 0).map_or(0.0, |v| v as f64);
    let e = files.entry((rec.module, rec.id)).or_insert_with(|| FileFacts {
        module: rec.module,
        name: name.map_or_else(|| format!("<record {:016x}>", rec.id), |n| String::from_utf8_lossy(n).into_owned()),
        rank: rec.rank,
        buckets: r.size_buckets.iter().map(|(l, _, _)| (l.clone(), 0.0, 0.0)).collect(),
        ..Default::default()
    });
    if e.rank != rec.rank {
        e.rank = -1;
    }
    e.bytes_read += c(r.bytes_read);
    e.bytes_written += c(r.bytes_written);
    e.time += r.io_time(rec);
    for (b, (_, i, j)) in e.buckets.iter_mut().zip(&r.size_buckets) {
        b.1 += c(Some(*i));
        b.2 += c(Some(*j));
    }
}

fn app_inject(app: &mut AppAcc, r: &Roles, rec: &Record) {
    if FILE_MODULES.contains(&rec.module) {
        app.ids.insert(rec.id);
    }
    if BOTTOM_MODULES.contains(&rec.module) {
        let c = |k: Option<usize>| {
            k.and_then(|k| rec.counters.get(k).copied()).filter(|v| *v > 0).map_or(0.0, |v| v as f64)
        };
        app.bytes_read += c(r.bytes_read);
        app.bytes_written += c(r.bytes_written);
        app.io_time += r.io_time(rec);
    }
}

/// The job as a whole: the application's files, what reached them, and
/// its slowest rank.
fn job_facts(accs: &BTreeMap<usize, ModuleAcc>, app: &AppAcc, out: &mut Vec<Fact>) {
    let mut push = |fact: &str, v: f64| {
        if v != 0.0 {
            out.push((JOB.to_string(), fact.to_string(), v));
        }
    };
    push("files", app.ids.len() as f64);
    push("bytes_read", app.bytes_read);
    push("bytes_written", app.bytes_written);
    push("io_time", app.io_time);
    let time_of = |ms: &[usize], rank: i64| -> f64 {
        ms.iter().filter_map(|m| accs.get(m)).filter_map(|a| a.rank_time.get(&rank)).sum()
    };
    let mut per_rank: BTreeMap<i64, f64> = BTreeMap::new();
    let ranks: std::collections::BTreeSet<i64> = accs.values().flat_map(|a| a.rank_time.keys().copied()).collect();
    for r in ranks {
        let stacked = STACKED.iter().map(|ms| time_of(ms, r)).fold(0.0, f64::max);
        per_rank.insert(r, stacked + time_of(&[modules::STDIO], r));
    }
    if let Some((rank, t)) = slowest(&per_rank) {
        push("slowest_rank_time", t);
        out.push((JOB.to_string(), "slowest_rank".into(), rank as f64));
    }
}

/// Scopes whose facts exist only where something measured them: a run
/// without AutoPerf's APMPI records did not spend 0 s in MPI, its
/// communication is unknown. Such a scope is judged only when this run has
/// it, against the earlier runs that have it (darshan-history).
pub const MEASURED_ONLY: [&str; 1] = ["APMPI"];

/// Whether a fact names a thing (a rank) rather than an amount: it is
/// shown, never judged.
pub fn is_label(fact: &str) -> bool {
    fact == "slowest_rank"
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::counters::{mpiio as mx, posix as px};

    fn rec(module: usize, id: u64, rank: i64) -> Record {
        Record::zeroed(module, id, rank)
    }

    fn get(facts: &[Fact], module: &str, fact: &str) -> f64 {
        facts.iter().find(|f| f.0 == module && f.1 == fact).map_or(0.0, |f| f.2)
    }

    #[test]
    fn a_file_two_ranks_used_is_shared_and_the_slowest_rank_is_the_one_with_most_time() {
        let mut b = FactsBuilder::with_files();
        let mut a = rec(modules::POSIX, 1, 0);
        a.counters[px::BYTES_WRITTEN] = 1 << 20;
        a.counters[px::WRITES] = 1;
        a.counters[px::SIZE_WRITE_1M_4M] = 1;
        a.counters[px::OPENS] = 1;
        a.fcounters[px::F_WRITE_TIME] = 0.5;
        let mut c = a.clone();
        c.rank = 1;
        c.fcounters[px::F_WRITE_TIME] = 2.0;
        let mut own = rec(modules::POSIX, 2, 3);
        own.fcounters[px::F_META_TIME] = 0.25;
        own.counters[px::STATS] = 4;
        for r in [&a, &c, &own] {
            b.inject(r, Some(b"/f"));
        }
        let (facts, files) = b.finish(10.0);
        assert_eq!(get(&facts, "POSIX", "files"), 2.0);
        assert_eq!(get(&facts, "POSIX", "shared_files"), 1.0);
        assert_eq!(get(&facts, "POSIX", "unique_files"), 1.0);
        assert_eq!(get(&facts, "POSIX", "write_1M_4M"), 2.0);
        assert_eq!(get(&facts, "POSIX", "meta_ops"), 6.0);
        assert_eq!(get(&facts, "POSIX", "slowest_rank"), 1.0);
        assert_eq!(get(&facts, "POSIX", "slowest_rank_time"), 2.0);
        assert_eq!(get(&facts, JOB, "bytes_written"), 2.0 * (1 << 20) as f64);
        assert_eq!(get(&facts, JOB, "run_time"), 10.0);
        assert_eq!(get(&facts, "POSIX", "read_0_100"), 0.0, "zeros are not listed");
        assert_eq!(files.iter().find(|f| f.rank == -1).and_then(|f| f.usual_bucket(true)), Some("1M_4M"));
    }

    #[test]
    fn a_rank_waiting_in_mpi_io_is_the_jobs_slowest_though_its_posix_time_is_small() {
        let mut b = FactsBuilder::new();
        let mut m0 = rec(modules::MPIIO, 9, 0);
        m0.fcounters[mx::F_WRITE_TIME] = 0.1;
        m0.counters[mx::COLL_WRITES] = 4;
        let mut m2 = m0.clone();
        m2.rank = 2;
        m2.fcounters[mx::F_WRITE_TIME] = 0.9;
        let mut p0 = rec(modules::POSIX, 9, 0);
        p0.fcounters[px::F_WRITE_TIME] = 0.3;
        for r in [&m0, &m2, &p0] {
            b.inject(r, None);
        }
        let (facts, _) = b.finish(0.0);
        assert_eq!(get(&facts, JOB, "slowest_rank"), 2.0);
        assert_eq!(get(&facts, JOB, "slowest_rank_time"), 0.9);
        assert_eq!(get(&facts, "MPI-IO", "collective_ops"), 8.0);
        assert_eq!(get(&facts, JOB, "files"), 1.0);
    }
}
