//! Horizontal bar charts: one row per category, its label left of the
//! axis and horizontal, so every category is named however long its name
//! or however many there are (vertical bars dropped every other label).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use plotters::coord::types::RangedCoordf64;

use super::{
    axis, legend, legend_rows, nice_max, svg, text_style, Area, Res, Scale, Series, Unit, CHAR_PX, COLORS, FONT,
};
use crate::model::IoCost;

const WIDTH: u32 = 480;

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// One row per label; the series side by side within a row, or stacked.
/// The value axis is in `unit` and reaches at least `min_top`; `what`
/// names it ("operations", "jobs"). A legend above the data when there is
/// more than one series; each bar's value is printed at its end.
pub fn category_bars(
    title: &str,
    unit: Unit,
    what: &str,
    labels: &[String],
    series: &[Series],
    stacked: bool,
    min_top: f64,
) -> String {
    Bars { title, unit, what, labels, series, stacked, min_top, marker: None }.render()
}

/// A bar chart: what `category_bars` takes, and a vertical marker line
/// at a value, labelled (the run time on the I/O cost chart).
struct Bars<'a> {
    title: &'a str,
    unit: Unit,
    what: &'a str,
    labels: &'a [String],
    series: &'a [Series<'a>],
    stacked: bool,
    min_top: f64,
    marker: Option<(f64, String)>,
}

/// A bar's end to label: its value, its y, the value's text.
type BarEnd = (f64, f64, String);

/// Where a bar chart's parts go (pixels), and its value scale.
struct Layout {
    scale: Scale,
    top_value: f64,
    /// Room right of the longest bar for its value.
    value_px: u32,
    label_px: u32,
    bar_px: u32,
    row_px: u32,
    legend_px: u32,
    /// One per category, and one above them for a marker's label.
    rows: usize,
    height: u32,
}

impl Bars<'_> {
    fn values(&self, i: usize) -> impl Iterator<Item = f64> + '_ {
        self.series.iter().map(move |s| s.values.get(i).copied().unwrap_or(0.0))
    }

    fn multi(&self) -> bool {
        self.series.len() > 1
    }

    fn layout(&self) -> Layout {
        let n = self.labels.len();
        let top_value = (0..n)
            .map(|i| if self.stacked { self.values(i).sum() } else { self.values(i).fold(0.0, f64::max) })
            .fold(self.min_top, f64::max);
        let top_value = self.marker.as_ref().map_or(top_value, |(m, _)| top_value.max(*m));
        let scale = Scale::for_top(self.unit, top_value);
        let value_px = (0..n)
            .flat_map(|i| self.values(i).map(|v| scale.value(v).chars().count()).collect::<Vec<_>>())
            .max()
            .unwrap_or(4) as u32
            * CHAR_PX
            + 8;
        let label_px = self.labels.iter().map(|l| l.chars().count() as u32).max().unwrap_or(4).max(4) * CHAR_PX + 14;
        let rows_per_cat = if self.stacked || !self.multi() { 1 } else { self.series.len() as u32 };
        let bar_px = 16u32;
        let row_px = bar_px * rows_per_cat + 8;
        let names: Vec<&str> = self.series.iter().map(|s| s.label).collect();
        let legend_px = if self.multi() { legend_rows(&names, WIDTH) * 18 + 6 } else { 0 };
        // A marker's label gets a row of its own above the bars, where no
        // value label can collide with it.
        let rows = n.max(1) + usize::from(self.marker.is_some());
        let height = 34 + legend_px + row_px * rows as u32 + 48;
        let label_px = label_px.min(WIDTH / 2);
        Layout { scale, top_value, value_px, label_px, bar_px, row_px, legend_px, rows, height }
    }

    fn render(&self) -> String {
        let l = self.layout();
        svg(WIDTH, l.height, |root| {
            let (head, rest) = root.split_vertically(34 + l.legend_px);
            let (cap, leg) = head.split_vertically(34);
            cap.draw(&Text::new(self.title.to_string(), (8, 17), text_style(15, HPos::Left, VPos::Center)))?;
            if self.multi() {
                let items: Vec<(&str, RGBColor)> = self.series.iter().map(|s| (s.label, s.color)).collect();
                legend(&leg, &items)?;
            }
            let mut c = self.chart(&rest, &l)?;
            let ends = self.draw_bars(&mut c, &l)?;
            if let Some(marker) = &self.marker {
                draw_marker(root, &mut c, marker, &l)?;
            }
            for (v, y, text) in ends {
                let (px, py) = c.backend_coord(&(v / l.scale.div, y));
                root.draw(&Text::new(text, (px + 4, py), text_style(11, HPos::Left, VPos::Center)))?;
            }
            for (i, label) in self.labels.iter().enumerate() {
                let (px, py) = c.backend_coord(&(0.0, self.row_y(i) - 0.5));
                root.draw(&Text::new(label.clone(), (px - 6, py), text_style(12, HPos::Right, VPos::Center)))?;
            }
            Ok(())
        })
    }

    /// The axes and mesh. The bar area's right edge leaves room for the
    /// widest value; values are plotted in the axis's unit (MiB, ms), so
    /// its ticks are round.
    fn chart<'a, 'b>(&self, area: &'a Area<'b>, l: &Layout) -> Result<Chart<'a, 'b>, Box<dyn std::error::Error>> {
        let scale = &l.scale;
        let chart_top = nice_max(l.top_value / scale.div);
        let mut c = ChartBuilder::on(area)
            .margin_right(l.value_px.min(WIDTH / 3))
            .margin_left(4)
            .margin_top(2)
            .x_label_area_size(40)
            .y_label_area_size(l.label_px)
            .build_cartesian_2d(axis(0.0, chart_top)?, axis(0.0, l.rows as f64)?)?;
        let axis_name = if scale.suffix.is_empty() || scale.unit == Unit::Percent {
            self.what.to_string()
        } else {
            format!("{} ({})", self.what, scale.suffix)
        };
        let fmt = |v: &f64| scale.tick_scaled(*v);
        c.configure_mesh()
            .disable_y_mesh()
            .light_line_style(WHITE)
            .y_labels(0)
            .x_labels(5)
            .x_label_formatter(&fmt)
            .x_desc(axis_name)
            .axis_desc_style((FONT, 12))
            .label_style((FONT, 11))
            .draw()?;
        Ok(c)
    }

    /// Category i is row i from the top.
    fn row_y(&self, i: usize) -> f64 {
        (self.labels.len() - i) as f64
    }

    /// The vertical extent of bar `k` of category `i`.
    fn band(&self, l: &Layout, i: usize, k: usize) -> (f64, f64) {
        let top = self.row_y(i) - 4.0 / l.row_px as f64;
        let h = l.bar_px as f64 / l.row_px as f64;
        (top - h * k as f64, top - h * (k + 1) as f64)
    }

    /// Every bar; returns each labelled bar end (value, y, its text).
    fn draw_bars(&self, c: &mut Chart, l: &Layout) -> Result<Vec<BarEnd>, Box<dyn std::error::Error>> {
        let d = l.scale.div;
        let one_row = self.stacked || !self.multi();
        let mut ends = Vec::new();
        for i in 0..self.labels.len() {
            let mut base = 0.0;
            for (k, (s, v)) in self.series.iter().zip(self.values(i)).enumerate() {
                let (y0, y1) = self.band(l, i, if one_row { 0 } else { k });
                let x0 = if self.stacked { base } else { 0.0 };
                c.draw_series(std::iter::once(Rectangle::new([(x0 / d, y0), ((x0 + v) / d, y1)], s.color.filled())))?;
                base += v;
                // Zeros are left unlabelled: an empty row says it.
                if !self.stacked && v != 0.0 {
                    ends.push((v, (y0 + y1) / 2.0, l.scale.value(v)));
                }
            }
            if self.stacked && base != 0.0 {
                let (y0, y1) = self.band(l, i, 0);
                ends.push((base, (y0 + y1) / 2.0, l.scale.value(base)));
            }
        }
        Ok(ends)
    }
}

