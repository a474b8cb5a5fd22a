//! What every one of our command-line tools does the same way at its
//! edges: a closed pipe ends the tool quietly (exit status 141, what a
//! shell shows for C's tools, which die of SIGPIPE), and a bug shows as
//! one line naming the tool, never a backtrace.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe is an error that
//! `println!`/`eprintln!` turn into a panic; the tools write through
//! [`stdout`] and [`stderr`] instead.

use std::io::Write;

/// The exit status of a tool whose reader went away (`| head`).
pub const CLOSED_PIPE: i32 = 141;

/// Exit quietly if `e` is a closed pipe; otherwise give it back.
fn closed_pipe_ends(e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(CLOSED_PIPE);
    }
    e
}

/// Standard output could not be written (a full disk under a
/// redirection, an I/O error): the error, with its kind.
#[derive(Debug, thiserror::Error)]
#[error("writing standard output: {0}")]
pub struct StdoutError(#[source] pub std::io::Error);

/// Write `bytes` to standard output and flush. A closed pipe ends the
/// tool quietly; another error is returned.
pub fn stdout(bytes: &[u8]) -> Result<(), StdoutError> {
    let mut so = std::io::stdout().lock();
    so.write_all(bytes).and_then(|_| so.flush()).map_err(|e| StdoutError(closed_pipe_ends(e)))
}

/// Write `text` to standard error. A closed pipe ends the tool quietly;
/// any other failure to report is ignored (there is nowhere left to say it).
pub fn stderr(text: &str) {
    let mut se = std::io::stderr().lock();
    if let Err(e) = se.write_all(text.as_bytes()).and_then(|_| se.flush()) {
        closed_pipe_ends(e);
    }
}

/// An error and its causes as one line, `what: why: why`. A cause whose
/// text the message before it already ends with is not repeated (a typed
/// error usually says its source in its own message, and also gives it as
/// `source()` for callers that look at its kind).
pub fn error_line(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !text.is_empty() && !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = c.source();
    }
    line
}

/// One line on standard error (a newline is added).
pub fn say(line: &str) {
    stderr(&format!("{line}\n"));
}

/// Replace Rust's panic message and backtrace with one line naming the
/// tool: a panic is a bug of ours, and the user needs to know that and
/// which input caused it, not our stack. The exit status stays 101.
pub fn one_line_panics(tool: &'static str) {
    std::panic::set_hook(Box::new(move |info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let what = crate::visible::visible(&what).into_owned();
        let mut se = std::io::stderr().lock();
        let _ = writeln!(se, "{tool}: internal error: {what}{at}; please report it with the input that caused it");
    }));
}

/// `eprintln!` that survives a closed standard error (see [`stderr`]).
#[macro_export]
macro_rules! say {
    ($($t:tt)*) => {
        $crate::cli::stderr(&format!("{}\n", format_args!($($t)*)))
    };
}

/// `eprint!` that survives a closed standard error.
#[macro_export]
macro_rules! say_raw {
    ($($t:tt)*) => {
        $crate::cli::stderr(&format!($($t)*))
    };
}

/// `println!` for a tool's short answers (`--version`): a closed pipe ends
/// the tool quietly, another write error is ignored as `println!` cannot.
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {
        { let _ = $crate::cli::stdout(format!("{}\n", format_args!($($t)*)).as_bytes()); }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("{path}: {source}")]
    struct SaysItsSource {
        path: &'static str,
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("opening the log")]
    struct Context(#[source] SaysItsSource);

    /// A typed error that names its source in its message was printed
    /// with the source twice (`f: denied: denied`) by a chain printer.
    #[test]
    fn an_error_line_says_each_cause_once() {
        let inner = SaysItsSource { path: "f", source: std::io::Error::other("denied") };
        assert_eq!(error_line(&inner), "f: denied");
        assert_eq!(error_line(&Context(inner)), "opening the log: f: denied");
    }
}
