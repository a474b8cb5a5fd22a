//! The report's charts as inline SVG, drawn by plotters' SVG backend (text
//! as SVG text, no font files). A chart that cannot be drawn becomes a
//! short note instead of failing the report.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::model::{Heatmap, IoCost, Timeline};

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Res = Result<(), Box<dyn std::error::Error>>;

const READ: RGBColor = RGBColor(31, 119, 180);
const WRITE: RGBColor = RGBColor(255, 127, 14);
const META: RGBColor = RGBColor(44, 160, 44);
const WAIT: RGBColor = RGBColor(148, 103, 189);
const FONT: &str = "sans-serif";

fn svg(w: u32, h: u32, draw: impl FnOnce(&Area) -> Res) -> String {
    let mut s = String::new();
    let res = {
        let root = SVGBackend::with_string(&mut s, (w, h)).into_drawing_area();
        root.fill(&WHITE)
            .map_err(|e| e.into())
            .and_then(|_| draw(&root))
            .and_then(|_| root.present().map_err(|e| e.into()))
    };
    match res {
        // Inline SVG in HTML needs no namespace; dropping it keeps every
        // URL-looking string out of the page.
        Ok(()) => s.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1),
        Err(e) => format!("<p class=\"note\">chart unavailable: {}</p>", html_escape(&e.to_string())),
    }
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// An axis from `lo` to `hi`, refused unless both ends are finite and
/// apart: a damaged log's infinite or NaN seconds would otherwise send the
/// axis's tick search on forever. The chart becomes a note instead.
fn axis(lo: f64, hi: f64) -> Result<std::ops::Range<f64>, Box<dyn std::error::Error>> {
    if lo.is_finite() && hi.is_finite() && hi > lo {
        Ok(lo..hi)
    } else {
        Err(format!("the log's values span no finite range ({lo} to {hi})").into())
    }
}

fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        1.0
    } else {
        v * 1.1
    }
}

/// One series of bars or a line: its legend label, color and values.
pub struct Series<'a> {
    pub label: &'a str,
    pub color: RGBColor,
    pub values: Vec<f64>,
}

/// The colours of the report's series: read, write, meta, wait, then two
/// more for charts with more series.
pub const COLORS: [RGBColor; 6] = [READ, WRITE, META, WAIT, RGBColor(214, 39, 40), RGBColor(140, 86, 75)];

/// Bars per category label, the series side by side or stacked; the y axis
/// reaches at least `min_top`. A legend when there is more than one series.
pub fn category_bars(
    title: &str,
    y_desc: &str,
    labels: &[String],
    series: &[Series],
    stacked: bool,
    min_top: f64,
) -> String {
    let n = labels.len().max(1);
    let per_category = |i: usize| series.iter().map(move |s| s.values[i]);
    let top = (0..labels.len())
        .map(|i| if stacked { per_category(i).sum() } else { per_category(i).fold(0.0, f64::max) })
        .fold(min_top, f64::max);
    // Long labels (histogram buckets, operation names) stand upright.
    let upright = labels.iter().any(|l| l.len() > 6);
    svg(460, 300, |root| {
        let mut c = ChartBuilder::on(root)
            .caption(title, (FONT, 15))
            .margin(8)
            .x_label_area_size(if upright { 70 } else { 30 })
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..n as f64, axis(0.0, nice_max(top))?)?;
        let label_of = |x: &f64| labels.get(x.floor() as usize).cloned().unwrap_or_default();
        let mut mesh = c.configure_mesh();
        mesh.disable_x_mesh().x_labels(n).x_label_formatter(&label_of).y_desc(y_desc);
        if upright {
            mesh.x_label_style((FONT, 10).into_font().transform(FontTransform::Rotate90));
        }
        mesh.draw()?;
        let width = if stacked { 0.6 } else { 0.8 / series.len().max(1) as f64 };
        let mut base = vec![0.0; labels.len()];
        for (k, sr) in series.iter().enumerate() {
            let color = sr.color;
            let bars: Vec<Rectangle<(f64, f64)>> = (0..labels.len())
                .map(|i| {
                    let (x0, y0) =
                        if stacked { (i as f64 + 0.2, base[i]) } else { (i as f64 + 0.1 + width * k as f64, 0.0) };
                    base[i] += sr.values[i];
                    Rectangle::new([(x0, y0), (x0 + width, y0 + sr.values[i])], color.filled())
                })
                .collect();
            let drawn = c.draw_series(bars)?;
            if series.len() > 1 {
                drawn
                    .label(sr.label)
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
            }
        }
        if series.len() > 1 {
            c.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw()?;
        }
        Ok(())
    })
}

/// Read and write bars per label (access-size histograms, access pattern).
pub fn read_write_bars(title: &str, rows: &[(String, i64, i64)]) -> String {
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let series = [
        Series { label: "read", color: READ, values: rows.iter().map(|r| r.1 as f64).collect() },
        Series { label: "write", color: WRITE, values: rows.iter().map(|r| r.2 as f64).collect() },
    ];
    category_bars(title, "count", &labels, &series, false, 0.0)
}

/// One bar per label (operation counts).
pub fn bars(title: &str, rows: &[(String, i64)]) -> String {
    let labels: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    let series = [Series { label: "", color: READ, values: rows.iter().map(|r| r.1 as f64).collect() }];
    category_bars(title, "count", &labels, &series, false, 0.0)
}

