//! Building a report from a log in named phases: open (header, job, names),
//! stream (every module's records, one at a time, into the collectors),
//! assemble (figures and tables), diagnose. Memory grows with files and
//! ranks, never with the log's size or its DXT segments.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use darshan_log::modules::{self, module_name, MAX_MODS};
use darshan_log::{Extra, LogFile, Mount, NameTable, Record};

use crate::app_sums::{LeftOut, NotApplication, RuleSums};
use crate::categories::categorize;
use crate::diagnose::{self, seed, Config, Ctx, Striping};
use crate::files::{self, Files};
use crate::heat::{HeatAcc, DXT_BINS, TIMELINE_CAP};
use crate::model::*;
use crate::modstats::{self, ModuleSums};

pub struct Options {
    pub config: Config,
    /// Rows in each per-file table.
    pub top: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options { config: Config::default(), top: 10 }
    }
}

/// Everything gathered while records stream past.
#[derive(Default)]
struct Collected {
    sums: Vec<ModuleSums>,
    /// Software loading and the MPI library's own files, by name.
    not_app: NotApplication,
    /// Their records' sums, per module (app_sums.rs).
    left_out: Vec<LeftOut>,
    files: Files,
    /// POSIX_META (namespace.rs).
    namespace: crate::namespace::NamespaceAcc,
    /// PROCESSES (processes.rs).
    processes: crate::processes::ProcessesAcc,
    /// IO_URING (uring.rs).
    uring: crate::uring::UringAcc,
    /// Records read, per module id.
    records: Vec<u64>,
    long_metadata: Vec<diagnose::LongMetadata>,
    /// Metadata seconds by rank (a map: no more entries than records),
    /// the application's and the software loading's.
    rank_meta: std::collections::BTreeMap<i64, (f64, f64)>,
    shared_meta: (f64, f64),
    heat: Vec<HeatAcc>,
    timeline: Option<Timeline>,
    /// POSIX and STDIO records' first-to-last access spans.
    spans: crate::timespans::SpanAcc,
    lustre: HashMap<u64, Striping>,
    dxt_hosts: HashSet<String>,
}

/// The log could not be opened at all (what is wrong inside an opened
/// log becomes the report's warnings instead).
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct UnreadableLog {
    pub path: std::path::PathBuf,
    #[source]
    pub source: darshan_log::LogError,
}

pub fn analyze(path: &Path, opts: &Options) -> Result<Report, UnreadableLog> {
    // Phase 1: open.
    let log = LogFile::open(path).map_err(|e| UnreadableLog { path: path.to_path_buf(), source: e })?;
    let mut report = Report { schema: SCHEMA, ..Default::default() };
    report.log = log_info(path, &log);
    let mounts = log.job.mounts().unwrap_or_else(|e| {
        report.warnings.push(format!("The mount table could not be read ({e})."));
        Vec::new()
    });
    report.job = job_info(&log, &mounts);
    let names = log.names().unwrap_or_else(|e| {
        report.warnings.push(format!("The name table could not be read ({e}); files are shown by record id."));
        NameTable::new()
    });
    // Phase 2: stream.
    // Software loading and the MPI library's own files, by name (N02, N01).
    let not_app =
        NotApplication { software: diagnose::software::named(&names), internal: diagnose::internals::named(&names) };
    let left_out = not_app.software.union(&not_app.internal).copied().collect();
    let spans = crate::timespans::SpanAcc::new(report.job.nprocs, report.job.run_time, left_out);
    let mut c = Collected { records: vec![0; MAX_MODS], spans, not_app, ..Default::default() };
    // One entry per name is the usual size: reserving it spares a rehash
    // (and its doubled peak) on big logs.
    c.files.expect = names.len();
    for m in log.modules_present() {
        if m == modules::APMPI {
            let (mpi, n) = crate::mpi_comm::collect(&log, opts.top, &mut report.warnings);
            (report.mpi_comm, c.records[m]) = (mpi, n);
            continue;
        }
        stream_module(&log, m, &names, &report.job, opts, &mut c, &mut report.warnings);
    }
    if let Some(mpi) = report.mpi_comm.as_mut().filter(|_| report.job.run_time > 0.0) {
        mpi.run_share = mpi.mean_seconds / report.job.run_time;
    }
    // Software loading and the MPI library's own files are summed in one
    // line each (N02, N01), not listed among the application's files.
    let software = diagnose::software::find(&c.files, &c.not_app.software);
    let internal = diagnose::internals::find(&c.files, &c.not_app.internal);
    let listed = |e: &files::FileAgg| !software.contains(&e.id) && !internal.contains(&e.id);
    report.timespans = std::mem::take(&mut c.spans).finish();
    assemble(&log, &mut report, &mut c, (&names, &mounts), opts, &listed);
    diagnose_all(&mut report, &mut c, &names, opts, (software, internal));
    Ok(report)
}

