//! `darshan-summary --pdf` read back by a reader of its own, poppler's
//! `pdftotext` (scripts/setup.sh installs it): every character of the
//! text report is on the pages, in order, and the job's facts are those
//! C Darshan 3.5.0's darshan-parser printed for the same log.

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
        assert_eq!(read, ink(&as_set(&text)), "{name}: the PDF's text is not the text report's");
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
    assert_eq!(ink(&pdf_text(&pdf)), ink(&as_set(&text_report)));
}