/// A vertical line at the marker's value across every row, its label in
/// the top row: right of the line when it is near the axis, else left.
fn draw_marker(root: &Area, c: &mut Chart, (value, label): &(f64, String), l: &Layout) -> Res {
    let m = *value / l.scale.div;
    let top = l.rows as f64;
    c.draw_series(std::iter::once(PathElement::new(vec![(m, 0.0), (m, top)], BLACK.stroke_width(1))))?;
    let (px, py) = c.backend_coord(&(m, top - 0.5));
    let (x0, _) = c.backend_coord(&(0.0, 0.0));
    let near_axis = px - x0 < (label.chars().count() as u32 * CHAR_PX) as i32 + 8;
    let (x, h) = if near_axis { (px + 4, HPos::Left) } else { (px - 4, HPos::Right) };
    root.draw(&Text::new(label.clone(), (x, py), text_style(11, h, VPos::Center)))?;
    Ok(())
}

/// Read and write bars per label (access-size histograms, access pattern).
pub fn read_write_bars(title: &str, rows: &[(String, i64, i64)]) -> String {
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let series = [
        Series { label: "read", color: COLORS[0], values: rows.iter().map(|r| r.1 as f64).collect() },
        Series { label: "write", color: COLORS[1], values: rows.iter().map(|r| r.2 as f64).collect() },
    ];
    category_bars(title, Unit::Count, "operations", &labels, &series, false, 0.0)
}

/// One bar per label (operation counts).
pub fn bars(title: &str, rows: &[(String, i64)]) -> String {
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let series = [Series { label: "", color: COLORS[0], values: rows.iter().map(|r| r.1 as f64).collect() }];
    category_bars(title, Unit::Count, "operations", &labels, &series, false, 0.0)
}

/// Stacked read/write/meta/wait seconds per interface. The run time is
/// marked on the axis when it is near enough to the bars to be read
/// against them, and named in the title always.
pub fn io_cost(rows: &[IoCost], run_time: f64) -> String {
    let labels: Vec<String> = rows.iter().map(|r| r.interface.clone()).collect();
    // A time not recorded draws no bar; the table beside says so.
    let part = |label, color, get: fn(&IoCost) -> Option<f64>| Series {
        label,
        color,
        values: rows.iter().map(|r| get(r).unwrap_or(0.0)).collect(),
    };
    let series = [
        part("read", COLORS[0], |r| r.read),
        part("write", COLORS[1], |r| r.write),
        part("meta", COLORS[2], |r| r.meta),
        part("wait", COLORS[3], |r| r.wait),
    ];
    let longest = rows.iter().map(|r| [r.read, r.write, r.meta, r.wait].iter().flatten().sum()).fold(0.0, f64::max);
    let run = crate::units::secs(run_time);
    // A run time many times the longest bar would squash every bar.
    let marker = (run_time.is_finite() && run_time > 0.0 && run_time <= longest * 4.0)
        .then(|| (run_time, format!("run time {run}")));
    Bars {
        title: &format!("I/O cost: average seconds per process (run time {run})"),
        unit: Unit::Seconds,
        what: "time per process",
        labels: &labels,
        series: &series,
        stacked: true,
        min_top: 0.0,
        marker,
    }
    .render()
}
