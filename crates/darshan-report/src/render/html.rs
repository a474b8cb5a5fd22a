//! The HTML report: one self-contained page from a minijinja template,
//! charts inline as SVG, style inline, no scripts, and a content security
//! policy that forbids every request, so the page reads the same offline
//! years later.

use std::collections::BTreeMap;

use minijinja::{context, AutoEscape, Environment, Value};

use super::charts;
use crate::model::{ModuleStats, Namespace, Report};
use crate::units;

const TEMPLATE: &str = include_str!("../../templates/report.html.j2");

/// A histogram bucket as PyDarshan's charts name it: "0_100" → "0-100",
/// "100_1K" → "101-1K", "1G_PLUS" → "1G+" (the JSON keeps the counter
/// names' form).
pub fn bucket_label(l: &str) -> String {
    match l {
        "1G_PLUS" => "1G+".to_string(),
        "100_1K" => "101-1K".to_string(),
        _ => l.replace('_', "-"),
    }
}

/// The report as one HTML page; Err only if the built-in template is
/// broken (a bug of ours, caught by the tests).
pub fn render(r: &Report) -> Result<String, minijinja::Error> {
    let env = environment()?;
    let safe = Value::from_safe_string;
    let heatmaps: Vec<Value> = r.heatmaps.iter().map(|h| safe(charts::heatmap(h))).collect();
    let mut charts_of: BTreeMap<String, BTreeMap<&str, Value>> = BTreeMap::new();
    for s in &r.module_stats {
        charts_of.entry(s.module.clone()).or_default().extend(module_charts(s));
    }
    let io_cost = if r.io_cost.is_empty() { None } else { Some(safe(charts::io_cost(&r.io_cost, r.job.run_time))) };
    let timeline = r.timeline.as_ref().map(|t| safe(charts::timeline(t)));
    let timespans: Vec<Value> = r.timespans.iter().flat_map(charts::timespans).map(safe).collect();
    let metadata_rate = r.namespace.as_ref().filter(|ns| ns.namespace_ops > 0).map(|ns| safe(metadata_rate(ns)));
    let processes_svg = r.processes.as_ref().and_then(process_grid).map(|h| safe(charts::heatmap_by(&h, "process")));
    let tmpl = env.get_template("report")?;
    tmpl.render(context! {
        r => Value::from_serialize(r),
        heatmap_svgs => heatmaps,
        module_charts => charts_of,
        io_cost_svg => io_cost,
        timeline_svg => timeline,
        timespan_svgs => timespans,
        metadata_rate_svg => metadata_rate,
        processes_svg => processes_svg,
        generator => concat!("darshan-summary ", env!("CARGO_PKG_VERSION")),
    })
}

/// The template with its filters.
fn environment() -> Result<Environment<'static>, minijinja::Error> {
    let mut env = Environment::new();
    // Every value is HTML-escaped, whatever the template's name: names,
    // command lines and metadata come from logs and are hostile until
    // escaped. Only the SVG charts, whose text plotters escapes, are
    // marked safe.
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    env.add_filter("bytes", |v: f64| units::bytes(v));
    env.add_filter("secs", |v: f64| units::secs(v));
    // A time the log's runtime did not record (none in the model).
    env.add_filter("cost", |v: Option<f64>| v.map_or_else(|| "not recorded".to_string(), units::secs));
    env.add_filter("count", |v: i64| units::count(v));
    env.add_filter("pct", |v: f64| format!("{:.1}%", v * 100.0));
    env.add_filter("bucket", |v: String| bucket_label(&v));
    env.add_filter("fixed", |v: f64, n: Option<usize>| format!("{v:.*}", n.unwrap_or(2)));
    env.add_template("report", TEMPLATE)?;
    Ok(env)
}

/// One module's charts: access sizes, operation counts and access
/// pattern, each only when the module has the figures.
fn module_charts(s: &ModuleStats) -> BTreeMap<&'static str, Value> {
    let safe = Value::from_safe_string;
    let mut e = BTreeMap::new();
    if !s.access_sizes.is_empty() {
        let rows: Vec<(String, i64, i64)> = s.access_sizes.iter().map(|(l, r, w)| (bucket_label(l), *r, *w)).collect();
        let title = format!("{} access sizes (bytes per request, all ranks)", s.module);
        e.insert("sizes", safe(charts::read_write_bars(&title, &rows)));
    }
    if !s.op_counts.is_empty() {
        let not_recorded = if s.not_recorded.is_empty() {
            String::new()
        } else {
            format!("; not recorded by this log's runtime: {}", s.not_recorded.join(", "))
        };
        let title = format!("{} operation counts (all ranks, whole run){not_recorded}", s.module);
        e.insert("ops", safe(charts::bars(&title, &s.op_counts)));
    }
    if let Some(p) = &s.access_pattern {
        let rows = vec![
            ("total".to_string(), p.reads, p.writes),
            ("sequential".to_string(), p.seq_reads, p.seq_writes),
            ("consecutive".to_string(), p.consec_reads, p.consec_writes),
        ];
        let title = format!("{} access pattern (operations, all ranks)", s.module);
        e.insert("pattern", safe(charts::read_write_bars(&title, &rows)));
    }
    e
}

/// Namespace operations per second over the run (POSIX_META's estimate).
fn metadata_rate(ns: &Namespace) -> String {
    let x: Vec<f64> = ns.rate_bins.iter().map(|b| b.0).collect();
    let per_sec: Vec<f64> = ns.rate_bins.iter().map(|b| b.1 / ns.bin_seconds.max(f64::MIN_POSITIVE)).collect();
    let series = [charts::Series { label: "namespace operations", color: charts::COLORS[0], values: per_sec }];
    charts::lines(
        "Namespace operations per second (estimate)",
        "seconds since the job started",
        charts::Unit::Count,
        "operations per second",
        &x,
        &series,
    )
}

/// Rows of the process heat map drawn (the table lists the rest).
const PROCESS_GRID_ROWS: usize = 64;

/// The processes' read timelines as a heat map: a row per process (in
/// the table's order), a column per bin of the job's run time.
fn process_grid(p: &crate::model::Processes) -> Option<crate::model::Heatmap> {
    let rows: Vec<Vec<f64>> =
        p.rows.iter().take(PROCESS_GRID_ROWS).map(|r| r.timeline.iter().map(|&b| b.max(0) as f64).collect()).collect();
    let nbins = rows.first()?.len();
    if nbins == 0 || rows.iter().all(|r| r.iter().all(|v| *v == 0.0)) {
        return None;
    }
    let read_per_bin: Vec<f64> =
        (0..nbins).map(|b| rows.iter().map(|r| r.get(b).copied().unwrap_or(0.0)).sum()).collect();
    Some(crate::model::Heatmap {
        name: format!("Reads by process ({})", p.timeline_source),
        source: "PROCESSES".to_string(),
        bin_width: p.bin_width,
        nbins,
        nranks: rows.len(),
        write_per_bin: vec![0.0; nbins],
        per_rank: rows.iter().map(|r| r.iter().sum()).collect(),
        active_ranks_per_bin: Vec::new(),
        nonzero_read_bins: read_per_bin.iter().filter(|v| **v > 0.0).count() as u64,
        nonzero_write_bins: 0,
        read_per_bin,
        grid: rows,
        grid_rank_step: 1,
        grid_bin_step: 1,
    })
}
