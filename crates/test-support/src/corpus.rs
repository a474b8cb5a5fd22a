//! The shared corpus (`../shared/corpus`): real logs, and C Darshan
//! 3.5.0's `darshan-parser --all` output for 33 of them, the oracle many
//! tests read; and what poppler's `pdftotext` reads from a PDF we wrote.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `../shared/corpus`, beside the project.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// Corpus log `name` (its file name without `.darshan`).
pub fn log(name: &str) -> PathBuf {
    dir().join("logs").join(format!("{name}.darshan"))
}

/// The names of the logs C's parser output is kept for, in order.
pub fn with_c_parser_output() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir().join("expected"))
        .expect("the corpus's expected/")
        .filter_map(|e| e.ok()?.file_name().to_string_lossy().strip_suffix(".all.txt.gz").map(String::from))
        .collect();
    names.sort();
    names
}

/// C Darshan 3.5.0's `darshan-parser --all` output for corpus log `name`.
pub fn c_parser_all(name: &str) -> String {
    let gz = dir().join("expected").join(format!("{name}.all.txt.gz"));
    let file = std::fs::File::open(&gz).unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(file).read_to_string(&mut text).unwrap_or_else(|e| panic!("{}: {e}", gz.display()));
    text
}

/// C's `darshan-parser --all` output for the corpus log at `log`, where
/// the corpus keeps it.
pub fn c_parser_all_of(log: &Path) -> Option<String> {
    let stem = log.file_stem()?.to_str()?;
    dir().join("expected").join(format!("{stem}.all.txt.gz")).is_file().then(|| c_parser_all(stem))
}

/// The value of `# key: value` in darshan-parser output `text`.
pub fn header_fact(text: &str, key: &str) -> Option<String> {
    let prefix = format!("# {key}: ");
    text.lines().find_map(|l| l.strip_prefix(&prefix)).map(String::from)
}

/// The value of `total_<counter>: value` in darshan-parser output
/// `text` (its `--total` lines, which `--all` prints too).
pub fn c_total(text: &str, counter: &str) -> Option<f64> {
    let prefix = format!("total_{counter}: ");
    text.lines().find_map(|l| l.strip_prefix(&prefix)).and_then(|v| v.trim().parse().ok())
}

/// What poppler's `pdftotext` reads from `pdf` in `mode` (`-layout`,
/// `-raw`), as UTF-8, within the time limit; a failure fails the test.
pub fn pdf_text(pdf: &Path, mode: &str) -> String {
    let o = crate::output(Command::new("pdftotext").args(["-enc", "UTF-8", mode]).arg(pdf).arg("-"));
    assert!(o.status.success(), "pdftotext {}: {}", pdf.display(), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}
