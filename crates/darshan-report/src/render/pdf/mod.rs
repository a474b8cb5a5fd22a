//! The report as a PDF: the text report (render::text) set in Courier on
//! landscape US Letter pages, then its charts (bars.rs), for the sites
//! and users whose scripts call `darshan-job-summary.pl LOG` (C Darshan's,
//! which wrote a LaTeX summary with graphs as `LOG.pdf`; ours, installed
//! under that name, writes this). Courier is
//! one of the PDF's standard fonts, so nothing is embedded; its
//! WinAnsiEncoding shows Latin-1 (µ, ×, accented names) as they are, and
//! anything else is written as `\u{XXXX}`, never lost or turned into
//! another character.

use flate2::{write::ZlibEncoder, Compression};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
use std::io::Write;

mod bars;
mod spans;
use bars::BarChart;
use spans::SpanChart;

use crate::model::Report;
use darshan_util::visible::visible;

const PAGE_W: f32 = 792.0;
const PAGE_H: f32 = 612.0;
const MARGIN: f32 = 36.0;
/// Courier's advance is 0.6 of its size: 184 columns in the margins,
/// enough for the per-file tables' rows.
const SIZE: f32 = 6.5;
const LEADING: f32 = 7.8;
const COLUMNS: usize = 184;
/// Lines per page, the footer below them.
const LINES: usize = 66;
/// A wrapped line's continuation starts this far in.
const CONTINUED: &[u8] = b"    ";
const FONT: Name<'static> = Name(b"F1");
const BOLD: Name<'static> = Name(b"F2");

/// The report as a PDF: the text report's pages, then its charts.
pub fn report(r: &Report) -> Vec<u8> {
    let title = format!("Darshan job summary: {}", visible(&r.log.file_name));
    let mut charts: Vec<Chart> = bars::of_report(r).into_iter().map(Chart::Bars).collect();
    charts.extend(r.timespans.iter().flat_map(spans::of_report).map(Chart::Spans));
    document(&crate::render::text::render(r), &charts, &title)
}

/// A chart of the PDF's: bars by category, or spans over time.
enum Chart {
    Bars(BarChart),
    Spans(SpanChart),
}

impl Chart {
    fn height(&self) -> f32 {
        match self {
            Chart::Bars(b) => b.height(),
            Chart::Spans(s) => s.height(),
        }
    }

    fn draw(&self, c: &mut Content, x: f32, top: f32, w: f32) {
        match self {
            Chart::Bars(b) => b.draw(c, x, top, w),
            Chart::Spans(s) => s.draw(c, x, top, w),
        }
    }
}

/// `text` (lines) and `charts` as a PDF titled `title`, with the title
/// and "page N of M" at the foot of every page.
fn document(text: &str, charts: &[Chart], title: &str) -> Vec<u8> {
    let mut pages = text_pages(text);
    pages.extend(chart_pages(charts));
    let mut pdf = Pdf::new();
    let (catalog, tree, font, bold, info) = (Ref::new(1), Ref::new(2), Ref::new(3), Ref::new(4), Ref::new(5));
    let first_page = 6;
    pdf.catalog(catalog).pages(tree);
    let kids = (0..pages.len()).map(|k| Ref::new(first_page + 2 * k as i32));
    pdf.pages(tree).kids(kids).count(pages.len() as i32);
    pdf.type1_font(font).base_font(Name(b"Courier")).encoding_predefined(Name(b"WinAnsiEncoding"));
    pdf.type1_font(bold).base_font(Name(b"Courier-Bold")).encoding_predefined(Name(b"WinAnsiEncoding"));
    let producer = format!("darshan-summary {}", env!("CARGO_PKG_VERSION"));
    pdf.document_info(info).title(TextStr(title)).producer(TextStr(&producer));
    let foot = win_ansi(title);
    let n = pages.len();
    for (k, mut content) in pages.into_iter().enumerate() {
        let (page_id, content_id) = (Ref::new(first_page + 2 * k as i32), Ref::new(first_page + 2 * k as i32 + 1));
        let mut page = pdf.page(page_id);
        page.media_box(Rect::new(0.0, 0.0, PAGE_W, PAGE_H)).parent(tree).contents(content_id);
        page.resources().fonts().pair(FONT, font).pair(BOLD, bold);
        page.finish();
        // One line: a title too long for it is cut, the page number kept.
        let number = format!(" - page {} of {n}", k + 1);
        let keep = foot.len().min(COLUMNS.saturating_sub(number.len()));
        let footer = [&foot[..keep], number.as_bytes()].concat();
        content.begin_text();
        content.set_font(FONT, SIZE);
        content.next_line(MARGIN, MARGIN / 2.0);
        content.show(Str(&footer));
        content.end_text();
        pdf.stream(content_id, &deflate(&content.finish().into_vec())).filter(Filter::FlateDecode);
    }
    pdf.finish()
}