/// Phase 3: the report's tables from what the stream collected.
fn assemble(
    log: &LogFile,
    report: &mut Report,
    c: &mut Collected,
    (names, mounts): (&NameTable, &[Mount]),
    opts: &Options,
    listed: &dyn Fn(&files::FileAgg) -> bool,
) {
    let nprocs = report.job.nprocs;
    report.modules = log
        .modules_present()
        .into_iter()
        .map(|m| ModuleInfo {
            name: module_name(m).to_string(),
            version: log.header.mod_ver[m],
            compressed_bytes: log.header.mod_map[m].len,
            records: c.records[m],
            partial: log.header.is_partial(m),
        })
        .collect();
    for mi in report.modules.iter().filter(|m| m.partial) {
        report.warnings.push(format!(
            "{} module data incomplete due to runtime memory or record count limits: its figures undercount.",
            mi.name
        ));
    }
    report.io_cost = modstats::io_cost(&c.sums, nprocs);
    report.module_stats = c
        .sums
        .iter()
        .filter(|s| s.records > 0)
        .map(|s| {
            let mut st = s.stats(&c.files);
            (st.op_counts, st.not_recorded) = modstats::op_counts(s.layout.module, &c.sums);
            st
        })
        .collect();
    report.heatmaps = std::mem::take(&mut c.heat).into_iter().map(HeatAcc::finish).collect();
    report.timeline = c.timeline.take();
    report.categories = categorize(&c.files, names, mounts, opts.top.max(8));
    report.files = file_tables(c, names, opts.top, &report.module_stats, nprocs, listed);
}

/// Phase 4: the findings, from the collected sums and the tables, with
/// the software's and the MPI library's own files told apart.
fn diagnose_all(
    report: &mut Report,
    c: &mut Collected,
    names: &NameTable,
    opts: &Options,
    (software, internal): (HashSet<u64>, HashSet<u64>),
) {
    let nprocs = report.job.nprocs;
    let present: Vec<String> = report.modules.iter().map(|m| m.name.clone()).collect();
    let hints = report.job.metadata.iter().find(|(k, _)| k == "h").map(|(_, v)| v.as_str());
    // An MPI job: it used MPI-IO, or its log holds several processes and
    // is not a job merge of processes without MPI (job_processes=).
    let merged = report.job.metadata.iter().any(|(k, _)| k == "job_processes");
    let mpi = present.iter().any(|m| m == "MPI-IO") || (nprocs > 1 && !merged);
    let python = diagnose::software::python(&report.job.command_line, names, &software);
    let rule_sums = RuleSums::new(&c.sums, &c.left_out);
    let per_rank: Vec<(f64, f64)> = c.rank_meta.values().copied().collect();
    let cx = Ctx {
        cfg: &opts.config,
        sums: &rule_sums,
        rank_meta: seed::RankMeta { per_rank: &per_rank, shared: c.shared_meta },
        files: &c.files,
        names,
        modules_present: &present,
        nprocs,
        run_time: report.job.run_time,
        long_metadata: &c.long_metadata,
        lustre: &c.lustre,
        dxt_hosts: &c.dxt_hosts,
        uring_time: c.uring.latency_sum(),
        hints,
        mpi,
        python,
        internal,
        software,
        as_drishti: Default::default(),
        withheld: Default::default(),
        heatmaps: &report.heatmaps,
    };
    report.metrics = seed::metrics(&cx, &report.heatmaps);
    (report.findings, report.withheld) = diagnose::diagnose(&cx, &report.metrics);
    report.namespace = std::mem::take(&mut c.namespace).finish(&c.files, opts.top);
    report.processes = std::mem::take(&mut c.processes).finish();
    report.io_uring = std::mem::take(&mut c.uring).finish(opts.top);
    if let Some(ns) = &report.namespace {
        report.findings.extend(diagnose::namespace::findings(ns, &opts.config, nprocs));
    }
    if let Some(u) = &report.io_uring {
        report.findings.extend(diagnose::uring::findings(u, &opts.config));
    }
    report.findings.extend(mpi_comm_findings(report, &opts.config));
    report.findings.sort_by(|a, b| a.level.cmp(&b.level));
}

