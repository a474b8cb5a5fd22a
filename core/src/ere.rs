//! POSIX extended regular expressions as glibc's `regcomp(REG_EXTENDED)`
//! reads them, which is how C Darshan compiles the configuration's name
//! and application patterns (darshan-config.c), translated into the
//! syntax of the byte-wise DFA the runtime matches with (it neither
//! allocates nor locks, so a wrapper may run it; glibc's `regexec` does
//! both).
//!
//! Where the two syntaxes part: in POSIX a backslash inside a bracket is
//! a plain character (`[\.]` is a backslash or a dot); outside one,
//! glibc knows `\w \W \s \S \b \B \< \> \` \'`, and any other escaped
//! character is that character (`\d` is the letter d); `(?i)` and a
//! repetition with nothing before it are errors; `a+?` is `(a+)?`, not a
//! lazy `a+`; an unmatched `)` is a plain character. Back-references
//! (`\1`) and multi-character collating elements have no DFA: refused.
//! ffi/tests/name_patterns.rs checks all of it against glibc itself.

use std::fmt::Write;

/// `ere` in the DFA's syntax, or why glibc would refuse it (or why it
/// cannot be matched without glibc).
pub fn to_dfa_syntax(ere: &str) -> Result<String, String> {
    let mut t = Translation { src: ere.as_bytes(), at: 0, out: String::new(), atom: None, groups: Vec::new() };
    while let Some(c) = t.next() {
        t.token(c)?;
    }
    if !t.groups.is_empty() {
        return Err("unmatched ( or \\(".into());
    }
    Ok(t.out)
}

struct Translation<'a> {
    src: &'a [u8],
    at: usize,
    out: String,
    /// Where the last repeatable atom starts in `out` (None: nothing a
    /// repetition could apply to, as at the start or after `(`, `|` or
    /// an anchor).
    atom: Option<usize>,
    /// Where each open group starts in `out` (a repetition inserts only
    /// after the innermost one's start, so these stay right).
    groups: Vec<usize>,
}

