//! Charts over time: the DXT timeline (rank × time, one bar per
//! operation) and line charts over a shared x axis (the facility page).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{axis, legend, legend_rows, nice_max, rank_labels, svg, text_style, Scale, Series, Unit, COLORS, FONT};
use crate::model::Timeline;

/// DXT segments as bars on a rank × time chart: reads blue, writes orange.
pub fn timeline(t: &Timeline) -> String {
    let nranks = t.nranks.max(1);
    let ranks = nranks as f64;
    let end = t.end_time.max(1e-9) * 1.02;
    let time_scale = Scale::for_top(Unit::Seconds, end);
    svg(860, 400, |root| {
        let (head, rest) = root.split_vertically(56);
        let (cap, leg) = head.split_vertically(30);
        cap.draw(&Text::new(
            format!("{} timeline: each bar is one read or write, by rank", t.source),
            (8, 15),
            text_style(14, HPos::Left, VPos::Center),
        ))?;
        legend(&leg, &[("read", COLORS[0]), ("write", COLORS[1])])?;
        let fmt_time = |v: &f64| time_scale.tick_scaled(*v);
        let td = time_scale.div;
        let mut c = ChartBuilder::on(&rest)
            .margin(6)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(axis(0.0, end / td)?, axis(0.0, ranks)?)?;
        c.configure_mesh()
            .disable_mesh()
            .y_labels(0)
            .x_labels(8)
            .x_label_formatter(&fmt_time)
            .x_desc("time since the job started")
            .y_desc("rank")
            .axis_desc_style((FONT, 12))
            .label_style((FONT, 11))
            .draw()?;
        let h = (0.8f64).min(ranks / 40.0).max(0.3);
        // Rank 0 at the top.
        let y_of = |rank: i64| ranks - 1.0 - rank.clamp(0, nranks as i64 - 1) as f64;
        for (w, color) in [(false, COLORS[0]), (true, COLORS[1])] {
            c.draw_series(t.segments.iter().filter(|s| s.4 == w).map(|s| {
                let y = y_of(s.0);
                let end = if s.2 > s.1 { s.2 } else { s.1 + t.end_time * 1e-3 };
                Rectangle::new([(s.1 / td, y + (1.0 - h) / 2.0), (end / td, y + (1.0 + h) / 2.0)], color.filled())
            }))?;
        }
        rank_labels(root, &c, nranks, |r| y_of(r as i64) + 0.5)?;
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