/// Stacked read/write/meta/wait seconds per interface, up to the run time.
pub fn io_cost(rows: &[IoCost], run_time: f64) -> String {
    let labels: Vec<String> = rows.iter().map(|r| r.interface.clone()).collect();
    let part = |label, color, get: fn(&IoCost) -> f64| Series { label, color, values: rows.iter().map(get).collect() };
    let series = [
        part("read", READ, |r| r.read),
        part("write", WRITE, |r| r.write),
        part("meta", META, |r| r.meta),
        part("wait", WAIT, |r| r.wait),
    ];
    category_bars(
        "I/O cost (average seconds per process)",
        "seconds (run time at top)",
        &labels,
        &series,
        true,
        run_time,
    )
}

/// Rank × time heat map (downsampled grid, log color scale) with bytes
/// per time bin above it.
pub fn heatmap(h: &Heatmap) -> String {
    let max = h.grid.iter().flatten().cloned().fold(0.0, f64::max);
    let cols = h.grid.first().map_or(1, |r| r.len()).max(1);
    let rows = h.grid.len().max(1);
    let span = h.bin_width * h.nbins as f64;
    svg(820, 420, |root| {
        let (top, bottom) = root.split_vertically(130);
        let per_bin: Vec<f64> = h.read_per_bin.iter().zip(&h.write_per_bin).map(|(r, w)| r + w).collect();
        let pmax = per_bin.iter().cloned().fold(0.0, f64::max);
        let mut t = ChartBuilder::on(&top)
            .caption(format!("{}: bytes per time bin (bin {:.3} s)", h.name, h.bin_width), (FONT, 14))
            .margin(6)
            .y_label_area_size(70)
            .build_cartesian_2d(axis(0.0, span.max(1e-9))?, axis(0.0, nice_max(pmax))?)?;
        t.configure_mesh().disable_x_mesh().x_labels(0).y_labels(3).draw()?;
        t.draw_series(per_bin.iter().enumerate().filter(|(_, v)| **v > 0.0).map(|(i, v)| {
            let x = i as f64 * h.bin_width;
            Rectangle::new([(x, 0.0), (x + h.bin_width, *v)], READ.filled())
        }))?;
        let mut c = ChartBuilder::on(&bottom)
            .margin(6)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(axis(0.0, span.max(1e-9))?, axis(0.0, (rows * h.grid_rank_step) as f64)?)?;
        c.configure_mesh().disable_mesh().x_desc("seconds since job start").y_desc("rank").draw()?;
        let cell_w = span / cols as f64;
        let lmax = (max + 1.0).ln();
        c.draw_series(h.grid.iter().enumerate().flat_map(|(ri, row)| {
            row.iter().enumerate().filter(|(_, v)| **v > 0.0).map(move |(bi, v)| {
                let a = ((v + 1.0).ln() / lmax).clamp(0.08, 1.0);
                let color = RGBColor(255 - (a * 200.0) as u8, 255 - (a * 230.0) as u8, 255 - (a * 120.0) as u8);
                let y = (ri * h.grid_rank_step) as f64;
                Rectangle::new(
                    [(bi as f64 * cell_w, y), ((bi + 1) as f64 * cell_w, y + h.grid_rank_step as f64)],
                    color.filled(),
                )
            })
        }))?;
        Ok(())
    })
}

/// DXT segments as bars on a rank × time chart: reads blue, writes orange.
pub fn timeline(t: &Timeline) -> String {
    let ranks = t.nranks.max(1) as f64;
    svg(820, 360, |root| {
        let mut c = ChartBuilder::on(root)
            .caption(format!("{} timeline: each bar one read or write", t.source), (FONT, 14))
            .margin(6)
            .x_label_area_size(35)
            .y_label_area_size(60)
            .build_cartesian_2d(axis(0.0, t.end_time.max(1e-9) * 1.02)?, axis(0.0, ranks)?)?;
        c.configure_mesh().disable_mesh().x_desc("seconds since job start").y_desc("rank").draw()?;
        let h = (0.8f64).min(ranks / 40.0).max(0.3);
        for (w, color, label) in [(false, READ, "read"), (true, WRITE, "write")] {
            c.draw_series(t.segments.iter().filter(|s| s.4 == w).map(|s| {
                let y = s.0.max(0) as f64;
                let end = if s.2 > s.1 { s.2 } else { s.1 + t.end_time * 1e-3 };
                Rectangle::new([(s.1, y + (1.0 - h) / 2.0), (end, y + (1.0 + h) / 2.0)], color.filled())
            }))?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        }
        c.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw()?;
        Ok(())
    })
}

/// Lines over a shared x axis (one value per x per series), for series
/// over time; `x_desc` names the axis.
pub fn lines(title: &str, x_desc: &str, y_desc: &str, x: &[f64], series: &[Series]) -> String {
    let (x0, x1) = (x.first().copied().unwrap_or(0.0), x.last().copied().unwrap_or(1.0));
    let top = series.iter().flat_map(|s| s.values.iter().copied()).fold(0.0, f64::max);
    svg(820, 320, |root| {
        let mut c = ChartBuilder::on(root)
            .caption(title, (FONT, 15))
            .margin(8)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(axis(x0, if x1 > x0 { x1 } else { x0 + 1.0 })?, axis(0.0, nice_max(top))?)?;
        c.configure_mesh().x_desc(x_desc).y_desc(y_desc).draw()?;
        for sr in series {
            let color = sr.color;
            c.draw_series(LineSeries::new(x.iter().copied().zip(sr.values.iter().copied()), color.stroke_width(2)))?
                .label(sr.label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 2), (x + 12, y + 2)], color.filled()));
        }
        if series.len() > 1 {
            c.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.8)).draw()?;
        }
        Ok(())
    })
}
