//! Charts over time: the DXT timeline (rank × time, one bar per
//! operation) and line charts over a shared x axis (the facility page).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{axis, legend, legend_rows, nice_max, row_labels, svg, text_style, Scale, Series, Unit, COLORS, FONT};
use crate::model::{Timeline, Timespans};

/// DXT segments as bars on a rank × time chart: reads blue, writes orange.
pub fn timeline(t: &Timeline) -> String {
    let last = t.nranks.max(1) as i64 - 1;
    let bars = t.segments.iter().map(|s| (s.0.clamp(0, last) as usize, s.1, s.2, s.4)).collect();
    rows_over_time(&RowBars {
        caption: format!("{} timeline: each bar is one read or write, by rank", t.source),
        rows: t.nranks.max(1),
        y_desc: "rank",
        label: &|r| r.to_string(),
        end_time: t.end_time,
        bars,
        split: false,
    })
}

/// The first-to-last access spans (C Darshan's timespan graphs): files
/// of one process by rank, then files shared by all processes (a read
/// row and a write row), those the log has.
pub fn timespans(t: &Timespans) -> Vec<String> {
    let mut out = Vec::new();
    if !t.independent.is_empty() {
        let step = t.ranks_per_row.max(1) as usize;
        let per_row = if step > 1 { format!(", {step} ranks to a row") } else { String::new() };
        out.push(rows_over_time(&RowBars {
            caption: format!("First to last read and write of each process's own files (POSIX and STDIO{per_row})"),
            rows: t.rows.max(1),
            y_desc: "rank",
            label: &|r| (r * step).to_string(),
            end_time: t.end_time,
            bars: t.independent.clone(),
            split: true,
        }));
    }
    if !t.shared.is_empty() {
        out.push(rows_over_time(&RowBars {
            caption: "First to last read and write of files shared by all processes (POSIX and STDIO)".to_string(),
            rows: 2,
            y_desc: "",
            label: &|r| ["read", "write"][r.min(1)].to_string(),
            end_time: t.end_time,
            bars: t.shared_rows().collect(),
            split: false,
        }));
    }
    out
}

/// Bars on a row × time chart, row 0 at the top.
struct RowBars<'a> {
    caption: String,
    rows: usize,
    y_desc: &'a str,
    label: &'a dyn Fn(usize) -> String,
    end_time: f64,
    /// (row, start, end, is_write): reads blue, writes orange.
    bars: Vec<(usize, f64, f64, bool)>,
    /// Reads in the upper half of a row, writes in the lower.
    split: bool,
}

fn rows_over_time(b: &RowBars) -> String {
    let rows = b.rows.max(1) as f64;
    let end = b.end_time.max(1e-9) * 1.02;
    let time_scale = Scale::for_top(Unit::Seconds, end);
    let height = if b.rows <= 2 { 220 } else { 400 };
    svg(860, height, |root| {
        let (head, rest) = root.split_vertically(56);
        let (cap, leg) = head.split_vertically(30);
        cap.draw(&Text::new(b.caption.clone(), (8, 15), text_style(14, HPos::Left, VPos::Center)))?;
        legend(&leg, &[("read", COLORS[0]), ("write", COLORS[1])])?;
        let fmt_time = |v: &f64| time_scale.tick_scaled(*v);
        let td = time_scale.div;
        let mut c = ChartBuilder::on(&rest)
            .margin(6)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(axis(0.0, end / td)?, axis(0.0, rows)?)?;
        c.configure_mesh()
            .disable_mesh()
            .y_labels(0)
            .x_labels(8)
            .x_label_formatter(&fmt_time)
            .x_desc("time since the job started")
            .y_desc(b.y_desc)
            .axis_desc_style((FONT, 12))
            .label_style((FONT, 11))
            .draw()?;
        let h = (0.8f64).min(rows / 40.0).max(0.3);
        let y_of = |row: usize| rows - 1.0 - row.min(b.rows.max(1) - 1) as f64;
        // A bar too short to see is drawn a thousandth of the axis long.
        let least = b.end_time * 1e-3;
        for (w, color) in [(false, COLORS[0]), (true, COLORS[1])] {
            c.draw_series(b.bars.iter().filter(|s| s.3 == w).map(|s| {
                let y = y_of(s.0);
                let (lo, hi) = match (b.split, w) {
                    (false, _) => ((1.0 - h) / 2.0, (1.0 + h) / 2.0),
                    (true, false) => (0.5, (1.0 + h) / 2.0),
                    (true, true) => ((1.0 - h) / 2.0, 0.5),
                };
                let end = if s.2 - s.1 >= least { s.2 } else { s.1 + least };
                Rectangle::new([(s.1 / td, y + lo), (end / td, y + hi)], color.filled())
            }))?;
        }
        row_labels(root, &c, b.rows.max(1), |r| y_of(r) + 0.5, b.label)?;
        Ok(())
    })
}

/// Lines over a shared x axis (one value per x per series), for series
/// over time; `x_desc` names the x axis, `unit` and `what` the y axis.
pub fn lines(title: &str, x_desc: &str, unit: Unit, what: &str, x: &[f64], series: &[Series]) -> String {
    let (x0, x1) = (x.first().copied().unwrap_or(0.0), x.last().copied().unwrap_or(1.0));
    let top = series.iter().flat_map(|s| s.values.iter().copied()).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let scale = Scale::for_top(unit, nice_max(top));
    let names: Vec<&str> = series.iter().map(|s| s.label).collect();
    let legend_px = if series.len() > 1 { legend_rows(&names, 860) * 18 + 6 } else { 0 };
    svg(860, 330 + legend_px, |root| {
        let (head, rest) = root.split_vertically(30 + legend_px);
        let (cap, leg) = head.split_vertically(30);
        cap.draw(&Text::new(title.to_string(), (8, 15), text_style(15, HPos::Left, VPos::Center)))?;
        if series.len() > 1 {
            let items: Vec<(&str, RGBColor)> = series.iter().map(|s| (s.label, s.color)).collect();
            legend(&leg, &items)?;
        }
        let axis_name = if scale.suffix.is_empty() || scale.unit == Unit::Percent {
            what.to_string()
        } else {
            format!("{what} ({})", scale.suffix)
        };
        let fmt = |v: &f64| scale.tick_scaled(*v);
        let d = scale.div;
        let mut c = ChartBuilder::on(&rest)
            .margin(8)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(axis(x0, if x1 > x0 { x1 } else { x0 + 1.0 })?, axis(0.0, nice_max(top / d))?)?;
        let x_fmt = |v: &f64| Scale::for_top(Unit::Number, 1.0).tick_scaled(*v);
        c.configure_mesh()
            .x_desc(x_desc)
            .y_desc(axis_name)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&fmt)
            .axis_desc_style((FONT, 12))
            .label_style((FONT, 11))
            .draw()?;
        for sr in series {
            let color = sr.color;
            c.draw_series(LineSeries::new(
                x.iter().copied().zip(sr.values.iter().map(|v| v / d)),
                color.stroke_width(2),
            ))?;
        }
        Ok(())
    })
}