impl Translation<'_> {
    fn next(&mut self) -> Option<u8> {
        let c = self.src.get(self.at).copied();
        self.at += 1;
        c
    }

    fn peek(&self) -> Option<u8> {
        self.src.get(self.at).copied()
    }

    fn token(&mut self, c: u8) -> Result<(), String> {
        match c {
            b'\\' => self.escape(),
            b'^' => self.anchor("^"),
            b'$' => self.anchor("$"),
            b'.' => self.atom_str("(?s-u:.)"),
            b'[' => {
                let class = self.bracket()?;
                self.atom_str(&class)
            }
            b'(' => {
                self.groups.push(self.out.len());
                self.out.push_str("(?:");
                self.atom = None;
                Ok(())
            }
            b')' if !self.groups.is_empty() => {
                self.out.push(')');
                self.atom = self.groups.pop();
                Ok(())
            }
            b'|' => {
                self.out.push('|');
                self.atom = None;
                Ok(())
            }
            b'*' | b'+' | b'?' => self.repeat(&(c as char).to_string()),
            b'{' => {
                let bounds = self.interval()?;
                self.repeat(&bounds)
            }
            other => self.atom_str(&literal(other)),
        }
    }

    fn atom_str(&mut self, s: &str) -> Result<(), String> {
        self.atom = Some(self.out.len());
        self.out.push_str(s);
        Ok(())
    }

    fn anchor(&mut self, s: &str) -> Result<(), String> {
        self.out.push_str(s);
        self.atom = None;
        Ok(())
    }

    /// A repetition applies to the atom before it, and a second one to
    /// the first's result (`a+?` is `(a+)?`): each is wrapped in a group.
    fn repeat(&mut self, op: &str) -> Result<(), String> {
        let Some(start) = self.atom else {
            return Err("Invalid preceding regular expression".into());
        };
        self.out.insert_str(start, "(?:");
        self.out.push(')');
        self.out.push_str(op);
        Ok(())
    }

    fn escape(&mut self) -> Result<(), String> {
        let Some(c) = self.next() else {
            return Err("Trailing backslash".into());
        };
        match c {
            b'1'..=b'9' => Err("back-references cannot be matched by the runtime".into()),
            b'w' => self.atom_str("[_0-9A-Za-z]"),
            b'W' => self.atom_str("[^_0-9A-Za-z]"),
            b's' => self.atom_str(r"[\t\n\x0B\x0C\r ]"),
            b'S' => self.atom_str(r"[^\t\n\x0B\x0C\r ]"),
            b'b' => self.anchor(r"\b"),
            b'B' => self.anchor(r"\B"),
            b'<' => self.anchor(r"\b{start}"),
            b'>' => self.anchor(r"\b{end}"),
            b'`' => self.anchor(r"\A"),
            b'\'' => self.anchor(r"\z"),
            other => self.atom_str(&literal(other)),
        }
    }

    /// `{m}`, `{m,}`, `{m,n}` or `{,n}` after the `{`, as `{m,n}`.
    fn interval(&mut self) -> Result<String, String> {
        if self.atom.is_none() {
            return Err("Invalid preceding regular expression".into());
        }
        let low = self.number();
        let high = if self.peek() == Some(b',') {
            self.at += 1;
            self.number()
        } else if low.is_some() {
            low
        } else {
            return Err("Invalid content of \\{\\}".into());
        };
        if self.next() != Some(b'}') {
            return Err("Invalid content of \\{\\}".into());
        }
        let low = low.unwrap_or(0);
        match high {
            Some(h) if h < low => Err("Invalid content of \\{\\}".into()),
            Some(h) if h > DUP_MAX => Err("Regular expression too big".into()),
            _ if low > DUP_MAX => Err("Regular expression too big".into()),
            Some(h) => Ok(format!("{{{low},{h}}}")),
            None => Ok(format!("{{{low},}}")),
        }
    }

    fn number(&mut self) -> Option<u32> {
        let mut n: Option<u32> = None;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            self.at += 1;
            n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(u32::from(d - b'0')));
        }
        n
    }

    /// A bracket expression after its `[`, as a byte class.
    fn bracket(&mut self) -> Result<String, String> {
        let negated = self.peek() == Some(b'^');
        if negated {
            self.at += 1;
        }
        let mut set = [false; 256];
        let mut first = true;
        loop {
            let Some(c) = self.next() else {
                return Err("Unmatched [, [^, [:, [., or [=".into());
            };
            if c == b']' && !first {
                break;
            }
            first = false;
            let low = self.bracket_element(c, &mut set)?;
            // A `-` after a class or a range starts no range (glibc:
            // an error), unless it is the bracket's last character.
            let dash_then_more = self.dash_then_more();
            let Some(low) = low else {
                if dash_then_more {
                    return Err("Invalid range end".into());
                }
                continue;
            };
            if dash_then_more {
                self.at += 1;
                let end = self.next().unwrap_or(b']');
                let Some(high) = self.bracket_element(end, &mut [false; 256])? else {
                    return Err("Invalid range end".into());
                };
                if high < low {
                    return Err("Invalid range end".into());
                }
                set[usize::from(low)..=usize::from(high)].iter_mut().for_each(|b| *b = true);
                if self.dash_then_more() {
                    return Err("Invalid range end".into());
                }
            } else {
                set[usize::from(low)] = true;
            }
        }
        Ok(byte_class(&set, negated))
    }

    /// A `-` next that is not the bracket's last character.
    fn dash_then_more(&self) -> bool {
        self.peek() == Some(b'-') && self.src.get(self.at + 1).is_some_and(|&n| n != b']')
    }

    /// One element starting with `c`: a character (returned, as a range
    /// may start or end with it) or a class put into `set` (None).
    fn bracket_element(&mut self, c: u8, set: &mut [bool; 256]) -> Result<Option<u8>, String> {
        if c != b'[' {
            return Ok(Some(c));
        }
        let kind = match self.peek() {
            Some(k @ (b':' | b'=' | b'.')) => k,
            _ => return Ok(Some(b'[')),
        };
        self.at += 1;
        let rest = &self.src[self.at..];
        let Some(len) = rest.windows(2).position(|w| w[0] == kind && w[1] == b']') else {
            return Err("Unmatched [, [^, [:, [., or [=".into());
        };
        let name = &rest[..len];
        self.at += len + 2;
        match (kind, name) {
            (b':', _) => {
                let class = posix_class(name).ok_or("Invalid character class name")?;
                (0..=255u8).filter(|&b| class(b)).for_each(|b| set[usize::from(b)] = true);
                Ok(None)
            }
            (_, [one]) => Ok(Some(*one)),
            _ => Err("collating elements other than one character cannot be matched by the runtime".into()),
        }
    }
}

/// glibc's RE_DUP_MAX.
const DUP_MAX: u32 = 0x7fff;

fn literal(c: u8) -> String {
    format!("\\x{c:02X}")
}

fn byte_class(set: &[bool; 256], negated: bool) -> String {
    let mut s = String::from(if negated { "(?-u:[^" } else { "(?-u:[" });
    let mut any = false;
    for (b, _) in set.iter().enumerate().filter(|(_, on)| **on) {
        let _ = write!(s, "\\x{b:02X}");
        any = true;
    }
    if !any {
        // An empty set cannot be written; [^\x00-\xFF] matches nothing.
        return if negated { "(?s-u:.)".into() } else { r"(?-u:[^\x00-\xFF])".into() };
    }
    s.push_str("])");
    s
}

/// The POSIX classes of the C locale.
fn posix_class(name: &[u8]) -> Option<fn(u8) -> bool> {
    Some(match name {
        b"alpha" => |b: u8| b.is_ascii_alphabetic(),
        b"digit" => |b: u8| b.is_ascii_digit(),
        b"alnum" => |b: u8| b.is_ascii_alphanumeric(),
        b"upper" => |b: u8| b.is_ascii_uppercase(),
        b"lower" => |b: u8| b.is_ascii_lowercase(),
        b"space" => |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        b"blank" => |b: u8| b == b' ' || b == b'\t',
        b"punct" => |b: u8| b.is_ascii_punctuation(),
        b"print" => |b: u8| (0x20..0x7f).contains(&b),
        b"graph" => |b: u8| b.is_ascii_graphic(),
        b"cntrl" => |b: u8| b < 0x20 || b == 0x7f,
        b"xdigit" => |b: u8| b.is_ascii_hexdigit(),
        _ => return None,
    })
}
