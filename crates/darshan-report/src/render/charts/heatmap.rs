//! Rank × time heat map with the bytes per time bin above it and a colour
//! scale beside it, in bytes, so two cells can be compared by number, not
//! only by shade.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::{axis, nice_max, rank_labels, svg, text_style, Scale, Unit, COLORS, FONT};
use crate::model::Heatmap;

/// The colour scale: logarithmic from the smallest non-empty cell to the
/// largest, light blue to dark blue (empty cells stay white).
#[derive(Clone, Copy)]
struct Shades {
    min: f64,
    max: f64,
}

impl Shades {
    fn of(grid: &[Vec<f64>]) -> Shades {
        let cells = grid.iter().flatten().copied().filter(|v| *v > 0.0 && v.is_finite());
        let (min, max) = cells.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let min = if min.is_finite() { min } else { 0.0 };
        // Cells all alike still get a scale to read them against: three
        // decades below them, where their colour is the top's.
        let min = if max > 0.0 && min >= max { max / 1000.0 } else { min };
        Shades { min, max }
    }

    /// Position of `v` on the scale, 0 (smallest) to 1 (largest).
    fn at(&self, v: f64) -> f64 {
        if self.max <= self.min || self.min <= 0.0 {
            return 1.0;
        }
        ((v / self.min).ln() / (self.max / self.min).ln()).clamp(0.0, 1.0)
    }

    /// The value at position `a`.
    fn value(&self, a: f64) -> f64 {
        if self.max <= self.min || self.min <= 0.0 {
            return self.max;
        }
        self.min * (self.max / self.min).powf(a)
    }

    fn colour(&self, v: f64) -> RGBColor {
        let a = 0.15 + 0.85 * self.at(v);
        RGBColor(255 - (a * 200.0) as u8, 255 - (a * 230.0) as u8, 255 - (a * 120.0) as u8)
    }
}

pub fn heatmap(h: &Heatmap) -> String {
    heatmap_by(h, "rank")
}

/// A heat map whose rows are `row`s (ranks, or a job's processes).
pub fn heatmap_by(h: &Heatmap, row: &str) -> String {
    let shades = Shades::of(&h.grid);
    let nranks = h.nranks.max(1);
    let step = h.grid_rank_step.max(1);
    let cell = if step > 1 || h.grid_bin_step > 1 {
        format!("; a cell sums {} {row}(s) × {} bin(s)", step, h.grid_bin_step.max(1))
    } else {
        String::new()
    };
    svg(860, 470, |root| {
        let (cap, body) = root.split_vertically(30);
        cap.draw(&Text::new(
            format!(
                "{}: bytes read + written per {row} and time bin (bins of {}{cell})",
                h.name,
                crate::units::secs(h.bin_width)
            ),
            (8, 15),
            text_style(14, HPos::Left, VPos::Center),
        ))?;
        let (main, bar) = body.split_horizontally(760);
        let (left, side) = main.split_horizontally(650);
        let (top, bottom) = left.split_vertically(130);
        let (side_top, side_bottom) = side.split_vertically(130);
        per_bin(&top, h)?;
        grid(root, &bottom, h, shades, row)?;
        per_rank(&side_top, &side_bottom, h, step, nranks, row)?;
        colour_scale(&bar, shades)
    })
}

/// The run's length the time axes span.
fn span(h: &Heatmap) -> f64 {
    h.bin_width * h.nbins as f64
}

/// Bytes per time bin (all ranks), above the grid.
fn per_bin(area: &super::Area, h: &Heatmap) -> super::Res {
    let span = span(h);
    let per_bin: Vec<f64> = h.read_per_bin.iter().zip(&h.write_per_bin).map(|(r, w)| r + w).collect();
    let pmax = per_bin.iter().cloned().fold(0.0, f64::max);
    let bin_scale = Scale::for_top(Unit::Bytes, nice_max(pmax));
    let fmt_bytes = |v: &f64| bin_scale.tick_scaled(*v);
    let d = bin_scale.div;
    let mut t = ChartBuilder::on(area)
        .margin(6)
        .y_label_area_size(80)
        .build_cartesian_2d(axis(0.0, span.max(1e-9))?, axis(0.0, nice_max(pmax / d))?)?;
    t.configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(3)
        .y_label_formatter(&fmt_bytes)
        .y_desc("per bin")
        .axis_desc_style((FONT, 12))
        .label_style((FONT, 11))
        .draw()?;
    t.draw_series(per_bin.iter().enumerate().filter(|(_, v)| **v > 0.0).map(|(i, v)| {
        let x = i as f64 * h.bin_width;
        Rectangle::new([(x, 0.0), (x + h.bin_width, *v / d)], COLORS[0].filled())
    }))?;
    Ok(())
}

