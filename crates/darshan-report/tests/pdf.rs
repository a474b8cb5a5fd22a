//! `darshan-summary --pdf` read back by a reader of its own, poppler's
//! `pdftotext` (scripts/setup.sh installs it): every character of the
//! text report is on the pages, in order, the job's facts are those C
//! Darshan 3.5.0's darshan-parser printed for the same log, and every bar
//! of the charts after them carries the count C's parser totals.

use std::path::{Path, PathBuf};
use std::process::Command;

use darshan_test_support::output;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

fn summary(args: &[&str], log: &Path) -> Vec<u8> {
    let o = output(Command::new(env!("CARGO_BIN_EXE_darshan-summary")).args(args).arg(log));
    assert!(o.status.success(), "darshan-summary {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    o.stdout
}

/// The text `pdftotext` reads from `pdf`, without the pages' footers.
fn pdf_text(pdf: &Path) -> String {
    let o = output(Command::new("pdftotext").args(["-enc", "UTF-8", "-layout"]).arg(pdf).arg("-"));
    assert!(o.status.success(), "pdftotext: {}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    text.lines().filter(|l| !is_footer(l)).collect::<Vec<_>>().join("\n")
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

fn ink(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `# key: value` of C's darshan-parser output for `name`.
fn c_parser_fact(name: &str, key: &str) -> String {
    let gz = corpus().join("expected").join(format!("{name}.all.txt.gz"));
    let o = output(Command::new("gzip").arg("-dc").arg(gz));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let prefix = format!("# {key}: ");
    text.lines().find_map(|l| l.strip_prefix(&prefix)).unwrap_or_else(|| panic!("{name}: no {key}")).to_string()
}

#[test]
fn the_pdf_holds_the_text_report_and_c_parsers_job_facts() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pdf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for name in [
        "dlio_logs__snyder_python3_id3116902-2110365_12-19-66957-188958432683465822_1",
        "e3sm_io_heatmaps_and_dxt__e3sm_io_heatmap_only",
        "nonmpi_dxt_anonymized__nonmpi_dxt_anonymized",
        "partial_data_stdio__partial_data_stdio",
        "release_logs__mpi-io-test-ppc64-3.1.8",
        "empty_log__empty_log",
    ] {
        let log = corpus().join("logs").join(format!("{name}.darshan"));
        let pdf = dir.join(format!("{name}.pdf"));
        summary(&["--pdf", "--output", pdf.to_str().unwrap()], &log);
        let read = ink(&pdf_text(&pdf));
        let text = String::from_utf8(summary(&["--text", "--output", "-"], &log)).unwrap();
        // The text report's pages, then the charts'.
        assert!(read.starts_with(&ink(&as_set(&text))), "{name}: the PDF's text is not the text report's");
        let exe = c_parser_fact(name, "exe");
        assert!(read.contains(&ink(&as_set(&exe))), "{name}: C's command line {exe:?} not in the PDF");
        let jobid = c_parser_fact(name, "jobid");
        assert!(read.contains(&format!("jobid{jobid}uid")), "{name}: C's job id {jobid} not in the PDF");
    }
}

/// Every page of a long report is there, each with its footer: the
/// report of a job with many files at `--top 200` runs to several pages.
#[test]
fn a_long_report_runs_to_numbered_pages() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pdf-pages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let log = corpus().join("logs/imbalanced_io__imbalanced-io.darshan");
    let pdf = dir.join("long.pdf");
    summary(&["--pdf", "--top", "200", "--output", pdf.to_str().unwrap()], &log);
    let o = output(Command::new("pdftotext").args(["-enc", "UTF-8", "-layout"]).arg(&pdf).arg("-"));
    let text = String::from_utf8(o.stdout).unwrap();
    let footers: Vec<&str> = text.lines().filter(|l| is_footer(l)).collect();
    assert!(footers.len() >= 3, "{} pages", footers.len());
    let m = footers.len();
    for (k, f) in footers.iter().enumerate() {
        assert!(f.trim_end().ends_with(&format!("page {} of {m}", k + 1)), "{f}");
    }
    let text_report = String::from_utf8(summary(&["--text", "--top", "200", "--output", "-"], &log)).unwrap();
    assert!(ink(&pdf_text(&pdf)).starts_with(&ink(&as_set(&text_report))));
}

/// C's darshan-parser counters each chart's bars sum, by chart and bar
/// (`{}`: the access-size bucket; the read counter, then the write one).
fn c_counters(chart: &str, bar: &str) -> Option<Vec<String>> {
    let ops: &[(&str, &str, &[&str])] = &[
        ("POSIX operation counts", "Read", &["POSIX_READS"]),
        ("POSIX operation counts", "Write", &["POSIX_WRITES"]),
        ("POSIX operation counts", "Open", &["POSIX_OPENS"]),
        ("POSIX operation counts", "Stat", &["POSIX_STATS"]),
        ("POSIX operation counts", "Seek", &["POSIX_SEEKS"]),
        ("POSIX operation counts", "Mmap", &["POSIX_MMAPS"]),
        ("POSIX operation counts", "Fsync", &["POSIX_FSYNCS", "POSIX_FDSYNCS"]),
        ("MPI-IO operation counts", "Ind. Read", &["MPIIO_INDEP_READS"]),
        ("MPI-IO operation counts", "Ind. Write", &["MPIIO_INDEP_WRITES"]),
        ("MPI-IO operation counts", "Ind. Open", &["MPIIO_INDEP_OPENS"]),
        ("MPI-IO operation counts", "Col. Read", &["MPIIO_COLL_READS"]),
        ("MPI-IO operation counts", "Col. Write", &["MPIIO_COLL_WRITES"]),
        ("MPI-IO operation counts", "Col. Open", &["MPIIO_COLL_OPENS"]),
        ("MPI-IO operation counts", "Sync", &["MPIIO_SYNCS"]),
        ("STDIO operation counts", "Read", &["STDIO_READS"]),
        ("STDIO operation counts", "Write", &["STDIO_WRITES"]),
        ("STDIO operation counts", "Open", &["STDIO_OPENS"]),
        ("STDIO operation counts", "Seek", &["STDIO_SEEKS"]),
        ("STDIO operation counts", "Flush", &["STDIO_FLUSHES"]),
    ];
    if let Some((_, _, c)) = ops.iter().find(|(t, b, _)| *t == chart && *b == bar) {
        return Some(c.iter().map(|s| s.to_string()).collect());
    }
    match chart {
        "POSIX access sizes (bytes)" => Some(vec![format!("POSIX_SIZE_READ_{bar}"), format!("POSIX_SIZE_WRITE_{bar}")]),
        "MPI-IO access sizes (bytes)" => {
            Some(vec![format!("MPIIO_SIZE_READ_AGG_{bar}"), format!("MPIIO_SIZE_WRITE_AGG_{bar}")])
        }
        _ => None,
    }
}

/// The bars `pdftotext -raw` reads on the chart pages: (chart, bar,
/// counts), a count per series.
fn chart_bars(raw: &str) -> Vec<(String, String, Vec<i64>)> {
    let number = |s: &str| s.replace(',', "").parse::<i64>().ok();
    let (mut chart, mut out) = (None::<String>, Vec::<(String, String, Vec<i64>)>::new());
    for line in raw.lines() {
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

#[test]
fn every_bar_of_the_pdfs_charts_is_c_parsers_total() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pdf-charts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(corpus().join("expected"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_string_lossy().strip_suffix(".all.txt.gz").map(String::from))
        .collect();
    names.sort();
    let (mut checked, mut bars) = (0, 0);
    for name in &names {
        let log = corpus().join("logs").join(format!("{name}.darshan"));
        let pdf = dir.join(format!("{name}.pdf"));
        summary(&["--pdf", "--output", pdf.to_str().unwrap()], &log);
        let o = output(Command::new("pdftotext").args(["-enc", "UTF-8", "-raw"]).arg(&pdf).arg("-"));
        let raw = String::from_utf8(o.stdout).unwrap();
        let totals = c_parser_totals(name);
        for (chart, bar, counts) in chart_bars(&raw) {
            let Some(counters) = c_counters(&chart, &bar) else { continue };
            let c: Vec<i64> = counters.iter().map(|k| totals.get(k).copied().unwrap_or(0)).collect();
            let c = if chart.contains("operation") { vec![c.iter().sum()] } else { c };
            assert_eq!(counts, c, "{name}: {chart}, {bar}: C's {counters:?}");
            bars += 1;
        }
        checked += 1;
    }
    eprintln!("{checked} logs, {bars} bars");
    assert!(checked >= 30 && bars > 500, "{checked} logs, {bars} bars");
}

/// `total_<COUNTER>: N` of C's darshan-parser output for `name`.
fn c_parser_totals(name: &str) -> std::collections::HashMap<String, i64> {
    let gz = corpus().join("expected").join(format!("{name}.all.txt.gz"));
    let o = output(Command::new("gzip").arg("-dc").arg(gz));
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("total_")?.split_once(": "))
        .filter_map(|(k, v)| Some((k.to_string(), v.trim().parse().ok()?)))
        .collect()
}
