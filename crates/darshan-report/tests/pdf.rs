//! `darshan-summary --pdf` read back by a reader of its own, poppler's
//! `pdftotext` (scripts/setup.sh installs it): every character of the
//! text report is on the pages, in order, the job's facts are those C
//! Darshan 3.5.0's darshan-parser printed for the same log, and every bar
//! of the charts after them carries the count C's parser totals.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_test_support::corpus::{self, c_parser_all, c_total, header_fact, pdf_text};
use darshan_test_support::output;

fn summary(args: &[&str], log: &Path) -> Vec<u8> {
    let o = output(Command::new(env!("CARGO_BIN_EXE_darshan-summary")).args(args).arg(log));
    assert!(o.status.success(), "darshan-summary {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

/// `log` as a PDF in a new directory of this test's (`tag`).
fn pdf_of(tag: &str, log: &Path, args: &[&str]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pdf-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pdf = dir.join("report.pdf");
    summary(&[args, &["--pdf", "--output", pdf.to_str().unwrap()]].concat(), log);
    pdf
}

/// "<title> - page N of M", the line each page ends with.
fn is_footer(line: &str) -> bool {
    let Some((_, tail)) = line.rsplit_once(" - page ") else { return false };
    let mut parts = tail.trim().split(" of ");
    let n = |p: Option<&str>| p.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    n(parts.next()) && n(parts.next())
}

/// What the PDF's standard font can show: the report's arrow as `->`,
/// characters beyond Latin-1 and code page 1252 as `\u{XXXX}`.
fn as_set(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '→' => "->".to_string(),
            c if (c as u32) < 0x100 || "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ".contains(c) => {
                c.to_string()
            }
            c => format!("\\u{{{:04x}}}", c as u32),
        })
        .collect()
}

/// The printed characters of `s` (pdftotext places the spaces its own
/// way), without the pages' footers.
fn ink(s: &str) -> String {
    s.lines().filter(|l| !is_footer(l)).flat_map(|l| l.chars().filter(|c| !c.is_whitespace())).collect()
}

#[test]
fn the_pdf_holds_the_text_report_and_c_parsers_job_facts() {
    for name in [
        "dlio_logs__snyder_python3_id3116902-2110365_12-19-66957-188958432683465822_1",
        "e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only",
        "nonmpi_dxt_anonymized__nonmpi_dxt_anonymized",
        "partial_data_stdio__partial_data_stdio",
        "release_logs__mpi-io-test-ppc64-3.1.8",
        "empty_log__empty_log",
    ] {
        let log = corpus::log(name);
        let read = ink(&pdf_text(&pdf_of("text", &log, &[]), "-layout"));
        let text = String::from_utf8(summary(&["--text", "--output", "-"], &log)).unwrap();
        // The text report's pages, then the charts'.
        assert!(read.starts_with(&ink(&as_set(&text))), "{name}: the PDF's text is not the text report's");
        let c = c_parser_all(name);
        let exe = header_fact(&c, "exe").unwrap();
        assert!(read.contains(&ink(&as_set(&exe))), "{name}: C's command line {exe:?} not in the PDF");
        let jobid = header_fact(&c, "jobid").unwrap();
        assert!(read.contains(&format!("jobid{jobid}uid")), "{name}: C's job id {jobid} not in the PDF");
    }
}

/// Every page of a long report is there, each with its footer: the
/// report of a job with many files at `--top 200` runs to several pages.
#[test]
fn a_long_report_runs_to_numbered_pages() {
    let log = corpus::log("imbalanced_io__imbalanced-io");
    let text = pdf_text(&pdf_of("pages", &log, &["--top", "200"]), "-layout");
    let footers: Vec<&str> = text.lines().filter(|l| is_footer(l)).collect();
    assert!(footers.len() >= 3, "{} pages", footers.len());
    let m = footers.len();
    for (k, f) in footers.iter().enumerate() {
        assert!(f.trim_end().ends_with(&format!("page {} of {m}", k + 1)), "{f}");
    }
    let text_report = String::from_utf8(summary(&["--text", "--top", "200", "--output", "-"], &log)).unwrap();
    assert!(ink(&text).starts_with(&ink(&as_set(&text_report))));
}

