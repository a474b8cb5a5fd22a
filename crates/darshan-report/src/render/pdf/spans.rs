//! The PDF's timespan charts (C Darshan's "Timespan from first to last
//! access" graphs): a row per rank (or group of ranks) or per direction,
//! time across, each span a filled bar, reads blue and writes orange.

use pdf_writer::Content;

use super::bars::{text, COLOURS, SIZE};
use super::BOLD;
use crate::model::Timespans;
use crate::units::secs;

/// One chart: rows top to bottom over a time axis from 0 to `end_time`.
pub(crate) struct SpanChart {
    pub title: String,
    /// Labels at some rows (at most [`LABELS`]), row 0 at the top.
    pub labels: Vec<(usize, String)>,
    pub rows: usize,
    pub end_time: f64,
    /// (row, start, end, is_write).
    pub bars: Vec<(usize, f64, f64, bool)>,
    /// Reads in the upper half of a row, writes in the lower.
    pub split: bool,
}

const TITLE: f32 = 22.0;
const AXIS: f32 = 24.0;
/// Time ticks at most, at a round step.
const TICKS: f64 = 6.0;
const LABELS: usize = 8;
/// The shortest bar drawn, in points: a single access is seen.
const LEAST: f32 = 0.5;

/// The report's timespan charts, those it has.
pub(crate) fn of_report(t: &Timespans) -> Vec<SpanChart> {
    let mut out = Vec::new();
    if !t.independent.is_empty() {
        let step = t.ranks_per_row.max(1) as usize;
        let rows = t.rows.max(1);
        let every = rows.div_ceil(LABELS);
        out.push(SpanChart {
            title: "Timespan from first to last access on independent files (POSIX and STDIO)".to_string(),
            labels: (0..rows).step_by(every).map(|r| (r, format!("rank {}", r * step))).collect(),
            rows,
            end_time: t.end_time,
            bars: t.independent.clone(),
            split: true,
        });
    }
    if !t.shared.is_empty() {
        out.push(SpanChart {
            title: "Timespan from first to last access on files shared by all processes".to_string(),
            labels: vec![(0, "read".to_string()), (1, "write".to_string())],
            rows: 2,
            end_time: t.end_time,
            bars: t.shared_rows().collect(),
            split: false,
        });
    }
    out
}

impl SpanChart {
    fn plot_height(&self) -> f32 {
        if self.rows <= 2 {
            30.0
        } else {
            150.0
        }
    }

    /// Its height drawn.
    pub fn height(&self) -> f32 {
        TITLE + self.plot_height() + AXIS
    }

    /// Draw it with its top left corner at (`x`, `top`), `w` wide.
    pub fn draw(&self, c: &mut Content, x: f32, top: f32, w: f32) {
        text(c, BOLD, x, top - 10.0, &self.title);
        let label_w = self.labels.iter().map(|(_, l)| l.chars().count()).max().unwrap_or(0) as f32 * 0.6 * SIZE + 6.0;
        let (left, width) = (x + label_w, (w - label_w - 8.0).max(10.0));
        let (plot_top, h) = (top - TITLE, self.plot_height());
        let row_h = h / self.rows.max(1) as f32;
        // A damaged log's axis of 0 or NaN draws every bar at the start.
        let end = if self.end_time.is_finite() && self.end_time > 0.0 { self.end_time } else { 1.0 };
        let x_of = |t: f64| left + ((t / end).clamp(0.0, 1.0) as f32) * width;
        for &(row, start, stop, write) in &self.bars {
            let row_top = plot_top - row.min(self.rows.saturating_sub(1)) as f32 * row_h;
            let (y, bar_h) = match (self.split, write) {
                (true, false) => (row_top - row_h / 2.0, row_h / 2.0),
                (true, true) => (row_top - row_h, row_h / 2.0),
                (false, _) => (row_top - row_h * 0.9, row_h * 0.8),
            };
            let (r, g, b) = COLOURS[write as usize];
            c.set_fill_rgb(r, g, b);
            let x0 = x_of(start);
            c.rect(x0, y, (x_of(stop) - x0).max(LEAST), bar_h);
            c.fill_nonzero();
        }
        c.set_fill_gray(0.0);
        for (row, label) in &self.labels {
            let y = plot_top - (*row as f32 + 0.5) * row_h - SIZE / 3.0;
            text(c, super::FONT, x, y, label);
        }
        self.time_axis(c, left, plot_top - h, width, end);
    }

    /// The axis line under the rows and its times at a round step.
    fn time_axis(&self, c: &mut Content, left: f32, y: f32, width: f32, end: f64) {
        c.set_line_width(0.5);
        c.move_to(left, y);
        c.line_to(left + width, y);
        c.stroke();
        let step = round_step(end / TICKS);
        for k in 0..=TICKS as usize {
            let t = step * k as f64;
            if t > end {
                break;
            }
            let tx = left + width * (t / end) as f32;
            c.move_to(tx, y);
            c.line_to(tx, y - 3.0);
            c.stroke();
            let label = secs(t);
            let half = label.chars().count() as f32 * 0.6 * SIZE / 2.0;
            text(c, super::FONT, tx - half, y - 11.0, &label);
        }
    }
}

/// The least of 1, 2 and 5 times a power of ten not below `at_least`.
fn round_step(at_least: f64) -> f64 {
    let p = 10f64.powf(at_least.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&s| s >= at_least).unwrap_or(10.0 * p)
}

#[cfg(test)]
mod tests {
    #[test]
    fn time_ticks_fall_at_round_steps() {
        assert_eq!(super::round_step(1479.0 / 6.0), 500.0);
        assert_eq!(super::round_step(0.03), 0.05);
        assert_eq!(super::round_step(100.0), 100.0);
    }
}
