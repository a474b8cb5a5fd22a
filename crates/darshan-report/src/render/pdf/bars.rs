//! The PDF's charts: the average I/O cost per process, then each
//! module's operation counts, access sizes and access pattern, as
//! horizontal bars (the graphs C Darshan's darshan-job-summary.pl drew),
//! every bar labelled with its category and its value, two columns to a
//! page. Drawn with the PDF's own paths and its standard Courier, whose
//! fixed advance lets labels be placed without font metrics.

use pdf_writer::{Content, Name, Str};

use super::{win_ansi, BOLD, FONT};
use crate::model::{AccessPattern, IoCost, ModuleStats, Report};
use crate::units::{count, secs};

/// One chart: a title, a category per row, and one or more series (a
/// bar each per category).
pub(crate) struct BarChart {
    pub title: String,
    pub labels: Vec<String>,
    pub series: Vec<(&'static str, Vec<Bar>)>,
}

/// A bar: its length in the chart's unit and the value written beside
/// it, as the text report writes it (a count exactly, however large).
pub(crate) struct Bar {
    pub len: f64,
    pub text: String,
}

fn counts(values: impl Iterator<Item = i64>) -> Vec<Bar> {
    values.map(|v| Bar { len: v as f64, text: count(v) }).collect()
}

/// Times, and "not recorded" (no bar) where the log's runtime kept none.
fn seconds(values: impl Iterator<Item = Option<f64>>) -> Vec<Bar> {
    values
        .map(|v| match v {
            Some(v) => Bar { len: v, text: secs(v) },
            None => Bar { len: 0.0, text: "not recorded".to_string() },
        })
        .collect()
}

/// The report's charts: the I/O cost, then each module's.
pub(crate) fn of_report(r: &Report) -> Vec<BarChart> {
    let mut out: Vec<BarChart> = io_cost(&r.io_cost).into_iter().collect();
    for s in &r.module_stats {
        out.extend(of_module(s));
    }
    out
}

/// The time an average process spent in each interface (C's "Average
/// I/O cost per process", in seconds as PyDarshan's): read, write and
/// metadata, and waiting where an interface waited (PnetCDF).
fn io_cost(rows: &[IoCost]) -> Option<BarChart> {
    if rows.is_empty() {
        return None;
    }
    let column = |f: fn(&IoCost) -> Option<f64>| seconds(rows.iter().map(f));
    let mut series = vec![("read", column(|c| c.read)), ("write", column(|c| c.write)), ("meta", column(|c| c.meta))];
    if rows.iter().any(|c| c.wait != Some(0.0)) {
        series.push(("wait", column(|c| c.wait)));
    }
    let labels = rows.iter().map(|c| c.interface.clone()).collect();
    Some(BarChart { title: "Average I/O cost per process".to_string(), labels, series })
}

/// A module's operation counts, access sizes (read and write) and access
/// pattern, those it has.
fn of_module(s: &ModuleStats) -> Vec<BarChart> {
    let mut out = Vec::new();
    if s.op_counts.iter().any(|(_, n)| *n != 0) {
        out.push(BarChart {
            title: format!("{} operation counts", s.module),
            labels: s.op_counts.iter().map(|(l, _)| l.clone()).collect(),
            series: vec![("operations", counts(s.op_counts.iter().map(|(_, n)| *n)))],
        });
    }
    if s.access_sizes.iter().any(|(_, r, w)| *r != 0 || *w != 0) {
        out.push(BarChart {
            title: format!("{} access sizes (bytes)", s.module),
            labels: s.access_sizes.iter().map(|(l, _, _)| l.clone()).collect(),
            series: vec![
                ("read", counts(s.access_sizes.iter().map(|(_, r, _)| *r))),
                ("write", counts(s.access_sizes.iter().map(|(_, _, w)| *w))),
            ],
        });
    }
    if let Some(p) = s.access_pattern.as_ref().filter(|p| p.reads != 0 || p.writes != 0) {
        out.push(pattern(&s.module, p));
    }
    out
}

/// C's "I/O Pattern": of the reads and of the writes, all, those that
/// start past the last byte the one before reached (sequential), and
/// those that start right after it (consecutive).
fn pattern(module: &str, p: &AccessPattern) -> BarChart {
    let pair = |r: i64, w: i64| counts([r, w].into_iter());
    BarChart {
        title: format!("{module} access pattern"),
        labels: vec!["Read".to_string(), "Write".to_string()],
        series: vec![
            ("total", pair(p.reads, p.writes)),
            ("sequential", pair(p.seq_reads, p.seq_writes)),
            ("consecutive", pair(p.consec_reads, p.consec_writes)),
        ],
    }
}

pub(super) const SIZE: f32 = 7.0;
const ADVANCE: f32 = 0.6 * SIZE;
const BAR: f32 = 9.0;
const GAP: f32 = 4.0;
const TITLE: f32 = 22.0;
/// Room right of the longest bar for its count.
const VALUE_W: f32 = 16.0 * ADVANCE;
pub(super) const COLOURS: [(f32, f32, f32); 4] =
    [(0.27, 0.51, 0.71), (0.87, 0.49, 0.0), (0.33, 0.63, 0.33), (0.58, 0.40, 0.74)];

impl BarChart {
    /// Its height drawn.
    pub fn height(&self) -> f32 {
        let per_row = self.series.len() as f32 * BAR + GAP;
        TITLE + self.labels.len() as f32 * per_row + GAP
    }