/// C01 from the MPI communication section, with the job's slowest rank in
/// I/O (the interface whose time by slowest rank is the largest).
fn mpi_comm_findings(report: &Report, cfg: &diagnose::Config) -> Vec<crate::model::Finding> {
    let Some(m) = &report.mpi_comm else { return Vec::new() };
    let slowest_io = report
        .module_stats
        .iter()
        .filter_map(|s| s.overview.as_ref().map(|o| (s.module.clone(), o.agg_time_by_slowest)))
        .filter(|(_, t)| t.is_finite())
        .max_by(|a, b| a.1.total_cmp(&b.1));
    diagnose::mpi_comm::findings(m, report.job.run_time, slowest_io, cfg)
}

fn log_info(path: &Path, log: &LogFile) -> LogInfo {
    let meta = String::from_utf8_lossy(&log.job.metadata).into_owned();
    LogInfo {
        path: path.display().to_string(),
        file_name: path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default(),
        size_bytes: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        format_version: log.header.version.as_str().to_string(),
        runtime_version: meta.lines().find_map(|l| l.strip_prefix("lib_ver=")).map(str::to_string),
        compression: log.header.compression.label().to_string(),
        byte_swapped: log.header.swapped,
        partial: log.header.partial_flag != 0,
    }
}

/// The job's processes as its header says them: a job merge's ranks and
/// the processes under them (a rank's forked or spawned workers are part
/// of it), or ranks given by start order to logs that named none.
fn processes_said(nprocs: i64, metadata: &[(String, String)]) -> String {
    let get = |k: &str| metadata.iter().find(|(m, _)| m == k).map(|(_, v)| v.as_str());
    let processes = get("job_processes").and_then(|v| v.trim().parse::<i64>().ok());
    match (processes, get("job_ranks")) {
        (_, Some("start_order")) => {
            format!("{nprocs} (one rank each, in the order they started: their logs name no launcher rank)")
        }
        (Some(p), _) if p > nprocs => {
            format!(
                "{p} in {nprocs} rank{} (each rank's forked or spawned workers under it)",
                if nprocs == 1 { "" } else { "s" }
            )
        }
        _ => nprocs.to_string(),
    }
}

fn job_info(log: &LogFile, mounts: &[Mount]) -> JobInfo {
    let j = &log.job;
    let iso = |s: i64| {
        chrono::DateTime::from_timestamp(s, 0)
            .map(|d| d.format("%Y-%m-%d %H:%M:%S UTC").to_string())
            .unwrap_or_default()
    };
    let metadata: Vec<(String, String)> = j
        .metadata_pairs()
        .into_iter()
        .map(|(k, v)| (String::from_utf8_lossy(k).into_owned(), String::from_utf8_lossy(v).into_owned()))
        .collect();
    JobInfo {
        jobid: j.jobid,
        uid: j.uid,
        nprocs: j.nprocs,
        processes: processes_said(j.nprocs, &metadata),
        start_time: j.start_time_sec,
        end_time: j.end_time_sec,
        start: iso(j.start_time_sec),
        end: if j.ended() { iso(j.end_time_sec) } else { String::new() },
        run_time: if j.ended() { j.run_time(log.header.version) } else { 0.0 },
        ended: j.ended(),
        command_line: String::from_utf8_lossy(j.exe()).into_owned(),
        metadata,
        mounts: mounts
            .iter()
            .map(|m| (String::from_utf8_lossy(&m.path).into_owned(), String::from_utf8_lossy(&m.fs_type).into_owned()))
            .collect(),
        darshan_cost: darshan_cost(j),
    }
}

/// The runtime's own cost, as its log's metadata states it: the share as
/// written (it is of the processes' run time), else none said.
fn darshan_cost(j: &darshan_log::Job) -> Option<DarshanCost> {
    let c = darshan_log::cost::Cost::of_job(j)?;
    let share_pct = darshan_log::cost::stated_share(j);
    let total_ms = c.total_us() as f64 / 1e3;
    let share = share_pct.map_or_else(
        || "no run time to compare with".to_string(),
        |p| format!("{} % of the run", darshan_log::cost::share_text(p)),
    );
    Some(DarshanCost {
        total_ms,
        startup_ms: c.startup_us as f64 / 1e3,
        shutdown_ms: c.shutdown_us as f64 / 1e3,
        wrappers_ms: c.est_us as f64 / 1e3,
        calls: c.calls,
        call_ns: c.call_ns,
        share_pct,
        said: format!("Darshan's own cost: {} ms, {share}", ms_text(total_ms)),
    })
}