/// PyDarshan's operation bars: each chart's bars and the C counters each
/// sums. Written out here, not taken from the report's own table, so that
/// a bar summing the wrong counters there fails against C's totals.
type Bars = &'static [(&'static str, &'static [&'static str])];
const OPERATIONS: [(&str, Bars); 3] = [
    (
        "POSIX",
        &[
            ("Read", &["POSIX_READS"]),
            ("Write", &["POSIX_WRITES"]),
            ("Open", &["POSIX_OPENS"]),
            ("Stat", &["POSIX_STATS"]),
            ("Seek", &["POSIX_SEEKS"]),
            ("Mmap", &["POSIX_MMAPS"]),
            ("Fsync", &["POSIX_FSYNCS", "POSIX_FDSYNCS"]),
        ],
    ),
    (
        "MPI-IO",
        &[
            ("Ind. Read", &["MPIIO_INDEP_READS"]),
            ("Ind. Write", &["MPIIO_INDEP_WRITES"]),
            ("Ind. Open", &["MPIIO_INDEP_OPENS"]),
            ("Col. Read", &["MPIIO_COLL_READS"]),
            ("Col. Write", &["MPIIO_COLL_WRITES"]),
            ("Col. Open", &["MPIIO_COLL_OPENS"]),
            ("Sync", &["MPIIO_SYNCS"]),
        ],
    ),
    (
        "STDIO",
        &[
            ("Read", &["STDIO_READS"]),
            ("Write", &["STDIO_WRITES"]),
            ("Open", &["STDIO_OPENS"]),
            ("Seek", &["STDIO_SEEKS"]),
            ("Flush", &["STDIO_FLUSHES"]),
        ],
    ),
];

/// What C's totals say a chart's bar is: an operation bar the sum of its
/// counters, an access-size bar (bucket `bar`) the read and the write
/// count, an access-pattern bar the operations, the sequential and the
/// consecutive ones. None for charts C's totals cannot check.
fn c_bar(totals: &HashMap<String, i64>, chart: &str, bar: &str) -> Option<Vec<i64>> {
    let total = |k: &str| totals.get(k).copied().unwrap_or(0);
    if let Some(module) = chart.strip_suffix(" operation counts") {
        let (_, bars) = OPERATIONS.iter().find(|(m, _)| *m == module)?;
        let (_, counters) = bars.iter().find(|(b, _)| *b == bar)?;
        return Some(vec![counters.iter().map(|k| total(k)).sum()]);
    }
    if chart == "POSIX access pattern" {
        let op = match bar {
            "Read" => "READS",
            "Write" => "WRITES",
            _ => return None,
        };
        return Some(["", "SEQ_", "CONSEC_"].iter().map(|kind| total(&format!("POSIX_{kind}{op}"))).collect());
    }
    let prefix = match chart {
        "POSIX access sizes (bytes)" => "POSIX_SIZE_",
        "MPI-IO access sizes (bytes)" => "MPIIO_SIZE_",
        _ => return None,
    };
    let agg = if prefix == "MPIIO_SIZE_" { "AGG_" } else { "" };
    Some(vec![total(&format!("{prefix}READ_{agg}{bar}")), total(&format!("{prefix}WRITE_{agg}{bar}"))])
}

const TITLES: [&str; 4] =
    ["operation counts", "access sizes (bytes)", "access pattern", "Average I/O cost per process"];

/// A bar's value as the chart writes it, and the line's words before it:
/// a count ("1,234") or a time ("12.50 ms", "3.0 µs", "0 s").
fn split_value(line: &str) -> Option<(&str, &str)> {
    let line = line.trim();
    let (head, last) = line.rsplit_once(' ').unwrap_or(("", line));
    if ["s", "ms", "µs"].contains(&last) {
        let (label, number) = head.rsplit_once(' ').unwrap_or(("", head));
        number.parse::<f64>().ok()?;
        return Some((label.trim(), &line[line.len() - number.len() - 1 - last.len()..]));
    }
    last.replace(',', "").parse::<i64>().ok()?;
    Some((head.trim(), last))
}

