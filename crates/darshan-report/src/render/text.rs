//! The report for a terminal: the same facts as the HTML page, in tables
//! of plain text, then the diagnosis. `darshan-run` prints this.

use std::fmt::Write;

use crate::model::{Level, ModuleStats, Overview, Report};
use darshan_util::visible::Visible as V;

use crate::units::{bytes, count, counted, noun, secs};

/// What the header says of a log without an end (a crash-safe file).
pub const NOT_ENDED: &str = "unknown: the process did not finish (a crash-safe file; darshan-merge makes its log)";

/// The job and the log: what ran, how long, what the runtime cost, and
/// the log's own warnings.
fn header(o: &mut String, r: &Report) {
    let j = &r.job;
    let _ = writeln!(o, "Darshan job summary: {}", V(&r.log.file_name));
    let _ = writeln!(o, "  command     {}", V(&j.command_line));
    let _ = writeln!(o, "  job id      {}    uid {}    processes {}", j.jobid, j.uid, j.processes);
    if j.ended {
        let _ = writeln!(o, "  run time    {} ({} to {})", secs(j.run_time), V(&j.start), V(&j.end));
    } else {
        let _ = writeln!(o, "  run time    {NOT_ENDED} (started {})", V(&j.start));
    }
    if let Some(c) = &j.darshan_cost {
        let _ = writeln!(
            o,
            "  {} (start-up {:.2}, shutdown {:.2}, {} calls x {:.0} ns = {:.2} ms)",
            c.said,
            c.startup_ms,
            c.shutdown_ms,
            count(c.calls as i64),
            c.call_ns,
            c.wrappers_ms
        );
    }
    let _ = writeln!(
        o,
        "  log         format {}, runtime {}, {} compression, {}",
        r.log.format_version,
        V(r.log.runtime_version.as_deref().unwrap_or("unknown")),
        r.log.compression,
        bytes(r.log.size_bytes as f64)
    );
    for w in &r.warnings {
        let _ = writeln!(o, "  WARNING     {}", V(w));
    }
}

/// The run against its earlier runs (`--history`; darshan-run prints it
/// too).
pub fn history(o: &mut String, h: &darshan_history::Section) {
    let _ = writeln!(o, "\nAgainst earlier runs\n  {}", V(&h.said));
    for k in &h.ranks {
        let _ = writeln!(o, "  {}: {}", V(&k.scope), V(&k.said));
    }
    for c in &h.changes {
        let _ = writeln!(
            o,
            "  {} {}: {} now, usually {} (no change within {})",
            V(&c.scope),
            V(&c.label),
            V(&c.now_text),
            V(&c.usual_text),
            V(&c.range_text)
        );
        for x in &c.carriers {
            let _ = writeln!(o, "      {}", V(x));
        }
    }
    for f in &h.files {
        let _ = writeln!(o, "  file {} ({}): {}", V(&f.name), V(&f.module), V(&f.said));
    }
    for v in &h.values {
        let earlier: Vec<String> = v.earlier_text.iter().map(|e| V(e).to_string()).collect();
        let _ = writeln!(o, "  {:<28} {:>12}   earlier: {}", V(&v.label), V(&v.now_text), earlier.join(", "));
    }
    for n in &h.notes {
        let _ = writeln!(o, "  note: {}", V(n));
    }
}

pub fn render(r: &Report) -> String {
    let mut o = String::new();
    header(&mut o, r);
    if let Some(h) = &r.history {
        history(&mut o, h);
    }
    if r.modules.is_empty() {
        let _ = writeln!(o, "\nThis log has no instrumentation records: the program did no I/O that Darshan saw.");
    }
    io_cost(&mut o, r);
    if let Some(u) = &r.io_uring {
        io_uring(&mut o, u);
    }
    if let Some(m) = &r.mpi_comm {
        mpi_comm(&mut o, m);
    }
    if let Some(ns) = &r.namespace {
        namespace(&mut o, ns);
    }
    if let Some(p) = &r.processes {
        processes(&mut o, p);
    }
    for s in &r.module_stats {
        module(&mut o, s);
    }
    files(&mut o, r);
    if let Some(t) = &r.timespans {
        timespans(&mut o, t);
    }
    metrics(&mut o, r);
    findings(&mut o, r);
    o
}

