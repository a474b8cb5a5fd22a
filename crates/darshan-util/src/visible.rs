//! Strings from logs (file names, command lines, mount points) made safe
//! for a terminal: every byte a terminal would act on instead of showing
//! is written as a visible escape, so a file named `\e[2J` cannot clear
//! the screen of whoever reads our tools' output, and `\n` in a name cannot
//! forge a line. Used by our own tools only; the drop-in tools
//! (darshan-parser & co) keep C's bytes exactly.
//!
//! * C0 controls and DEL: `\n`, `\t`, `\r`, `\e`, `\a`, else `\xNN`;
//! * C1 controls (U+0080–U+009F; U+009B is a one-byte CSI): `\u{NN}`;
//! * bidirectional overrides and isolates (U+202A–U+202E,
//!   U+2066–U+2069), which reorder what follows them on the line:
//!   `\u{NNNN}`;
//! * bytes that are not UTF-8 (`visible_bytes`): `\xNN`.

use std::borrow::Cow;
use std::fmt;

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = match c {
        '\n' => out.write_str("\\n"),
        '\t' => out.write_str("\\t"),
        '\r' => out.write_str("\\r"),
        '\x1b' => out.write_str("\\e"),
        '\x07' => out.write_str("\\a"),
        c if (c as u32) < 0x80 => write!(out, "\\x{:02x}", c as u32),
        c => write!(out, "\\u{{{:04x}}}", c as u32),
    };
}

/// `s` with every control and reordering character escaped; borrowed
/// when there is none (the common case).
pub fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Like [`visible`], for bytes that may not be UTF-8: each byte of an
/// invalid sequence is written as `\xNN` (where lossy decoding would show
/// U+FFFD and hide what the name really is).
pub fn visible_bytes(b: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => visible(s),
        Err(_) => {
            let mut out = String::with_capacity(b.len() + 8);
            for chunk in b.utf8_chunks() {
                out.push_str(&visible(chunk.valid()));
                for x in chunk.invalid() {
                    use std::fmt::Write;
                    let _ = write!(out, "\\x{x:02x}");
                }
            }
            Cow::Owned(out)
        }
    }
}

/// A string shown through [`visible`] by `{}` formatting.
pub struct Visible<'a>(pub &'a str);

impl fmt::Display for Visible<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Padding (`{:<20}`) applies to what is shown.
        f.pad(&visible(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_controls_in_names_are_shown_not_obeyed() {
        assert_eq!(visible("clear\x1b[2Jscreen"), "clear\\e[2Jscreen");
        assert_eq!(visible("title\x1b]0;owned\x07bell"), "title\\e]0;owned\\abell");
        assert_eq!(visible("line\nbreak\tand\r"), "line\\nbreak\\tand\\r");
        assert_eq!(visible("nul\0del\x7f"), "nul\\x00del\\x7f");
        assert_eq!(visible("c1\u{9b}31m"), "c1\\u{009b}31m");
        assert_eq!(visible("abc\u{202e}gpj.exe"), "abc\\u{202e}gpj.exe");
    }

    #[test]
    fn plain_names_are_borrowed_unchanged() {
        for s in ["/scratch/a b/ü.dat", "<STDOUT>", "", "x\\y"] {
            assert!(matches!(visible(s), Cow::Borrowed(t) if t == s), "{s}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_are_shown_as_hex() {
        assert_eq!(visible_bytes(b"a\xffb\x1b"), "a\\xffb\\e");
        assert_eq!(visible_bytes(b"ok"), "ok");
    }

    #[test]
    fn padding_applies_to_the_shown_form() {
        assert_eq!(format!("[{:<8}]", Visible("a\x1b")), "[a\\e     ]");
    }
}