/// The text's lines, wrapped, a page of [`LINES`] at a time (at least
/// one page).
fn text_pages(text: &str) -> Vec<Content> {
    let lines: Vec<Vec<u8>> = text.lines().flat_map(|l| wrap(&win_ansi(l))).collect();
    let chunks: Vec<&[Vec<u8>]> = if lines.is_empty() { vec![&[][..]] } else { lines.chunks(LINES).collect() };
    chunks
        .into_iter()
        .map(|page_lines| {
            let mut c = Content::new();
            c.begin_text();
            c.set_font(FONT, SIZE);
            c.set_leading(LEADING);
            c.next_line(MARGIN, PAGE_H - MARGIN - SIZE);
            for line in page_lines {
                c.show(Str(line));
                c.next_line_using_leading();
            }
            c.end_text();
            c
        })
        .collect()
}

/// The charts in two columns, top to bottom, as many pages as they take.
fn chart_pages(charts: &[Chart]) -> Vec<Content> {
    const COL_GAP: f32 = 36.0;
    let col_w = (PAGE_W - 2.0 * MARGIN - COL_GAP) / 2.0;
    let (top, bottom) = (PAGE_H - MARGIN, MARGIN + 12.0);
    let mut pages: Vec<Content> = Vec::new();
    // The column and height the next chart may start at on the last page.
    let mut slot: Option<(usize, f32)> = None;
    for chart in charts {
        let h = chart.height();
        let (col, y) = match slot {
            Some((col, y)) if y - h >= bottom => (col, y),
            Some((0, _)) => (1, top),
            _ => {
                pages.push(Content::new());
                (0, top)
            }
        };
        if let Some(page) = pages.last_mut() {
            chart.draw(page, MARGIN + col as f32 * (col_w + COL_GAP), y, col_w);
        }
        slot = Some((col, y - h - 12.0));
    }
    pages
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
    // Writing into a Vec cannot fail.
    let _ = z.write_all(bytes);
    z.finish().unwrap_or_default()
}

/// `line` cut into lines of at most [`COLUMNS`] bytes, the continuations
/// indented (a WinAnsi byte is one column).
fn wrap(line: &[u8]) -> Vec<Vec<u8>> {
    if line.len() <= COLUMNS {
        return vec![line.to_vec()];
    }
    let mut out = vec![line[..COLUMNS].to_vec()];
    for rest in line[COLUMNS..].chunks(COLUMNS - CONTINUED.len()) {
        out.push([CONTINUED, rest].concat());
    }
    out
}

/// `s` in WinAnsiEncoding (Windows code page 1252): printable ASCII and
/// Latin-1 as one byte each, cp1252's own punctuation at its codes, the
/// report's arrow as `->`, anything else as `\u{XXXX}` (controls never
/// reach here: the text report shows them escaped).
pub(crate) fn win_ansi(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        match c {
            ' '..='~' | '\u{a0}'..='\u{ff}' => out.push(c as u32 as u8),
            '→' => out.extend_from_slice(b"->"),
            _ => match CP1252.iter().find(|&&(u, _)| u == c) {
                Some(&(_, b)) => out.push(b),
                None => out.extend_from_slice(format!("\\u{{{:04x}}}", c as u32).as_bytes()),
            },
        }
    }
    out
}

/// Code page 1252's characters at 0x80-0x9f.
const CP1252: [(char, u8); 27] = [
    ('€', 0x80),
    ('‚', 0x82),
    ('ƒ', 0x83),
    ('„', 0x84),
    ('…', 0x85),
    ('†', 0x86),
    ('‡', 0x87),
    ('ˆ', 0x88),
    ('‰', 0x89),
    ('Š', 0x8a),
    ('‹', 0x8b),
    ('Œ', 0x8c),
    ('Ž', 0x8e),
    ('‘', 0x91),
    ('’', 0x92),
    ('“', 0x93),
    ('”', 0x94),
    ('•', 0x95),
    ('–', 0x96),
    ('—', 0x97),
    ('˜', 0x98),
    ('™', 0x99),
    ('š', 0x9a),
    ('›', 0x9b),
    ('œ', 0x9c),
    ('ž', 0x9e),
    ('Ÿ', 0x9f),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_is_one_byte_and_the_rest_is_shown_escaped() {
        assert_eq!(win_ansi("12 µs × 3"), b"12 \xb5s \xd7 3");
        assert_eq!(win_ansi("a → b — c"), b"a -> b \x97 c");
        assert_eq!(win_ansi("ρ 1.2 /データ"), b"\\u{03c1} 1.2 /\\u{30c7}\\u{30fc}\\u{30bf}");
    }

    #[test]
    fn a_long_line_is_wrapped_not_cut() {
        let line = vec![b'x'; 2 * COLUMNS];
        let out = wrap(&line);
        assert!(out.iter().all(|l| l.len() <= COLUMNS));
        let kept: usize = out.iter().map(|l| l.iter().filter(|&&b| b == b'x').count()).sum();
        assert_eq!(kept, 2 * COLUMNS);
    }
}