/// The bars `pdftotext -raw` reads on the chart pages: (chart, bar,
/// values), a value per series as written.
fn chart_bars(raw: &str) -> Vec<(String, String, Vec<String>)> {
    let (mut chart, mut out) = (None::<String>, Vec::<(String, String, Vec<String>)>::new());
    // A page starts with a form feed.
    for line in raw.lines().map(|l| l.trim_start_matches('\u{c}')) {
        if is_footer(line) {
            chart = None;
            continue;
        }
        if let Some(t) = TITLES.iter().find_map(|k| line.find(k).map(|i| line[..i + k.len()].to_string())) {
            chart = Some(t);
            continue;
        }
        let Some(c) = &chart else { continue };
        match (split_value(line), out.last_mut()) {
            (Some((label, v)), _) if !label.is_empty() => out.push((c.clone(), label.to_string(), vec![v.to_string()])),
            (Some((_, v)), Some(last)) if &last.0 == c => last.2.push(v.to_string()),
            _ => {}
        }
    }
    out
}

/// A count as the charts write it.
fn as_count(v: &str) -> i64 {
    v.replace(',', "").parse().unwrap_or_else(|_| panic!("{v:?} is not a count"))
}

/// A time as the charts write it, in seconds, and half its last digit.
fn as_seconds(v: &str) -> (f64, f64) {
    let (number, unit) = v.split_once(' ').unwrap_or_else(|| panic!("{v:?} is not a time"));
    let scale = match unit {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" => 1e-6,
        _ => panic!("{v:?}: unit {unit:?}"),
    };
    let decimals = number.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    (number.parse::<f64>().unwrap() * scale, 0.5 * 10f64.powi(-decimals) * scale)
}

/// C's average time per process in an interface (`read`, `write`,
/// `meta`): its `total_<P>_F_<KIND>_TIME` (six decimals) over the job's
/// processes, and how far that printing may be off.
fn c_cost(c_parser: &str, interface: &str, series: usize, log: &Path) -> Option<(f64, f64)> {
    let prefix = match interface {
        "POSIX" | "MPIIO" | "STDIO" => interface,
        _ => return None,
    };
    let kind = ["READ", "WRITE", "META"].get(series)?;
    if interface == "POSIX" && *kind == "META" && c_misreads_posix_meta_time(c_parser, log) {
        return None;
    }
    let total = c_total(c_parser, &format!("{prefix}_F_{kind}_TIME"))?;
    let nprocs: f64 = header_fact(c_parser, "nprocs")?.parse().ok()?;
    Some((total / nprocs, 0.5e-6 / nprocs))
}

/// `total_<COUNTER>: N` of C's darshan-parser output.
fn c_totals(c_parser: &str) -> HashMap<String, i64> {
    c_parser
        .lines()
        .filter_map(|l| l.strip_prefix("total_")?.split_once(": "))
        .filter_map(|(k, v)| Some((k.to_string(), v.trim().parse().ok()?)))
        .collect()
}

/// C's darshan-util leaves POSIX fcounters 10-12 (F_META_TIME among
/// them) of a big-endian log's old POSIX records (version 3 and below)
/// unswapped, so it prints 0 for a time we decode (docs/deployment.md):
/// there its total is no oracle.
fn c_misreads_posix_meta_time(c_parser: &str, log: &Path) -> bool {
    let swapped = darshan_log::LogFile::open(log).is_ok_and(|l| l.header.swapped);
    let posix_version = header_fact(c_parser, "POSIX module")
        .and_then(|v| v.rsplit_once("ver=").and_then(|(_, n)| n.trim().parse::<u32>().ok()));
    swapped && posix_version.is_some_and(|v| v < 4)
}

