//! The three renderings of a report: HTML (self-contained page), text
//! (terminal) and JSON (every figure and finding, schema in docs/report.md).

pub mod charts;
pub mod html;
pub mod text;

pub fn json(r: &crate::Report) -> String {
    // The model holds only strings, numbers and options: serializing it
    // cannot fail, but a failure still becomes a message, not a panic.
    serde_json::to_string_pretty(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
