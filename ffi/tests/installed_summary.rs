//! C Darshan's summary scripts by their names in the installed tree:
//! `darshan-job-summary.pl` (a PDF per log, where C's put it) and
//! `darshan-summary-per-file.sh` (a log and a PDF per file the job
//! opened), checked against C Darshan 3.5.0's darshan-parser output for
//! the corpus's logs, the PDFs read by poppler's `pdftotext`.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::installed::bin;
use common::{instrumented, only_log, output, scratch};

fn corpus() -> PathBuf {
    common::root().join("../shared/corpus")
}

const DLIO: &str = "dlio_logs__snyder_python3_id3116902-2110365_12-19-66957-188958432683465822_1";

/// C's darshan-parser output for corpus log `name`.
fn c_parser(name: &str) -> String {
    let o = output(Command::new("gzip").arg("-dc").arg(corpus().join(format!("expected/{name}.all.txt.gz"))));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The record ids of darshan-parser output `text` that have an OPENS
/// counter: the files the job opened.
fn opened(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() > 5 && f[3].ends_with("_OPENS")).then(|| f[2].to_string())
        })
        .collect()
}

fn pdf_text(pdf: &Path) -> String {
    let o = output(Command::new("pdftotext").args(["-enc", "UTF-8", "-layout"]).arg(pdf).arg("-"));
    assert!(o.status.success(), "pdftotext {}: {}", pdf.display(), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn darshan_job_summary_pl_writes_a_pdf_where_c_darshans_did() {
    let d = scratch("job-summary-pl");
    let log = corpus().join(format!("logs/{DLIO}.darshan"));
    let script = bin("darshan-job-summary.pl");
    // `perl darshan-job-summary.pl LOG`: ./<LOG's name>.pdf.
    let o = output(Command::new("perl").arg(&script).arg(&log).current_dir(&d));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = pdf_text(&d.join(format!("{DLIO}.darshan.pdf")));
    let jobid = c_parser(DLIO).lines().find_map(|l| l.strip_prefix("# jobid: ")).unwrap().to_string();
    assert!(text.contains(&format!("job id      {jobid}")), "C's job id {jobid} not in the PDF");
    // --output, run directly.
    let o = output(Command::new(&script).arg("--output").arg(d.join("given.pdf")).arg(&log));
    assert!(o.status.success() && d.join("given.pdf").is_file());
    // As C's: no log is a usage error; --help is not.
    let o = output(Command::new(&script).current_dir(&d));
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Error: invalid arguments."));
    let o = output(Command::new(&script).arg("--help"));
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("--output"));
    // A log that cannot be read: one line, a failure, no PDF.
    let o = output(Command::new(&script).arg(d.join("missing.darshan")).current_dir(&d));
    assert!(!o.status.success() && !d.join("missing.darshan.pdf").exists());
}

#[test]
fn darshan_summary_per_file_sh_makes_a_log_and_a_pdf_per_file_c_darshan_saw_opened() {
    let d = scratch("per-file");
    let log = corpus().join(format!("logs/{DLIO}.darshan"));
    let out = d.join("per");
    let o = output(Command::new(bin("darshan-summary-per-file.sh")).arg(&log).arg(&out));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = opened(&c_parser(DLIO));
    assert!(expected.len() > 20, "{expected:?}");
    let mut seen = BTreeSet::new();
    let logs: Vec<PathBuf> = files_ending(&out, ".darshan");
    assert_eq!(logs.len(), expected.len(), "one log per file C's parser shows opened");
    for l in &logs {
        let o = output(Command::new(bin("darshan-parser")).arg(l));
        let ids = opened(&String::from_utf8_lossy(&o.stdout));
        assert_eq!(ids.len(), 1, "{}: {ids:?}", l.display());
        seen.extend(ids);
        let pdf = l.with_extension("pdf");
        assert!(pdf_text(&pdf).contains("Darshan job summary"), "{}", pdf.display());
    }
    assert_eq!(seen, expected);
    // The directory is made new, as C's script made it.
    let o = output(Command::new(bin("darshan-summary-per-file.sh")).arg(&log).arg(&out));
    assert!(!o.status.success());
    assert_eq!(files_ending(&out, ".darshan").len(), expected.len());
}

/// A file named to run a command in a shell, opened under the runtime:
/// its outputs are named with what is safe, inside the directory, and
/// nothing in the name is run.
#[test]
fn a_file_named_like_a_command_is_summarized_not_run() {
    let d = scratch("per-file-hostile");
    let name = "a b;$(touch pwned)`touch pwned2`";
    let mut c = instrumented(Path::new("/bin/sh"), &d);
    c.arg("-c").arg("echo x > \"$1\"").arg("sh").arg(d.join(name)).current_dir(&d);
    assert!(output(&mut c).status.success());
    let log = only_log(&d);
    let out = d.join("per");
    let o = output(Command::new(bin("darshan-summary-per-file.sh")).arg(&log).arg(&out).current_dir(&d));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!d.join("pwned").exists() && !d.join("pwned2").exists() && !out.join("pwned").exists());
    let safe = "a_b___touch_pwned__touch_pwned2_";
    assert!(out.join(format!("{safe}.darshan")).is_file(), "{:?}", files_ending(&out, ""));
    assert!(pdf_text(&out.join(format!("{safe}.pdf"))).contains("pwned2"));
}

fn files_ending(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v
}
