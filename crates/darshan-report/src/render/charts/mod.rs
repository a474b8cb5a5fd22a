//! The report's charts as inline SVG, drawn by plotters' SVG backend (text
//! as SVG text, no font files). A chart that cannot be drawn becomes a
//! short note instead of failing the report.
//!
//! What every chart here promises (tests/report/check_charts.py checks
//! it in Chromium): every category is labelled, horizontally; labels never
//! overlap; value axes are in units a person reads (KiB/MiB/GiB, µs/ms/s,
//! counts with thousands separators), ranks are whole numbers; legends sit
//! outside the data; every heat map has a colour scale in its units.
//! Category labels and rank ticks are drawn by hand at the positions
//! plotters reports (`backend_coord`), because plotters' own tick search
//! picks "nice" values and skips categories.

mod bars;
mod heatmap;
mod over_time;

pub use bars::{bars, category_bars, io_cost, read_write_bars};
pub use heatmap::{heatmap, heatmap_by};
pub use over_time::{lines, timeline, timespans};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::units;

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
pub(crate) type Res = Result<(), Box<dyn std::error::Error>>;

const READ: RGBColor = RGBColor(31, 119, 180);
const WRITE: RGBColor = RGBColor(255, 127, 14);
const META: RGBColor = RGBColor(44, 160, 44);
const WAIT: RGBColor = RGBColor(148, 103, 189);
pub(crate) const FONT: &str = "sans-serif";
/// Width of one character of the 12 px label font, for layout (a
/// conservative estimate of sans-serif's average).
pub(crate) const CHAR_PX: u32 = 7;

/// The colours of the report's series: read, write, meta, wait, then two
/// more for charts with more series.
pub const COLORS: [RGBColor; 6] = [READ, WRITE, META, WAIT, RGBColor(214, 39, 40), RGBColor(140, 86, 75)];

/// One series of bars or a line: its legend label, color and values.
pub struct Series<'a> {
    pub label: &'a str,
    pub color: RGBColor,
    pub values: Vec<f64>,
}

/// What a value axis measures, for its tick labels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    /// Operations, files, jobs: whole numbers with thousands separators.
    Count,
    /// Bytes, shown in the binary unit that suits the axis's top.
    Bytes,
    /// Seconds, shown in µs, ms or s by the axis's top.
    Seconds,
    /// Percent (values 0-100).
    Percent,
    /// Anything else (core-hours, a ratio): plain numbers.
    Number,
}

/// An axis's scale: values are divided by `div` and shown with `suffix`.
#[derive(Clone, Copy)]
pub(crate) struct Scale {
    pub div: f64,
    pub suffix: &'static str,
    pub unit: Unit,
}

impl Scale {
    /// The scale for an axis reaching `top`.
    pub fn for_top(unit: Unit, top: f64) -> Scale {
        let (div, suffix) = match unit {
            Unit::Bytes => {
                const U: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
                let mut k = 0;
                while k + 1 < U.len() && top >= 1024f64.powi(k as i32 + 1) {
                    k += 1;
                }
                (1024f64.powi(k as i32), U[k])
            }
            Unit::Seconds if top < 1e-3 => (1e-6, "µs"),
            Unit::Seconds if top < 1.0 => (1e-3, "ms"),
            Unit::Seconds => (1.0, "s"),
            Unit::Percent => (1.0, "%"),
            Unit::Count | Unit::Number => (1.0, ""),
        };
        Scale { div, suffix, unit }
    }

    /// The tick label (the value in the axis's unit, without needless
    /// digits) of a value already divided by `div`: charts plot
    /// scaled values so that plotters' round ticks are round in MiB or
    /// ms, not in bytes or seconds (40,000,000 B read "38.15 MiB").
    pub fn tick_scaled(&self, x: f64) -> String {
        let num = if self.unit == Unit::Count && (x - x.round()).abs() < 1e-9 {
            units::count(x.round() as i64)
        } else {
            trim(x)
        };
        match self.suffix {
            "" => num,
            "%" => format!("{num}%"),
            s => format!("{num} {s}"),
        }
    }

    /// A value as it is printed beside a bar (full precision of its unit).
    pub fn value(&self, v: f64) -> String {
        match self.unit {
            Unit::Count => units::count(v.round() as i64),
            Unit::Bytes => units::bytes(v),
            Unit::Seconds => units::secs(v),
            Unit::Percent => format!("{v:.1}%"),
            Unit::Number => trim(v),
        }
    }
}

/// 3 → "3", 2.5 → "2.5", 0.125 → "0.125", 1234.5 → "1,234.5".
fn trim(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{:.3}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    let (int, frac) = s.split_once('.').map_or((s, None), |(a, b)| (a, Some(b)));
    let neg = int.starts_with('-');
    let digits: i64 = int.trim_start_matches('-').parse().unwrap_or(0);
    let grouped = units::count(digits);
    let grouped = if neg { format!("-{grouped}") } else { grouped };
    match frac {
        Some(f) => format!("{grouped}.{f}"),
        None => grouped,
    }
}