/// The average I/O cost per process, by interface.
fn io_cost(o: &mut String, r: &Report) {
    if !r.io_cost.is_empty() {
        let _ = writeln!(
            o,
            "\nI/O cost (average per process)\n  {:<10} {:>12} {:>12} {:>12} {:>12}",
            "", "read", "write", "meta", "wait"
        );
        for c in &r.io_cost {
            let _ = writeln!(
                o,
                "  {:<10} {:>12} {:>12} {:>12} {:>12}",
                V(&c.interface),
                cost(c.read),
                cost(c.write),
                cost(c.meta),
                cost(c.wait)
            );
        }
    }
}

/// A time per process, or that the log's runtime did not record it.
fn cost(v: Option<f64>) -> String {
    v.map_or_else(|| "not recorded".to_string(), secs)
}

/// One module's figures: overview, access pattern and sizes, operations.
fn module(o: &mut String, s: &ModuleStats) {
    let _ = writeln!(o, "\n{} ({})", V(&s.module), counted(s.records as i64, "record"));
    if let Some(ov) = &s.overview {
        overview(o, ov);
    }
    if let Some(p) = &s.access_pattern {
        let _ = writeln!(
            o,
            "  access pattern     reads {} (seq {}, consec {}), writes {} (seq {}, consec {})",
            count(p.reads),
            count(p.seq_reads),
            count(p.consec_reads),
            count(p.writes),
            count(p.seq_writes),
            count(p.consec_writes)
        );
    }
    if s.access_sizes.iter().any(|(_, r, w)| *r != 0 || *w != 0) {
        let hist: Vec<String> = s
            .access_sizes
            .iter()
            .filter(|(_, r, w)| *r != 0 || *w != 0)
            .map(|(l, r, w)| format!("{l}: {}r/{}w", count(*r), count(*w)))
            .collect();
        let _ = writeln!(o, "  access sizes       {}", hist.join(", "));
    }
    if !s.common_access.is_empty() {
        let common: Vec<String> = s.common_access.iter().map(|(sz, n)| format!("{sz} B × {}", count(*n))).collect();
        let _ = writeln!(o, "  common accesses    {}", common.join(", "));
    }
    let ops: Vec<String> =
        s.op_counts.iter().filter(|(_, n)| *n != 0).map(|(l, n)| format!("{l} {}", count(*n))).collect();
    if !ops.is_empty() {
        let _ = writeln!(o, "  operations         {}", ops.join(", "));
    }
    if !s.not_recorded.is_empty() {
        let _ = writeln!(
            o,
            "  not recorded       {} (the runtime that wrote this log does not count them)",
            s.not_recorded.join(", ")
        );
    }
}

/// A module's files, bytes and rate, and its file categories.
fn overview(o: &mut String, ov: &Overview) {
    let _ = writeln!(
        o,
        "  {}, {} read, {} written, {:.2} MiB/s by the slowest rank ({} in I/O)",
        counted(ov.files, "file"),
        bytes(ov.bytes_read as f64),
        bytes(ov.bytes_written as f64),
        ov.agg_perf_by_slowest,
        secs(ov.agg_time_by_slowest)
    );
    for c in ov.categories.iter().skip(1).take(3).filter(|c| c.count > 0) {
        if ov.sizes_recorded {
            let _ = writeln!(
                o,
                "  {:<18} {:>8} {}, avg {}, max {}",
                c.kind,
                count(c.count),
                noun(c.count, "file"),
                bytes(c.avg_size),
                bytes(c.max_size as f64)
            );
        } else {
            let files = noun(c.count, "file");
            let _ = writeln!(o, "  {:<18} {:>8} {files} (sizes not recorded by this module)", c.kind, count(c.count));
        }
    }
}

