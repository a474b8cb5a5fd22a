//! The PDF's charts: each module's operation counts and access sizes as
//! horizontal bars (the graphs C Darshan's darshan-job-summary.pl drew),
//! every bar labelled with its category and its count, two columns to a
//! page. Drawn with the PDF's own paths and its standard Courier, whose
//! fixed advance lets labels be placed without font metrics.

use pdf_writer::{Content, Name, Str};

use super::{win_ansi, BOLD, FONT};
use crate::model::ModuleStats;
use crate::units::count;

/// One chart: a title, a category per row, and one or two series of
/// counts (a bar each per category).
pub(crate) struct BarChart {
    pub title: String,
    pub labels: Vec<String>,
    pub series: Vec<(&'static str, Vec<i64>)>,
}

/// The charts of a report's modules: operation counts, then access sizes
/// (read and write), for each module with any.
pub(crate) fn of_modules(stats: &[ModuleStats]) -> Vec<BarChart> {
    let mut out = Vec::new();
    for s in stats {
        if s.op_counts.iter().any(|(_, n)| *n != 0) {
            out.push(BarChart {
                title: format!("{} operation counts", s.module),
                labels: s.op_counts.iter().map(|(l, _)| l.clone()).collect(),
                series: vec![("operations", s.op_counts.iter().map(|(_, n)| *n).collect())],
            });
        }
        if s.access_sizes.iter().any(|(_, r, w)| *r != 0 || *w != 0) {
            out.push(BarChart {
                title: format!("{} access sizes (bytes)", s.module),
                labels: s.access_sizes.iter().map(|(l, _, _)| l.clone()).collect(),
                series: vec![
                    ("read", s.access_sizes.iter().map(|(_, r, _)| *r).collect()),
                    ("write", s.access_sizes.iter().map(|(_, _, w)| *w).collect()),
                ],
            });
        }
    }
    out
}

const SIZE: f32 = 7.0;
const ADVANCE: f32 = 0.6 * SIZE;
const BAR: f32 = 9.0;
const GAP: f32 = 4.0;
const TITLE: f32 = 22.0;
/// Room right of the longest bar for its count.
const VALUE_W: f32 = 16.0 * ADVANCE;
const COLOURS: [(f32, f32, f32); 2] = [(0.27, 0.51, 0.71), (0.87, 0.49, 0.0)];

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
        let max = self.series.iter().flat_map(|(_, v)| v.iter().copied()).max().unwrap_or(0).max(1) as f32;
        let room = (w - label_w - VALUE_W).max(10.0);
        let mut y = top - TITLE;
        for (k, label) in self.labels.iter().enumerate() {
            let label_x = x + label_w - 6.0 - win_ansi(label).len() as f32 * ADVANCE;
            text(c, FONT, label_x, y - BAR + 2.0, label);
            for (s, (_, values)) in self.series.iter().enumerate() {
                // A count below zero (summed from a damaged log) draws no
                // bar but is written as it is, as the text report writes it.
                let v = values.get(k).copied().unwrap_or(0);
                let len = v.max(0) as f32 / max * room;
                let (r, g, b) = COLOURS[s % COLOURS.len()];
                c.set_fill_rgb(r, g, b);
                c.rect(x + label_w, y - BAR + 1.0, len, BAR - 2.0);
                c.fill_nonzero();
                c.set_fill_gray(0.0);
                text(c, FONT, x + label_w + len + 3.0, y - BAR + 2.0, &count(v));
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

fn text(c: &mut Content, font: Name, x: f32, y: f32, s: &str) {
    c.begin_text();
    c.set_font(font, SIZE);
    c.next_line(x, y);
    c.show(Str(&win_ansi(s)));
    c.end_text();
}