/// Milliseconds to two significant digits at least (0.81, 12, 1,234).
fn ms_text(ms: f64) -> String {
    if ms < 10.0 {
        format!("{ms:.2}")
    } else {
        crate::units::count(ms.round() as i64)
    }
}

fn stream_module(
    log: &LogFile,
    m: usize,
    names: &NameTable,
    job: &JobInfo,
    opts: &Options,
    c: &mut Collected,
    warnings: &mut Vec<String>,
) {
    let mut rd = match log.module_reader(m) {
        Ok(rd) => rd,
        Err(e) => {
            warnings.push(format!("{} records could not be read ({e}); the module is left out.", module_name(m)));
            return;
        }
    };
    let mut sums = ModuleSums::new(m, job.nprocs);
    let mut left_out = LeftOut::new(m);
    let meta_threshold = opts.config.get("metadata_time_rank");
    let mut rec = Record::new(m);
    loop {
        match rd.next_into(&mut rec) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                warnings.push(format!(
                    "{} records after the first {} could not be read ({e}); figures cover those read.",
                    module_name(m),
                    c.records[m]
                ));
                break;
            }
        }
        c.records[m] += 1;
        add_record(c, m, &rec, (names, job), sums.as_mut().zip(left_out.as_mut()), meta_threshold);
    }
    if let Some(s) = sums {
        c.sums.push(s);
    }
    c.left_out.extend(left_out);
}

/// One record into what its module collects: the namespace, io_uring and
/// processes tables, the module's sums and per-file figures, or the
/// heatmaps, DXT timelines and Lustre stripings.
fn add_record(
    c: &mut Collected,
    m: usize,
    rec: &Record,
    (names, job): (&NameTable, &JobInfo),
    sums: Option<(&mut ModuleSums, &mut LeftOut)>,
    meta_threshold: f64,
) {
    match m {
        modules::POSIX_META => return c.namespace.add(rec, names),
        modules::IO_URING => return c.uring.add(rec, names),
        modules::PROCESSES => return c.processes.add(rec),
        _ => {}
    }
    if let Some((s, left_out)) = sums {
        s.add(rec);
        left_out.add(rec, &c.not_app);
        if files::covered(m) && rec.counters.len() == s.counters.len() {
            c.files.add(&s.layout, rec);
        }
        if m == modules::POSIX {
            posix_meta(c, rec, meta_threshold);
        }
        if m == modules::POSIX || m == modules::STDIO {
            c.spans.add(&s.layout, rec);
        }
        return;
    }
    match &rec.extra {
        Extra::Heatmap { bin_width, write_bins, read_bins } => {
            heatmap(c, rec, names, job, (*bin_width, read_bins, write_bins))
        }
        Extra::Dxt { hostname, writes, reads, .. } => dxt(c, m, rec, hostname, writes, reads, job),
        Extra::Lustre { components, .. } => {
            if let Some(first) = components.first() {
                c.lustre.insert(rec.id, Striping { stripe_size: first.counters[0], stripe_count: first.counters[1] });
            }
        }
        _ => {}
    }
}

/// A HEATMAP record's bins into its heatmap (one per source module).
fn heatmap(c: &mut Collected, rec: &Record, names: &NameTable, job: &JobInfo, bins: (f64, &[i64], &[i64])) {
    let (bin_width, read_bins, write_bins) = bins;
    let sub = names
        .get(rec.id)
        .map(|n| String::from_utf8_lossy(n).trim_start_matches("heatmap:").replace('-', ""))
        .unwrap_or_else(|| format!("{:x}", rec.id));
    let name = format!("HEATMAP {sub}");
    let i = match c.heat.iter().position(|h| h.name == name) {
        Some(i) => i,
        None => {
            let n = write_bins.len().max(read_bins.len());
            c.heat.push(HeatAcc::new(&name, "HEATMAP", job.nprocs.max(1) as usize, n, bin_width));
            c.heat.len() - 1
        }
    };
    c.heat[i].add_rank_bins(rec.rank, read_bins, write_bins);
}