/// The grid itself: a cell per row of ranks and column of time bins,
/// shaded by its bytes, with the time axis and the rows' labels.
fn grid(root: &super::Area, area: &super::Area, h: &Heatmap, shades: Shades, row: &str) -> super::Res {
    let (span, nranks, step) = (span(h), h.nranks.max(1), h.grid_rank_step.max(1));
    let cols = h.grid.first().map_or(1, |r| r.len()).max(1);
    let time_scale = Scale::for_top(Unit::Seconds, span);
    let fmt_time = |v: &f64| time_scale.tick_scaled(*v);
    let td = time_scale.div;
    let mut c = ChartBuilder::on(area)
        .margin(6)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(axis(0.0, span.max(1e-9) / td)?, axis(0.0, nranks as f64)?)?;
    c.configure_mesh()
        .disable_mesh()
        .y_labels(0)
        .x_labels(8)
        .x_label_formatter(&fmt_time)
        .x_desc("time since the job started")
        .y_desc(row)
        .axis_desc_style((FONT, 12))
        .label_style((FONT, 11))
        .draw()?;
    let cell_w = span / td / cols as f64;
    // Rank 0 at the top, as in PyDarshan's and Darshan's heat maps.
    let y_of = |rank: usize| (nranks - rank.min(nranks)) as f64;
    c.draw_series(h.grid.iter().enumerate().flat_map(|(ri, row)| {
        row.iter().enumerate().filter(|(_, v)| **v > 0.0).map(move |(bi, v)| {
            let r0 = ri * step;
            let r1 = ((ri + 1) * step).min(nranks);
            Rectangle::new(
                [(bi as f64 * cell_w, y_of(r0)), ((bi + 1) as f64 * cell_w, y_of(r1))],
                shades.colour(*v).filled(),
            )
        })
    }))?;
    rank_labels(root, &c, nranks, |r| y_of(r) - 0.5)
}

/// Bytes per rank beside the grid, one bar per row of the grid (a row
/// sums `step` ranks), rank 0 on top as in the grid: who moved the data,
/// as PyDarshan's heat maps show on their right edge. No tick labels (they
/// would crowd the grid's time axis): the largest bar is named above.
fn per_rank(head: &super::Area, area: &super::Area, h: &Heatmap, step: usize, nranks: usize, row: &str) -> super::Res {
    let rows = nranks.div_ceil(step.max(1));
    let sums: Vec<f64> =
        (0..rows).map(|ri| h.per_rank.iter().skip(ri * step).take(step).filter(|v| v.is_finite()).sum()).collect();
    let top = sums.iter().copied().fold(0.0, f64::max);
    let (_, hh) = head.dim_in_pixel();
    head.draw(&Text::new(format!("per {row}"), (4, hh as i32 - 28), text_style(11, HPos::Left, VPos::Center)))?;
    head.draw(&Text::new(
        format!("max {}", crate::units::bytes(top)),
        (4, hh as i32 - 14),
        text_style(10, HPos::Left, VPos::Center),
    ))?;
    let mut c = ChartBuilder::on(area)
        .margin(6)
        .margin_left(2)
        .x_label_area_size(40)
        .build_cartesian_2d(axis(0.0, nice_max(top))?, axis(0.0, nranks as f64)?)?;
    c.configure_mesh().disable_mesh().x_labels(0).y_labels(0).draw()?;
    let y_of = |rank: usize| (nranks - rank.min(nranks)) as f64;
    c.draw_series(sums.iter().enumerate().filter(|(_, v)| **v > 0.0).map(|(ri, v)| {
        let (r0, r1) = (ri * step, ((ri + 1) * step).min(nranks));
        Rectangle::new([(0.0, y_of(r0)), (*v, y_of(r1))], COLORS[0].filled())
    }))?;
    Ok(())
}

/// The colour bar: the shade of every value from the smallest cell to the
/// largest, its ticks in bytes per cell.
fn colour_scale(area: &super::Area, shades: Shades) -> super::Res {
    let (_, h) = area.dim_in_pixel();
    let (x0, x1) = (14i32, 30i32);
    let (y0, y1) = (150i32, h as i32 - 46);
    area.draw(&Text::new("bytes per cell".to_string(), (4, y0 - 16), text_style(11, HPos::Left, VPos::Center)))?;
    if shades.max <= 0.0 {
        area.draw(&Text::new("no I/O".to_string(), (x0, y0 + 10), text_style(11, HPos::Left, VPos::Center)))?;
        return Ok(());
    }
    let steps = 48;
    for k in 0..steps {
        // Top of the bar is the largest value.
        let a = 1.0 - (k as f64 + 0.5) / steps as f64;
        let ya = y0 + (y1 - y0) * k / steps;
        let yb = y0 + (y1 - y0) * (k + 1) / steps;
        area.draw(&Rectangle::new([(x0, ya), (x1, yb)], shades.colour(shades.value(a)).filled()))?;
    }
    area.draw(&Rectangle::new([(x0, y0), (x1, y1)], BLACK.stroke_width(1)))?;
    // Ticks at the largest cell, the middle of the log scale, and the
    // smallest non-empty cell.
    let ticks: &[(f64, i32)] =
        if shades.max > shades.min { &[(1.0, y0), (0.5, (y0 + y1) / 2), (0.0, y1)] } else { &[(1.0, y0)] };
    for &(a, y) in ticks {
        let v = shades.value(a);
        area.draw(&PathElement::new(vec![(x1, y), (x1 + 4, y)], BLACK.stroke_width(1)))?;
        area.draw(&Text::new(crate::units::bytes(v.round()), (x1 + 6, y), text_style(10, HPos::Left, VPos::Center)))?;
    }
    Ok(())
}
