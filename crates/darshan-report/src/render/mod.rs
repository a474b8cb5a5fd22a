//! The renderings of a report: HTML (self-contained page), text
//! (terminal), the text as a PDF (what darshan-job-summary.pl wrote) and
//! JSON (every figure and finding, schema in docs/report.md).

pub mod charts;
pub mod html;
pub mod pdf;
pub mod text;

pub fn json(r: &crate::Report) -> String {
    // The model holds only strings, numbers and options: serializing it
    // cannot fail, but a failure still becomes a message, not a panic.
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use crate::model::{ProcessRow, Processes};

    fn report_of(rows: usize, rows_left_out: usize) -> crate::Report {
        let rows = (0..rows as i64).map(|rank| ProcessRow { rank, ..ProcessRow::default() }).collect();
        crate::Report {
            processes: Some(Processes { rows, rows_left_out, ..Processes::default() }),
            ..Default::default()
        }
    }

    /// Once darshan-summary kept only the first 4,096 processes, the page
    /// still said "--json lists every one" under its table of 256: the
    /// count of those not shown and where to find them must add up.
    #[test]
    fn the_report_said_json_lists_every_process_after_it_left_some_out() {
        let html = super::html::render(&report_of(300, 5_000)).expect("page");
        assert!(html.contains("5044 more processes: --json lists the first 300, darshan-parser every one."), "page");
        let text = super::text::render(&report_of(300, 5_000));
        assert!(
            text.contains("... 5268 more processes (--json lists the first 300, darshan-parser every one)"),
            "text"
        );
        let html = super::html::render(&report_of(300, 0)).expect("page");
        assert!(html.contains("44 more processes: --json lists every one."), "page, none left out");
        let html = super::html::render(&report_of(10, 0)).expect("page");
        assert!(!html.contains("more processes"), "page, every row shown");
    }
}