fn posix_meta(c: &mut Collected, rec: &Record, threshold: f64) {
    use darshan_log::counters::posix::F_META_TIME;
    use darshan_log::counters::posix::F_SLOWEST_RANK_TIME;
    let Some(&meta) = rec.fcounters.get(F_META_TIME) else { return };
    // One entry per record read: no more than the log's bytes hold.
    if meta > threshold {
        let slowest_rank_time = rec.fcounters.get(F_SLOWEST_RANK_TIME).copied().unwrap_or(0.0);
        c.long_metadata.push(diagnose::LongMetadata { id: rec.id, rank: rec.rank, seconds: meta, slowest_rank_time });
    }
    let (app, software) = if c.not_app.application(rec.id) {
        (meta, 0.0)
    } else if c.not_app.software.contains(&rec.id) {
        (0.0, meta)
    } else {
        return;
    };
    let t = if rec.rank < 0 { &mut c.shared_meta } else { c.rank_meta.entry(rec.rank).or_default() };
    (t.0, t.1) = (t.0 + app, t.1 + software);
}

fn dxt(
    c: &mut Collected,
    m: usize,
    rec: &Record,
    hostname: &[u8; 64],
    writes: &[darshan_log::DxtSegment],
    reads: &[darshan_log::DxtSegment],
    job: &JobInfo,
) {
    let host = hostname.split(|b| *b == 0).next().unwrap_or(&[]);
    if !host.is_empty() {
        c.dxt_hosts.insert(String::from_utf8_lossy(host).into_owned());
    }
    let name = module_name(m).to_string();
    let i = match c.heat.iter().position(|h| h.name == name) {
        Some(i) => i,
        None => {
            // Bins span the run, or the first record's segments when they
            // end later (the rest are clamped into the last bin).
            let end = writes.iter().chain(reads).map(|s| s.end_time).fold(job.run_time, f64::max);
            let width = end.max(1e-6) / DXT_BINS as f64;
            c.heat.push(HeatAcc::new(&name, &name, job.nprocs.max(1) as usize, DXT_BINS, width));
            c.heat.len() - 1
        }
    };
    let segs = writes.iter().map(|s| (s, true)).chain(reads.iter().map(|s| (s, false)));
    c.heat[i].add_segments(rec.rank, segs.clone().map(|(s, w)| (s.start_time, s.end_time, s.length as f64, w)));
    // The timeline shows the first DXT module streamed: modules come in id
    // order, so DXT_POSIX when both are present.
    let tl = c.timeline.get_or_insert_with(|| Timeline {
        source: name.clone(),
        nranks: job.nprocs.max(1) as usize,
        ..Default::default()
    });
    if tl.source == name {
        for (s, w) in segs {
            tl.total_segments += 1;
            tl.end_time = tl.end_time.max(s.end_time);
            if tl.segments.len() < TIMELINE_CAP {
                tl.segments.push((rec.rank, s.start_time, s.end_time, s.length, w));
            } else {
                tl.truncated = true;
            }
        }
    }
}

fn file_tables(
    c: &Collected,
    names: &NameTable,
    n: usize,
    stats: &[ModuleStats],
    nprocs: i64,
    listed: &dyn Fn(&files::FileAgg) -> bool,
) -> FileTables {
    // Shared files only: `time_imbalance` is None (0) for the others.
    let rows = |v: Vec<&files::FileAgg>| v.into_iter().map(|e| files::row(names, e, nprocs)).collect::<Vec<_>>();
    let sharing = ["POSIX", "MPI-IO", "STDIO"]
        .iter()
        .find_map(|m| stats.iter().find(|s| s.module == *m).and_then(|s| s.overview.as_ref().map(|o| (m, o))))
        .map(|(m, o)| {
            let cat = |i: usize| o.categories.get(i).cloned().unwrap_or_default();
            let bytes = |i: usize| cat(i).total_read + cat(i).total_write;
            Sharing {
                module: m.to_string(),
                unique: cat(4).count,
                shared: cat(5).count,
                partially_shared: cat(6).count,
                unique_bytes: bytes(4),
                shared_bytes: bytes(5),
                partially_shared_bytes: bytes(6),
            }
        })
        .unwrap_or_default();
    FileTables {
        by_bytes: rows(files::top(&c.files, n, |e| {
            if listed(e) {
                (e.bytes_read() + e.bytes_written()) as f64
            } else {
                0.0
            }
        })),
        by_time: rows(files::top(&c.files, n, |e| if listed(e) { e.io_time } else { 0.0 })),
        by_slowest_rank: rows(files::top(&c.files, n, |e| if listed(e) { e.slowest.1 } else { 0.0 })),
        imbalance: rows(files::top(&c.files, n, |e| if listed(e) { e.time_imbalance().unwrap_or(0.0) } else { 0.0 })),
        sharing,
    }
}
