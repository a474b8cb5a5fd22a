//! The study as one self-contained HTML page (minijinja template, charts
//! inline as SVG from darshan-report's chart functions, no script, no
//! request: the page's content security policy forbids them).

use crate::error::StudyError;
use darshan_report::render::charts::{category_bars, lines, read_write_bars, Series, Unit, COLORS};
use darshan_report::units;
use minijinja::{context, AutoEscape, Environment, Value};
use serde::Serialize;

use crate::queries::Table;
use crate::timeline::{Timeline, THRESHOLDS};
use crate::Study;

const TEMPLATE: &str = include_str!("../templates/study.html.j2");

/// Points drawn on a timeline chart at most (intervals are merged).
const CHART_POINTS: u64 = 400;

#[derive(Serialize)]
struct ViewTable {
    name: String,
    title: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
    numeric: Vec<bool>,
}

/// A cell as people read it, by what its column holds.
fn cell(column: &str, v: &serde_json::Value) -> String {
    let Some(x) = v.as_f64() else {
        return match v {
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Null => "—".into(),
            other => other.to_string(),
        };
    };
    // Counters are summed as doubles (study.sql): a whole number is a count.
    let whole = v.is_i64() || (x.fract() == 0.0 && x.abs() < 9.0e15);
    if column.contains("bytes") {
        units::bytes(x)
    } else if column.contains("share_percent") {
        // Darshan's own cost: small shares with their significant digits.
        format!("{}%", darshan_log::cost::share_text(x))
    } else if column.contains("percent") {
        format!("{x:.1}%")
    } else if column.contains("ratio") {
        format!("{:.1}%", x * 100.0)
    } else if column.contains("hours") || column.contains("seconds") {
        format!("{x:.2}")
    } else if whole {
        units::count(x as i64)
    } else {
        format!("{x:.3}")
    }
}

fn view(t: &Table) -> ViewTable {
    // Columns that only order the rows (size_order, share_order) are not shown.
    let keep: Vec<usize> = (0..t.columns.len()).filter(|&i| !t.columns[i].ends_with("_order")).collect();
    let numeric = keep.iter().map(|&i| t.rows.iter().any(|r| r[i].is_number())).collect();
    ViewTable {
        name: t.name.clone(),
        title: t.title.clone(),
        columns: keep.iter().map(|&i| t.columns[i].replace('_', " ")).collect(),
        rows: t.rows.iter().map(|r| keep.iter().map(|&i| cell(&t.columns[i], &r[i])).collect()).collect(),
        numeric,
    }
}

fn labels(t: &Table) -> Vec<String> {
    (0..t.rows.len()).map(|i| t.text(i, "size_class")).collect()
}

fn series<'a>(t: &Table, cols: &[(&'a str, &'a str)], scale: impl Fn(usize, f64) -> f64) -> Vec<Series<'a>> {
    cols.iter()
        .enumerate()
        .map(|(k, (col, label))| Series {
            label,
            color: COLORS[k % COLORS.len()],
            values: (0..t.rows.len()).map(|i| scale(i, t.num(i, col))).collect(),
        })
        .collect()
}

/// A bar chart of a study table: a row per job-size class, a series per
/// column (its value scaled to a share of the class's jobs if
/// `of_jobs`). The page's section is the table's name.
struct TableChart {
    table: &'static str,
    title: &'static str,
    unit: Unit,
    what: &'static str,
    cols: &'static [(&'static str, &'static str)],
    stacked: bool,
    min_top: f64,
    of_jobs: bool,
}

/// The page's charts, in its order.
enum Chart {
    Table(TableChart),
    /// One read/write histogram per interface.
    AccessSizes,
}

const fn bars_of(
    table: &'static str,
    title: &'static str,
    unit: Unit,
    what: &'static str,
    cols: &'static [(&'static str, &'static str)],
) -> Chart {
    Chart::Table(TableChart { table, title, unit, what, cols, stacked: false, min_top: 0.0, of_jobs: false })
}

const CHARTS: [Chart; 7] = [
    bars_of("jobs_by_size", "Jobs by size (processes)", Unit::Count, "jobs", &[("jobs", "jobs")]),
    bars_of(
        "jobs_by_size",
        "Core-hours by job size (processes)",
        Unit::Number,
        "core-hours",
        &[("core_hours", "core-hours")],
    ),
    Chart::Table(TableChart {
        table: "interfaces_by_size",
        title: "Jobs using each interface, by job size (processes)",
        unit: Unit::Percent,
        what: "% of jobs",
        cols: &[
            ("posix", "POSIX"),
            ("mpiio", "MPI-IO"),
            ("hdf5", "HDF5"),
            ("pnetcdf", "PnetCDF"),
            ("stdio", "STDIO"),
            ("io_uring", "io_uring"),
        ],
        stacked: false,
        min_top: 100.0,
        of_jobs: true,
    }),
    Chart::Table(TableChart {
        table: "sharing_by_size",
        title: "POSIX files by sharing, by job size (processes)",
        unit: Unit::Count,
        what: "files",
        cols: &[
            ("unique_files", "unique"),
            ("shared_files", "shared (N:1)"),
            ("partially_shared_files", "partially shared"),
        ],
        stacked: true,
        min_top: 0.0,
        of_jobs: false,
    }),
    Chart::AccessSizes,
    bars_of(
        "read_write_mix",
        "Bytes moved, by job size (processes)",
        Unit::Bytes,
        "bytes",
        &[("bytes_read", "read"), ("bytes_written", "written")],
    ),
    bars_of(
        "io_time_by_size",
        "Time in I/O, by job size (processes)",
        Unit::Percent,
        "% of core-hours",
        &[("io_percent_of_core_hours", "I/O + metadata")],
    ),
];

