//! `darshan-summary --pdf` read back by a reader of its own, poppler's
//! `pdftotext` (scripts/setup.sh installs it): every character of the
//! text report is on the pages, in order, the job's facts are those C
//! Darshan 3.5.0's darshan-parser printed for the same log, and every bar
//! of the charts after them carries the count C's parser totals.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_test_support::corpus::{self, c_parser_all, header_fact, pdf_text};
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
/// sums.
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
/// count. None for charts C's totals cannot check.
fn c_bar(totals: &HashMap<String, i64>, chart: &str, bar: &str) -> Option<Vec<i64>> {
    let total = |k: &str| totals.get(k).copied().unwrap_or(0);
    if let Some(module) = chart.strip_suffix(" operation counts") {
        let (_, bars) = OPERATIONS.iter().find(|(m, _)| *m == module)?;
        let (_, counters) = bars.iter().find(|(b, _)| *b == bar)?;
        return Some(vec![counters.iter().map(|k| total(k)).sum()]);
    }
    let prefix = match chart {
        "POSIX access sizes (bytes)" => "POSIX_SIZE_",
        "MPI-IO access sizes (bytes)" => "MPIIO_SIZE_",
        _ => return None,
    };
    let agg = if prefix == "MPIIO_SIZE_" { "AGG_" } else { "" };
    Some(vec![total(&format!("{prefix}READ_{agg}{bar}")), total(&format!("{prefix}WRITE_{agg}{bar}"))])
}

/// The bars `pdftotext -raw` reads on the chart pages: (chart, bar,
/// counts), a count per series.
fn chart_bars(raw: &str) -> Vec<(String, String, Vec<i64>)> {
    let number = |s: &str| s.replace(',', "").parse::<i64>().ok();
    let (mut chart, mut out) = (None::<String>, Vec::<(String, String, Vec<i64>)>::new());
    // A page starts with a form feed.
    for line in raw.lines().map(|l| l.trim_start_matches('\u{c}')) {
        if is_footer(line) {
            chart = None;
            continue;
        }
        if let Some(t) = ["operation counts", "access sizes (bytes)"]
            .iter()
            .find_map(|k| line.find(k).map(|i| line[..i + k.len()].to_string()))
        {
            chart = Some(t);
            continue;
        }
        let Some(c) = &chart else { continue };
        match line.rsplit_once(' ') {
            Some((label, v)) if number(v).is_some() && !label.trim().is_empty() => {
                out.push((c.clone(), label.trim().to_string(), vec![number(v).unwrap_or(0)]))
            }
            _ => match (number(line.trim()), out.last_mut()) {
                (Some(v), Some(last)) if &last.0 == c => last.2.push(v),
                _ => {}
            },
        }
    }
    out
}

/// `total_<COUNTER>: N` of C's darshan-parser output.
fn c_totals(c_parser: &str) -> HashMap<String, i64> {
    c_parser
        .lines()
        .filter_map(|l| l.strip_prefix("total_")?.split_once(": "))
        .filter_map(|(k, v)| Some((k.to_string(), v.trim().parse().ok()?)))
        .collect()
}

/// On every corpus log with C's parser output: each bar is C's total,
/// and each module whose operations C counts has its chart.
#[test]
fn every_bar_of_the_pdfs_charts_is_c_parsers_total() {
    let (mut checked, mut bars) = (0, 0);
    for name in corpus::with_c_parser_output() {
        let raw = pdf_text(&pdf_of("charts", &corpus::log(&name), &[]), "-raw");
        let totals = c_totals(&c_parser_all(&name));
        let drawn = chart_bars(&raw);
        for (chart, bar, counts) in &drawn {
            let Some(c) = c_bar(&totals, chart, bar) else { continue };
            assert_eq!(counts, &c, "{name}: {chart}, {bar}");
            bars += 1;
        }
        for (module, ops) in OPERATIONS {
            let counted = ops.iter().flat_map(|(_, cs)| cs.iter()).any(|k| totals.get(*k).is_some_and(|v| *v > 0));
            let title = format!("{module} operation counts");
            assert!(!counted || drawn.iter().any(|(c, _, _)| *c == title), "{name}: no {title} chart");
        }
        checked += 1;
    }
    eprintln!("{checked} logs, {bars} bars");
    assert!(checked >= 30 && bars > 500, "{checked} logs, {bars} bars");
}