/// The MPI communication section (AutoPerf's APMPI records).
fn mpi_comm(o: &mut String, m: &crate::model::MpiComm) {
    let _ = writeln!(
        o,
        "\nMPI communication (APMPI, {} on {}): {} per rank on average ({:.1}% of the run), least {} (rank {}), most {} (rank {})",
        counted(m.ranks as i64, "rank"),
        counted(m.nodes as i64, "node"),
        secs(m.mean_seconds),
        m.run_share * 100.0,
        secs(m.least.seconds),
        m.least.rank,
        secs(m.most.seconds),
        m.most.rank
    );
    for op in &m.ops {
        let moved = op.bytes.map(|b| format!(", {}", bytes(b as f64))).unwrap_or_default();
        let _ = writeln!(
            o,
            "  {}: {} calls{moved}, {} ({:.1}%), longest call {}",
            op.name,
            count(op.calls as i64),
            secs(op.seconds),
            op.share * 100.0,
            secs(op.max_call_seconds)
        );
    }
}

/// The io_uring section (IO_URING, ours).
fn io_uring(o: &mut String, u: &crate::model::IoUring) {
    let _ = writeln!(
        o,
        "\nio_uring (IO_URING, {}): {} ({}), {} ({}); deepest queue {}; {} read, {} not",
        counted(u.file_count as i64, "file"),
        counted(u.reads, "read"),
        bytes(u.bytes_read as f64),
        counted(u.writes, "write"),
        bytes(u.bytes_written as f64),
        count(u.max_inflight),
        counted(u.completions_seen, "completion"),
        count(u.completions_unseen)
    );
    if u.unobserved > 0 {
        let _ = writeln!(
            o,
            "  {} submitted where the runtime could not read them (docs/io-uring.md): not in the figures above",
            counted(u.unobserved, "request")
        );
    }
    if let Some(r) = &u.rings {
        let _ = writeln!(
            o,
            "  {} ({} SQPOLL, {} IOPOLL) of up to {} entries; at most {} in flight on one ring; {} ({:.1} requests each); {} and {} registered",
            counted(r.rings, "ring"),
            count(r.sqpoll),
            count(r.iopoll),
            count(r.entries_max),
            counted(r.max_inflight, "request"),
            counted(r.submit_calls, "submitting call"),
            r.per_call,
            counted(r.registered_files, "file"),
            counted(r.registered_buffers, "buffer")
        );
    }
    for f in u.files.iter().take(5) {
        let _ = writeln!(
            o,
            "  {:>10} read {:>10} written  queue {:>4}  {}",
            bytes(f.bytes_read as f64),
            bytes(f.bytes_written as f64),
            f.max_inflight,
            V(&f.path)
        );
    }
}

/// The metadata section (POSIX_META, ours).
fn namespace(o: &mut String, ns: &crate::model::Namespace) {
    let _ = writeln!(
        o,
        "\nMetadata operations (POSIX_META, {}): {} namespace, {} attribute, {} mapping; {} in them; {:.0}/s (peak about {:.0}/s)",
        counted(ns.records as i64, "record"),
        count(ns.namespace_ops),
        count(ns.attribute_ops),
        count(ns.mapping_ops),
        secs(ns.time),
        ns.rate,
        ns.peak_rate
    );
    for d in ns.busiest_dirs.iter().take(5) {
        let _ = writeln!(o, "  {:>10} ops  {:>6} listings  {}", count(d.ops), count(d.listings), V(&d.path));
    }
    if ns.temporary_files > 0 {
        let _ = writeln!(
            o,
            "  {} opened ({} written to them) and removed within the run",
            counted(ns.temporary_files as i64, "file"),
            bytes(ns.temporary_bytes_written as f64)
        );
    }
}

fn files(o: &mut String, r: &Report) {
    let f = &r.files;
    if f.sharing.module.is_empty() && f.by_bytes.is_empty() {
        return;
    }
    if !f.sharing.module.is_empty() {
        let s = &f.sharing;
        let _ = writeln!(
            o,
            "\nFiles ({}): {} unique ({}), {} shared ({}), {} partially shared ({})",
            s.module,
            count(s.unique),
            bytes(s.unique_bytes as f64),
            count(s.shared),
            bytes(s.shared_bytes as f64),
            count(s.partially_shared),
            bytes(s.partially_shared_bytes as f64)
        );
    }
    for (title, rows) in
        [("by bytes", &f.by_bytes), ("by I/O time", &f.by_time), ("by slowest rank", &f.by_slowest_rank)]
    {
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(o, "  top files {title}:");
        for x in rows.iter() {
            let ranks = if x.all_ranks { "all".to_string() } else { x.ranks.to_string() };
            let _ = writeln!(
                o,
                // The I/O time is every rank's on the file added up, many
                // times the run time on a shared file: "summed" says so.
                "    {:<7} {:>10} r {:>10} w {:>10} summed, slowest rank {} {:>9}  ranks {:>4}  {}",
                V(&x.module),
                bytes(x.bytes_read as f64),
                bytes(x.bytes_written as f64),
                secs(x.io_time),
                x.slowest_rank.map_or("-".to_string(), |r| r.to_string()),
                secs(x.slowest_rank_time),
                ranks,
                V(&x.name)
            );
        }
    }
}