/// Every chart whose table the study has, then the timeline's: (section,
/// SVG).
fn charts(s: &Study) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let mut add = |section: &str, svg: String| out.push((section.to_string(), Value::from_safe_string(svg)));
    for chart in &CHARTS {
        match chart {
            Chart::Table(c) => {
                let Some(t) = s.table(c.table) else { continue };
                let scale = |i: usize, v: f64| if c.of_jobs { 100.0 * v / t.num(i, "jobs").max(1.0) } else { v };
                let series = series(t, c.cols, scale);
                add(c.table, category_bars(c.title, c.unit, c.what, &labels(t), &series, c.stacked, c.min_top));
            }
            Chart::AccessSizes => {
                let Some(t) = s.table("access_sizes") else { continue };
                for i in 0..t.rows.len() {
                    add("access_sizes", access_size_bars(t, i));
                }
            }
        }
    }
    for svg in timeline_charts(&s.timeline) {
        add("timeline", svg);
    }
    out
}

/// Row `i` of the access-size table (an interface) as read/write bars.
fn access_size_bars(t: &Table, i: usize) -> String {
    const BUCKETS: [&str; 10] =
        ["0_100", "100_1k", "1k_10k", "10k_100k", "100k_1m", "1m_4m", "4m_10m", "10m_100m", "100m_1g", "1g_plus"];
    let rows: Vec<(String, i64, i64)> = BUCKETS
        .iter()
        .map(|b| (b.replace('_', "-"), t.num(i, &format!("read_{b}")) as i64, t.num(i, &format!("write_{b}")) as i64))
        .collect();
    read_write_bars(&format!("{} accesses by size", t.text(i, "interface")), &rows)
}

/// The timeline merged into at most CHART_POINTS points: bytes summed,
/// utilization averaged over the merged intervals, servers at their peak.
fn timeline_charts(tl: &Timeline) -> Vec<String> {
    if tl.points.is_empty() {
        return Vec::new();
    }
    let per = tl.intervals.div_ceil(CHART_POINTS).max(1);
    let n = tl.intervals.div_ceil(per) as usize;
    let dt = tl.interval_seconds;
    let x: Vec<f64> = (0..n).map(|i| i as f64 * per as f64 * dt / 3600.0).collect();
    let (mut r, mut w, mut fsu, mut bw) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut act = [vec![0.0; n], vec![0.0; n], vec![0.0; n]];
    for p in &tl.points {
        let k = (((p.t - tl.start_time) as f64 / dt) as u64 / per) as usize;
        let k = k.min(n - 1);
        r[k] += p.read_bytes;
        w[k] += p.write_bytes;
        fsu[k] += p.fsu_percent / per as f64;
        bw[k] += p.bandwidth_percent / per as f64;
        for (a, n) in act.iter_mut().zip(p.active_servers) {
            a[k] = f64::max(a[k], n as f64);
        }
    }
    let xd = "hours since the first job started";
    let s = |label, k: usize, values| Series { label, color: COLORS[k], values };
    let c_label: Vec<String> = THRESHOLDS.iter().map(|c| format!("c = {}", units::bytes(*c))).collect();
    vec![
        lines(
            &format!("Data moved per {} interval", units::secs(dt * per as f64)),
            xd,
            Unit::Bytes,
            "bytes",
            &x,
            &[s("read", 0, r), s("write", 1, w)],
        ),
        lines(
            "File-system utilization (FSU model) and bandwidth share",
            xd,
            Unit::Percent,
            "% of the file system",
            &x,
            &[s("FSU", 2, fsu), s("bandwidth only", 0, bw)],
        ),
        lines(
            "Active servers per interval (peak)",
            xd,
            Unit::Count,
            "servers",
            &x,
            &[s(&c_label[0], 0, act[0].clone()), s(&c_label[1], 1, act[1].clone()), s(&c_label[2], 2, act[2].clone())],
        ),
    ]
}

pub fn render(s: &Study) -> Result<String, StudyError> {
    let mut env = Environment::new();
    // Every value is HTML-escaped, whatever the template's name: names,
    // command lines and metadata come from logs and are hostile until
    // escaped. Only the SVG charts, whose text plotters escapes, are
    // marked safe.
    env.set_auto_escape_callback(|_| AutoEscape::Html);
    env.add_filter("bytes", |v: f64| units::bytes(v));
    env.add_filter("count", |v: i64| units::count(v));
    env.add_filter("fixed", |v: f64, n: Option<usize>| format!("{v:.*}", n.unwrap_or(2)));
    env.add_filter("date", |t: i64| {
        chrono::DateTime::from_timestamp(t, 0).map(|d| d.format("%Y-%m-%d %H:%M UTC").to_string()).unwrap_or_default()
    });
    env.add_template("study", TEMPLATE)?;
    let tables: Vec<ViewTable> = s.tables.iter().map(view).collect();
    let charts = charts(s);
    let tpl = env.get_template("study")?;
    tpl.render(context! {
        s => s,
        tables => tables,
        charts => charts,
        generator => format!("darshan-study {}", env!("CARGO_PKG_VERSION")),
    })
    .map_err(StudyError::from)
}
