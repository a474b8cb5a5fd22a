//! Horizontal bar charts: one row per category, its label left of the
//! axis and horizontal, so every category is named however long its name
//! or however many there are (vertical bars dropped every other label).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{axis, legend, legend_rows, nice_max, svg, text_style, Scale, Series, Unit, CHAR_PX, COLORS, FONT};
use crate::model::IoCost;

const WIDTH: u32 = 480;

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
    category_bars_marked(title, unit, what, labels, series, stacked, min_top, None)
}

/// `category_bars` with a vertical marker line at a value (the run time
/// on the I/O cost chart), labelled.
#[allow(clippy::too_many_arguments)]
fn category_bars_marked(
    title: &str,
    unit: Unit,
    what: &str,
    labels: &[String],
    series: &[Series],
    stacked: bool,
    min_top: f64,
    marker: Option<(f64, String)>,
) -> String {
    let n = labels.len();
    let per_category = |i: usize| series.iter().map(move |s| s.values.get(i).copied().unwrap_or(0.0));
    let top_value = (0..n)
        .map(|i| if stacked { per_category(i).sum() } else { per_category(i).fold(0.0, f64::max) })
        .fold(min_top, f64::max);
    let top_value = marker.as_ref().map_or(top_value, |(m, _)| top_value.max(*m));
    let scale = Scale::for_top(unit, top_value);
    // Room at the right of the longest bar for its value.
    let value_px = (0..n)
        .flat_map(|i| per_category(i).map(|v| scale.value(v).chars().count()).collect::<Vec<_>>())
        .max()
        .unwrap_or(4) as u32
        * CHAR_PX
        + 8;
    let label_px = labels.iter().map(|l| l.chars().count() as u32).max().unwrap_or(4).max(4) * CHAR_PX + 14;
    let label_px = label_px.min(WIDTH / 2);
    let multi = series.len() > 1;
    let rows_per_cat = if stacked || !multi { 1 } else { series.len() as u32 };
    let bar_px = 16u32;
    let row_px = bar_px * rows_per_cat + 8;
    let names: Vec<&str> = series.iter().map(|s| s.label).collect();
    let legend_px = if multi { legend_rows(&names, WIDTH) * 18 + 6 } else { 0 };
    // A marker's label gets a row of its own above the bars, where no
    // value label can collide with it.
    let rows = n.max(1) + usize::from(marker.is_some());
    let plot_px = row_px * rows as u32;
    let height = 34 + legend_px + plot_px + 48;
    svg(WIDTH, height, |root| {
        let (head, rest) = root.split_vertically(34 + legend_px);
        let (cap, leg) = head.split_vertically(34);
        cap.draw(&Text::new(title.to_string(), (8, 17), text_style(15, HPos::Left, VPos::Center)))?;
        if multi {
            let items: Vec<(&str, RGBColor)> = series.iter().map(|s| (s.label, s.color)).collect();
            legend(&leg, &items)?;
        }
        // The bar area's right edge leaves room for the widest value.
        // Plotted in the axis's unit (MiB, ms), so its ticks are round.
        let d = scale.div;
        let chart_top = nice_max(top_value / d);
        let mut c = ChartBuilder::on(&rest)
            .margin_right(value_px.min(WIDTH / 3))
            .margin_left(4)
            .margin_top(2)
            .x_label_area_size(40)
            .y_label_area_size(label_px)
            .build_cartesian_2d(axis(0.0, chart_top)?, axis(0.0, rows as f64)?)?;
        let axis_name = if scale.suffix.is_empty() || scale.unit == Unit::Percent {
            what.to_string()
        } else {
            format!("{what} ({})", scale.suffix)
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
        // Category i is row i from the top.
        let row_y = |i: usize| (n - i) as f64;
        let band = |i: usize, k: usize| {
            let top = row_y(i) - 4.0 / row_px as f64;
            let h = bar_px as f64 / row_px as f64;
            (top - h * k as f64, top - h * (k + 1) as f64)
        };
        let mut ends: Vec<(f64, f64, String)> = Vec::new();
        for i in 0..n {
            let mut base = 0.0;
            for (k, s) in series.iter().enumerate() {
                let v = s.values.get(i).copied().unwrap_or(0.0);
                let (y0, y1) = if stacked || !multi { band(i, 0) } else { band(i, k) };
                let x0 = if stacked { base } else { 0.0 };
                c.draw_series(std::iter::once(Rectangle::new([(x0 / d, y0), ((x0 + v) / d, y1)], s.color.filled())))?;
                base += v;
                // Zeros are left unlabelled: an empty row says it.
                if !stacked && v != 0.0 {
                    ends.push((v, (y0 + y1) / 2.0, scale.value(v)));
                }
            }
            if stacked && base != 0.0 {
                let (y0, y1) = band(i, 0);
                ends.push((base, (y0 + y1) / 2.0, scale.value(base)));
            }
        }
        if let Some((m, label)) = &marker {
            let m = *m / d;
            let top = rows as f64;
            c.draw_series(std::iter::once(PathElement::new(vec![(m, 0.0), (m, top)], BLACK.stroke_width(1))))?;
            let (px, py) = c.backend_coord(&(m, top - 0.5));
            let (x0, _) = c.backend_coord(&(0.0, 0.0));
            // Right of the line when it is near the axis, else left of it.
            let near_axis = px - x0 < (label.chars().count() as u32 * super::CHAR_PX) as i32 + 8;
            let (x, h) = if near_axis { (px + 4, HPos::Left) } else { (px - 4, HPos::Right) };
            root.draw(&Text::new(label.clone(), (x, py), text_style(11, h, VPos::Center)))?;
        }
        for (v, y, text) in ends {
            let (px, py) = c.backend_coord(&(v / d, y));
            root.draw(&Text::new(text, (px + 4, py), text_style(11, HPos::Left, VPos::Center)))?;
        }
        for (i, l) in labels.iter().enumerate() {
            let (px, py) = c.backend_coord(&(0.0, row_y(i) - 0.5));
            root.draw(&Text::new(l.clone(), (px - 6, py), text_style(12, HPos::Right, VPos::Center)))?;
        }
        Ok(())
    })
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
    let part = |label, color, get: fn(&IoCost) -> f64| Series { label, color, values: rows.iter().map(get).collect() };
    let series = [
        part("read", COLORS[0], |r| r.read),
        part("write", COLORS[1], |r| r.write),
        part("meta", COLORS[2], |r| r.meta),
        part("wait", COLORS[3], |r| r.wait),
    ];
    let longest = rows.iter().map(|r| r.read + r.write + r.meta + r.wait).fold(0.0, f64::max);
    let run = crate::units::secs(run_time);
    // A run time many times the longest bar would squash every bar.
    let marker = (run_time.is_finite() && run_time > 0.0 && run_time <= longest * 4.0)
        .then(|| (run_time, format!("run time {run}")));
    category_bars_marked(
        &format!("I/O cost: average seconds per process (run time {run})"),
        Unit::Seconds,
        "time per process",
        &labels,
        &series,
        true,
        0.0,
        marker,
    )
}