fn metrics(o: &mut String, r: &Report) {
    let m = &r.metrics;
    // The metrics are the application's, as the rules' are; a heat map
    // bins every file's bytes.
    let software = r.findings.iter().any(|f| f.code == "N02");
    let _ =
        writeln!(o, "\nMetrics{}", if software { " (software loading left out, N02; ρ and P include it)" } else { "" });
    let _ = writeln!(
        o,
        "  redundant read traffic     {} over {}",
        bytes(m.redundant_read_bytes as f64),
        counted(m.redundant_read_files as i64, "file")
    );
    if let Some(ratio) = m.metadata_ratio {
        let _ = writeln!(
            o,
            "  metadata share of I/O time {:.1}% (max per process {})",
            ratio * 100.0,
            secs(m.max_metadata_time_per_process)
        );
    }
    let _ = writeln!(
        o,
        "  small independent writes to shared files  {} on {}",
        count(m.small_shared_independent_writes),
        counted(m.small_shared_independent_write_files as i64, "file")
    );
    if let (Some(b), Some(p), Some(src)) = (m.burstiness, m.parallel_intensity, &m.heatmap_source) {
        let _ = writeln!(o, "  burstiness ρ {b:.2}, parallel intensity P {p:.2} ranks ({})", V(src));
    }
    if let Some(load) = m.fsu.load {
        let _ = writeln!(
            o,
            "  file-system load (FSU)     {:.3} file-system seconds per run-time second ({} read + {} write over the run; coefficients: {})",
            load,
            secs(m.fsu.read_seconds),
            secs(m.fsu.write_seconds),
            V(&m.fsu.calibration)
        );
    }
}

/// Only the diagnosis, as `darshan-run` prints it after a command.
pub fn diagnosis(r: &Report) -> String {
    let mut o = String::new();
    findings(&mut o, r);
    o
}

fn findings(o: &mut String, r: &Report) {
    let _ = writeln!(o, "\nDiagnosis");
    if r.findings.is_empty() {
        let _ = writeln!(o, "  nothing to report");
    }
    for f in &r.findings {
        let tag = match f.level {
            Level::High => "HIGH",
            Level::Warn => "WARN",
            Level::Info => "INFO",
            Level::Ok => "OK",
        };
        let _ = writeln!(o, "  [{tag:<4}] {} {}", V(&f.code), V(&f.title));
        for e in &f.evidence {
            let _ = writeln!(o, "           - {}", V(e));
        }
        if let Some(rec) = &f.recommendation {
            let _ = writeln!(o, "           → {}", V(rec));
        }
    }
    if !r.withheld.is_empty() {
        let _ = writeln!(o, "  Not reported (Drishti's rule would fire; the log refutes it):");
        for w in &r.withheld {
            let _ = writeln!(o, "    {} {}", V(&w.code), V(&w.reason));
        }
    }
}

/// Rows of the process table shown in a terminal (`--json` has all).
const PROCESS_ROWS: usize = 32;