pub(crate) fn svg(w: u32, h: u32, draw: impl FnOnce(&Area) -> Res) -> String {
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
pub(crate) fn axis(lo: f64, hi: f64) -> Result<std::ops::Range<f64>, Box<dyn std::error::Error>> {
    if lo.is_finite() && hi.is_finite() && hi > lo {
        Ok(lo..hi)
    } else {
        Err(format!("the log's values span no finite range ({lo} to {hi})").into())
    }
}

/// The top of a value axis: a tenth above the largest value. An infinite
/// or NaN value stays so, and `axis` then refuses it (the chart becomes a
/// note rather than bars clipped to a made-up scale).
pub(crate) fn nice_max(v: f64) -> f64 {
    if v <= 0.0 {
        1.0
    } else {
        v * 1.1
    }
}

/// A text style of `size` px anchored at `h`, `v`.
pub(crate) fn text_style(size: u32, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font()).pos(Pos::new(h, v))
}

/// A legend in its own strip (never over the data): a coloured box and
/// the label per series, left to right, wrapping onto a new row when the
/// strip is full. Returns the rows used.
pub(crate) fn legend(area: &Area, items: &[(&str, RGBColor)]) -> Res {
    let (w, _) = area.dim_in_pixel();
    let (mut x, mut y) = (8i32, 10i32);
    for (label, color) in items {
        let width = 18 + label.chars().count() as i32 * CHAR_PX as i32 + 14;
        if x + width > w as i32 && x > 8 {
            x = 8;
            y += 18;
        }
        area.draw(&Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()))?;
        area.draw(&Text::new(label.to_string(), (x + 17, y), text_style(12, HPos::Left, VPos::Center)))?;
        x += width;
    }
    Ok(())
}

/// Rows a legend of `items` needs in a strip `w` pixels wide.
pub(crate) fn legend_rows(items: &[&str], w: u32) -> u32 {
    let (mut x, mut rows) = (8u32, 1u32);
    for label in items {
        let width = 18 + label.chars().count() as u32 * CHAR_PX + 14;
        if x + width > w && x > 8 {
            x = 8;
            rows += 1;
        }
        x += width;
    }
    rows
}

/// Rank labels left of a rank × time chart's axis: whole ranks only (up
/// to 16, at round steps), each at the y `center_of` gives, drawn at the
/// coordinates plotters reports.
pub(crate) fn rank_labels(root: &Area, chart: &Chart2d, nranks: usize, center_of: impl Fn(usize) -> f64) -> Res {
    row_labels(root, chart, nranks, center_of, &|r| r.to_string())
}

/// Up to 16 rows' labels (`label` of the row at [`whole_ticks`]) left of
/// the chart, at the height `center_of` gives in its coordinates.
pub(crate) fn row_labels(
    root: &Area,
    chart: &Chart2d,
    rows: usize,
    center_of: impl Fn(usize) -> f64,
    label: &dyn Fn(usize) -> String,
) -> Res {
    for r in whole_ticks(rows, 16) {
        let (px, py) = chart.backend_coord(&(0.0, center_of(r)));
        root.draw(&Text::new(label(r), (px - 6, py), text_style(11, HPos::Right, VPos::Center)))?;
    }
    Ok(())
}

/// A chart of two real axes on the SVG backend.
pub(crate) type Chart2d<'a> = ChartContext<
    'a,
    SVGBackend<'a>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Up to `max` whole numbers from 0 to `n` − 1 at a round step (1, 2, 5,
/// 10, 20, 50, ...), for rank ticks: rank 0 always, ranks never halves.
pub(crate) fn whole_ticks(n: usize, max: usize) -> Vec<usize> {
    if n == 0 {
        return Vec::new();
    }
    let mut step = 1usize;
    let mut k = 0;
    while n.div_ceil(step) > max.max(1) {
        step = [1, 2, 5][(k + 1) % 3] * 10usize.pow(((k + 1) / 3) as u32);
        k += 1;
    }
    (0..n).step_by(step).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_ticks_read_as_people_write_them() {
        let b = Scale::for_top(Unit::Bytes, 40_000_000.0);
        assert_eq!(b.suffix, "MiB");
        assert_eq!(b.tick_scaled(20.0), "20 MiB");
        assert_eq!(b.value(40_000_000.0), "38.15 MiB");
        assert_eq!(Scale::for_top(Unit::Count, 40000.0).tick_scaled(35000.0), "35,000");
        let ms = Scale::for_top(Unit::Seconds, 0.2);
        assert_eq!((ms.div, ms.tick_scaled(50.0)), (1e-3, "50 ms".to_string()));
        assert_eq!(Scale::for_top(Unit::Number, 3.0).tick_scaled(2.5), "2.5");
        assert_eq!(Scale::for_top(Unit::Percent, 100.0).tick_scaled(50.0), "50%");
    }

    #[test]
    fn rank_ticks_are_whole_and_few() {
        assert_eq!(whole_ticks(4, 16), vec![0, 1, 2, 3]);
        assert_eq!(whole_ticks(496, 16), (0..496).step_by(50).collect::<Vec<_>>());
        assert_eq!(whole_ticks(1, 16), vec![0]);
        assert!(whole_ticks(1 << 20, 16).len() <= 16);
    }
}