/// On every corpus log with C's parser output: each bar is C's total,
/// each average cost C's total time over its processes, and each module
/// whose operations C counts has its chart.
#[test]
fn every_bar_of_the_pdfs_charts_is_c_parsers_total() {
    let (mut checked, mut bars, mut costs) = (0, 0, 0);
    for name in corpus::with_c_parser_output() {
        let raw = pdf_text(&pdf_of("charts", &corpus::log(&name), &[]), "-raw");
        let c_parser = c_parser_all(&name);
        let totals = c_totals(&c_parser);
        let drawn = chart_bars(&raw);
        for (chart, bar, values) in &drawn {
            if chart == "Average I/O cost per process" {
                for (series, v) in values.iter().enumerate() {
                    let Some((c, c_slack)) = c_cost(&c_parser, bar, series, &corpus::log(&name)) else { continue };
                    let (shown, slack) = as_seconds(v);
                    assert!(
                        (shown - c).abs() <= slack + c_slack + 1e-12,
                        "{name}: {bar} cost {series}: {v} against C's {c} s"
                    );
                    costs += 1;
                }
                continue;
            }
            let Some(c) = c_bar(&totals, chart, bar) else { continue };
            assert_eq!(values.iter().map(|v| as_count(v)).collect::<Vec<_>>(), c, "{name}: {chart}, {bar}");
            bars += 1;
        }
        for (module, ops) in OPERATIONS {
            let counted = ops.iter().flat_map(|(_, cs)| cs.iter()).any(|k| totals.get(*k).is_some_and(|v| *v > 0));
            let title = format!("{module} operation counts");
            assert!(!counted || drawn.iter().any(|(c, _, _)| *c == title), "{name}: no {title} chart");
        }
        let patterned = ["POSIX_READS", "POSIX_WRITES"].iter().any(|k| totals.get(*k).is_some_and(|v| *v > 0));
        assert!(!patterned || drawn.iter().any(|(c, _, _)| c == "POSIX access pattern"), "{name}: no access pattern");
        checked += 1;
    }
    eprintln!("{checked} logs, {bars} bars, {costs} average costs");
    assert!(checked >= 30 && bars > 500 && costs > 60, "{checked} logs, {bars} bars, {costs} costs");
}

/// The page contents of `pdf`, inflated, in order (we write each page's
/// content as one zlib stream).
fn page_contents(pdf: &Path) -> Vec<String> {
    use std::io::Read;
    let bytes = std::fs::read(pdf).unwrap();
    let mut out = Vec::new();
    let mut rest = &bytes[..];
    while let Some(at) = rest.windows(7).position(|w| w == b"stream\n") {
        rest = &rest[at + 7..];
        // The decoder stops at the zlib stream's end, before the end of line.
        let end = rest.windows(9).position(|w| w == b"endstream").unwrap();
        let mut text = String::new();
        if flate2::read::ZlibDecoder::new(&rest[..end]).read_to_string(&mut text).is_ok() {
            out.push(text);
        }
        rest = &rest[end + 9..];
    }
    out
}

/// Each chart's bars in the PDF: the filled rectangles (`re`) after its
/// bold title, up to the next bold title.
fn rects_after(contents: &[String], title: &str) -> Option<usize> {
    let all = contents.join("\n");
    let charts: Vec<&str> = all.split("/F2 ").collect();
    let chart = charts.iter().find(|c| c.contains(&format!("({title})")))?;
    Some(chart.lines().filter(|l| l.ends_with(" re")).count())
}

/// The timespan charts draw every span the report's JSON holds (which
/// tests/timespans.rs checks against C's parser), for the logs with
/// independent and shared spans, and none where the JSON has none.
#[test]
fn the_pdfs_timespan_charts_draw_every_span_of_the_report() {
    let charts = [
        ("independent", "Timespan from first to last access on independent files (POSIX and STDIO)"),
        ("shared", "Timespan from first to last access on files shared by all processes"),
    ];
    let mut drawn = 0;
    for name in
        ["imbalanced_io__imbalanced-io", "e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only", "empty_log__empty_log"]
    {
        let log = corpus::log(name);
        let json: serde_json::Value = serde_json::from_slice(&summary(&["--json", "--output", "-"], &log)).unwrap();
        let contents = page_contents(&pdf_of("spans", &log, &[]));
        for (field, title) in charts {
            let want = json["timespans"][field].as_array().map_or(0, |a| a.len());
            let got = rects_after(&contents, title);
            assert_eq!(got.unwrap_or(0), want, "{name}: {field} spans drawn");
            assert_eq!(got.is_some(), want > 0, "{name}: the {field} chart drawn or not");
            drawn += want;
        }
    }
    assert!(drawn > 200, "{drawn} spans");
}