/// The job's processes: roles, the readers side by side, and a row each
/// with a read timeline.
fn processes(o: &mut String, p: &crate::model::Processes) {
    let roles: Vec<String> =
        p.roles.iter().map(|(r, n)| format!("{n} {r}{}", if *n == 1 { "" } else { "s" })).collect();
    let order = if p.ranked_by_start { " (ranks in start order: the logs name none)" } else { "" };
    let _ = writeln!(o, "\nProcesses: {}{order}", roles.join(", "));
    if let Some(rd) = &p.readers {
        readers(o, rd);
    }
    let top = p.rows.iter().flat_map(|r| r.timeline.iter()).copied().max().unwrap_or(0);
    let _ = writeln!(
        o,
        "  {:>5} {:<15} {:>8} {:>8} {:>9} {:>10} {:>10} {:>10}  reads over time ({} bins of {}, {})",
        "rank",
        "role",
        "pid",
        "parent",
        "start",
        "first read",
        "read",
        "read time",
        p.rows.first().map_or(0, |r| r.timeline.len()),
        secs(p.bin_width),
        p.timeline_source
    );
    for r in p.rows.iter().take(PROCESS_ROWS) {
        let id = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
        let _ = writeln!(
            o,
            "  {:>5} {:<15} {:>8} {:>8} {:>9} {:>10} {:>10} {:>10}  {}",
            r.rank,
            r.role,
            id(r.pid),
            id(r.parent_pid),
            secs(r.start),
            r.first_read.map_or("-".to_string(), secs),
            bytes(r.bytes_read as f64),
            secs(r.read_time),
            spark(&r.timeline, top)
        );
    }
    let more = p.rows.len().saturating_sub(PROCESS_ROWS) + p.rows_left_out;
    if more > 0 {
        let listed = match p.rows_left_out {
            0 => "--json lists every one".to_string(),
            _ => format!("--json lists the first {}", p.rows.len()),
        };
        let _ = writeln!(o, "  ... {more} more processes ({listed}, darshan-parser every one)");
    }
}

/// Columns of the timespans' strips.
const STRIP: usize = 60;

/// When files were read and written: a strip over the run per kind of
/// file and direction, `#` where any span covers that part of the time
/// axis, and who and when.
fn timespans(o: &mut String, t: &crate::model::Timespans) {
    let left = if t.left_out > 0 {
        format!("; {} of software loading left out", counted(t.left_out as i64, "span"))
    } else {
        String::new()
    };
    let _ =
        writeln!(o, "\nWhen files were read and written (each record's first to last access, POSIX and STDIO{left}):");
    let end = secs(t.end_time);
    let _ = writeln!(o, "  {:<13}  0 s{}{end}", "", " ".repeat(STRIP.saturating_sub(3 + end.len())));
    let own = |w: bool| t.independent.iter().filter(move |s| s.3 == w).map(|s| (s.0, s.1, s.2));
    let shared = |w: bool| t.shared.iter().filter(move |s| s.2 == w).map(|s| (0, s.0, s.1));
    let rows = |n: usize| match t.ranks_per_row {
        1 if n == 1 => "1 process".to_string(),
        1 => format!("{} processes", count(n as i64)),
        k => format!("{n} of {} rows ({k} ranks each)", t.rows),
    };
    for (label, spans, who) in [
        ("own, read", own(false).collect::<Vec<_>>(), true),
        ("own, write", own(true).collect(), true),
        ("shared, read", shared(false).collect(), false),
        ("shared, write", shared(true).collect(), false),
    ] {
        if spans.is_empty() {
            continue;
        }
        let from = spans.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
        let to = spans.iter().map(|s| s.2).fold(0.0, f64::max);
        let mut distinct: Vec<usize> = spans.iter().map(|s| s.0).collect();
        distinct.dedup();
        let by = if who { format!("{}, ", rows(distinct.len())) } else { String::new() };
        let _ = writeln!(o, "  {label:<13} |{}|  {by}{} to {}", strip(&spans, t.end_time), secs(from), secs(to));
    }
}

/// [`STRIP`] columns over `0..end`: `#` where a span covers part of the
/// column, `.` elsewhere.
fn strip(spans: &[(usize, f64, f64)], end: f64) -> String {
    let mut cols = [false; STRIP];
    let at = |t: f64| if end > 0.0 { ((t / end * STRIP as f64) as usize).min(STRIP - 1) } else { 0 };
    for s in spans {
        cols[at(s.1)..=at(s.2)].iter_mut().for_each(|c| *c = true);
    }
    cols.iter().map(|&c| if c { '#' } else { '.' }).collect()
}