    /// Draw it with its top left corner at (`x`, `top`), `w` wide.
    pub fn draw(&self, c: &mut Content, x: f32, top: f32, w: f32) {
        text(c, BOLD, x, top - 10.0, &self.title);
        self.legend(c, x + w, top - 10.0);
        let label_w = self.labels.iter().map(|l| win_ansi(l).len()).max().unwrap_or(0) as f32 * ADVANCE + 6.0;
        // A time from a damaged log may be infinite or NaN: no bar, and
        // no number a PDF cannot hold.
        let finite = |v: f64| if v.is_finite() { v.max(0.0) } else { 0.0 };
        let max = self.series.iter().flat_map(|(_, v)| v.iter().map(|b| finite(b.len))).fold(0.0, f64::max);
        let max = if max > 0.0 { max } else { 1.0 };
        let room = (w - label_w - VALUE_W).max(10.0);
        let mut y = top - TITLE;
        for (k, label) in self.labels.iter().enumerate() {
            let label_x = x + label_w - 6.0 - win_ansi(label).len() as f32 * ADVANCE;
            text(c, FONT, label_x, y - BAR + 2.0, label);
            for (s, (_, bars)) in self.series.iter().enumerate() {
                // A value below zero (summed from a damaged log) draws no
                // bar but is written as it is, as the text report writes it.
                let (len, value) = bars.get(k).map_or((0.0, ""), |b| (b.len, b.text.as_str()));
                let len = (finite(len) / max) as f32 * room;
                let (r, g, b) = COLOURS[s % COLOURS.len()];
                c.set_fill_rgb(r, g, b);
                c.rect(x + label_w, y - BAR + 1.0, len, BAR - 2.0);
                c.fill_nonzero();
                c.set_fill_gray(0.0);
                text(c, FONT, x + label_w + len + 3.0, y - BAR + 2.0, value);
                y -= BAR;
            }
            y -= GAP;
        }
    }

    /// The series' colours and names at the top right (one series: none).
    fn legend(&self, c: &mut Content, right: f32, baseline: f32) {
        if self.series.len() < 2 {
            return;
        }
        let mut x = right;
        for (s, (name, _)) in self.series.iter().enumerate().rev() {
            x -= win_ansi(name).len() as f32 * ADVANCE + 14.0;
            let (r, g, b) = COLOURS[s % COLOURS.len()];
            c.set_fill_rgb(r, g, b);
            c.rect(x, baseline, 7.0, 7.0);
            c.fill_nonzero();
            c.set_fill_gray(0.0);
            text(c, FONT, x + 9.0, baseline, name);
        }
    }
}

pub(super) fn text(c: &mut Content, font: Name, x: f32, y: f32, s: &str) {
    c.begin_text();
    c.set_font(font, SIZE);
    c.next_line(x, y);
    c.show(Str(&win_ansi(s)));
    c.end_text();
}