/// The readers side by side: bytes, read time, and how long each waited
/// for its first data.
fn readers(o: &mut String, rd: &crate::model::ReaderSpread) {
    let _ = writeln!(
        o,
        "  {} read the application's data: {} to {} each (mean {}, max/mean {:.2}); read time {} to {} (mean {})",
        rd.count,
        bytes(rd.bytes.min),
        bytes(rd.bytes.max),
        bytes(rd.bytes.mid),
        rd.bytes.max / rd.bytes.mid.max(1.0),
        secs(rd.read_time.min),
        secs(rd.read_time.max),
        secs(rd.read_time.mid)
    );
    let _ = writeln!(
        o,
        "  first data read {} to {} after they started (median {})",
        secs(rd.stall.min),
        secs(rd.stall.max),
        secs(rd.stall.mid)
    );
}

/// Bins as a line of block characters, scaled to `top`.
fn spark(bins: &[i64], top: i64) -> String {
    const BLOCKS: [char; 9] =
        [' ', '\u{2581}', '\u{2582}', '\u{2583}', '\u{2584}', '\u{2585}', '\u{2586}', '\u{2587}', '\u{2588}'];
    bins.iter()
        .map(
            |&b| {
                if b <= 0 || top <= 0 {
                    '.'
                } else {
                    BLOCKS[(1 + (b as f64 / top as f64 * 7.0).round() as usize).min(8)]
                }
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{IoUring, Namespace, UringRings};

    /// The io_uring and metadata lines said "1 files", "1 requests", "1
    /// buffers registered" of a job with one of each.
    #[test]
    fn one_file_one_ring_one_request_read_in_the_singular() {
        let rings = UringRings {
            rings: 1,
            max_inflight: 1,
            submit_calls: 1,
            registered_files: 1,
            registered_buffers: 1,
            ..Default::default()
        };
        let one = IoUring {
            file_count: 1,
            reads: 1,
            writes: 1,
            completions_seen: 1,
            unobserved: 1,
            rings: Some(rings),
            ..Default::default()
        };
        let mut o = String::new();
        io_uring(&mut o, &one);
        namespace(&mut o, &Namespace { records: 1, temporary_files: 1, ..Default::default() });
        for plural in [
            "1 files",
            "1 reads",
            "1 writes",
            "1 completions",
            "1 requests",
            "1 submitting calls",
            "1 buffers",
            "1 records",
        ] {
            assert!(!o.contains(plural), "{plural:?} in {o}");
        }
        for singular in [
            "(IO_URING, 1 file)",
            "1 read (",
            "1 write (",
            "1 completion read",
            "1 request submitted",
            "1 ring (",
            "1 request in flight",
            "1 submitting call (",
            "1 file and 1 buffer registered",
            "1 file opened",
        ] {
            assert!(o.contains(singular), "{singular:?} not in {o}");
        }
        let two = IoUring { file_count: 2, reads: 2, ..Default::default() };
        let mut o = String::new();
        io_uring(&mut o, &two);
        assert!(o.contains("(IO_URING, 2 files): 2 reads ("), "{o}");
    }

    /// A strip marks the columns a span touches, its first and last
    /// included, over the time axis.
    #[test]
    fn a_timespan_strip_marks_the_columns_its_spans_touch() {
        let mut want = "#".to_string() + &".".repeat(29) + &"#".repeat(30);
        assert_eq!(strip(&[(0, 0.0, 0.0), (0, 50.0, 100.0)], 100.0), want);
        want.replace_range(10..11, "#");
        assert_eq!(strip(&[(0, 0.0, 0.0), (3, 17.0, 18.0), (0, 50.0, 100.0)], 100.0), want);
        let t = crate::model::Timespans {
            end_time: 100.0,
            ranks_per_row: 1,
            rows: 4,
            independent: vec![(0, 1.0, 2.0, true), (3, 5.0, 6.0, true)],
            shared: vec![(50.0, 60.0, false)],
            ..Default::default()
        };
        let mut o = String::new();
        timespans(&mut o, &t);
        assert!(o.contains("own, write    |##.#....") && o.contains("2 processes, 1.00 s to 6.00 s"), "{o}");
        assert!(o.contains("shared, read  |") && o.contains("50.00 s to 60.00 s"), "{o}");
        assert!(!o.contains("own, read") && !o.contains("shared, write"), "{o}");
    }
}
