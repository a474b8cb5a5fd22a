//! The configuration's name and application patterns against glibc's own
//! `regcomp(REG_EXTENDED)` / `regexec`, which is what C Darshan compiles
//! them with (darshan-config.c): the same patterns must be refused, and
//! the others must match the same names. The oracle is the C library
//! itself, in this process's C locale, as at a program's start.

use std::ffi::CString;

/// glibc's answer for `pattern`: None if it refuses it, else whether each
/// subject matches.
fn glibc(pattern: &str, subjects: &[&[u8]]) -> Option<Vec<bool>> {
    let p = CString::new(pattern).ok()?;
    let mut re = std::mem::MaybeUninit::<libc::regex_t>::uninit();
    // SAFETY: `re` is a regex_t for regcomp to fill; `p` is NUL-terminated.
    if unsafe { libc::regcomp(re.as_mut_ptr(), p.as_ptr(), libc::REG_EXTENDED | libc::REG_NOSUB) } != 0 {
        return None;
    }
    let hits = subjects
        .iter()
        .map(|s| {
            let s = CString::new(*s).expect("subjects hold no NUL");
            // SAFETY: regcomp succeeded on `re`; `s` is NUL-terminated.
            unsafe { libc::regexec(re.as_ptr(), s.as_ptr(), 0, std::ptr::null_mut(), 0) == 0 }
        })
        .collect();
    // SAFETY: `re` was compiled above and is freed once.
    unsafe { libc::regfree(re.as_mut_ptr()) };
    Some(hits)
}

const SUBJECTS: &[&[u8]] = &[
    b"",
    b"a",
    b"b",
    b"ab",
    b"aab",
    b"abab",
    b"ba",
    b"abc",
    b"a.b",
    b"a\\b",
    b"a-b",
    b"a]b",
    b"x{2}",
    b"d4",
    b"/usr/lib/libc.so.6",
    b"/scratch/run_0042.h5",
    b"/scratch/RUN_dddd.H5",
    b"foo bar",
    b"foo_bar9",
    b"(a)",
    b"a|b",
    b"aaaa",
    b"\xff\xfeab",
];

/// What the runtime cannot match without glibc, and says so: refused
/// where glibc accepts. Back-references, and repetitions whose automaton
/// would exceed the size every process may build at start-up.
fn unsupported(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    let back_reference = b.windows(2).any(|w| w[0] == b'\\' && w[1].is_ascii_digit() && w[1] != b'0');
    let huge = pattern.split(|c: char| !c.is_ascii_digit()).any(|n| n.len() >= 4);
    back_reference || huge
}

fn check(pattern: &str) -> Result<(), String> {
    let ours = darshan_core::config::name_pattern(pattern);
    match (glibc(pattern, SUBJECTS), ours) {
        (None, Err(_)) => Ok(()),
        (None, Ok(_)) => Err(format!("{pattern:?}: glibc refuses it, the runtime took it")),
        (Some(_), Err(_)) if unsupported(pattern) => Ok(()),
        (Some(_), Err(e)) => Err(format!("{pattern:?}: glibc takes it, the runtime refused it ({e})")),
        (Some(want), Ok(re)) => {
            let got: Vec<bool> = SUBJECTS.iter().map(|s| re.is_match(s)).collect();
            match SUBJECTS.iter().zip(want.iter().zip(&got)).find(|(_, (w, g))| w != g) {
                None => Ok(()),
                Some((s, (w, _))) => Err(format!(
                    "{pattern:?} on {:?}: glibc {}, the runtime {}",
                    String::from_utf8_lossy(s),
                    if *w { "matches" } else { "does not match" },
                    if *w { "does not" } else { "does" }
                )),
            }
        }
    }
}

/// Patterns where Rust's regex syntax and POSIX's part, and the usual ones.
const PATTERNS: &[&str] = &[
    r"^/usr/lib",
    r"\.so",
    r"\.so$",
    r"\.h5$",
    r"^/scratch/.*\.h5$",
    r"\d",
    r"\d{4}",
    r"(?i)a",
    r"[\.]b",
    r"[\d]",
    r"a\b",
    r"\w+",
    r"\W",
    r"\s",
    r"\S",
    r"\<b",
    r"a\>",
    r"\bb",
    r"\Bb",
    r"\`a",
    r"b\'",
    r"a+?b",
    r"a*?b",
    r"a??",
    r"a{2}",
    r"a{1,}",
    r"a{,2}",
    r"a{2,1}",
    r"a{}",
    r"a{x}",
    r"a{1",
    r"{1}a",
    r"*a",
    r"+a",
    r"a|*b",
    r"(*a)",
    r"^*a",
    r"a$*",
    r"()",
    r"(a)",
    r"(a",
    r"a)",
    r"a\)",
    r"\(a\)",
    r"[]a]",
    r"[^]a]",
    r"[a-]",
    r"[-a]",
    r"[a-c]",
    r"[c-a]",
    r"[a-c-e]",
    r"[[:alpha:]]",
    r"[[:digit:]]+",
    r"[[:nope:]]",
    r"[[:alpha:]-z]",
    r"[[.a.]-c]",
    r"[[=a=]]",
    r"[[.-.]]",
    r"[a",
    r"[[:alpha:]",
    r"a\",
    r"\{",
    r"x\{2\}",
    r"a.b",
    r"a\.b",
    r"a\|b",
    r"a|b",
    r"(a|)b",
    r"(|a)b",
    r"a||b",
    r"^$",
    r"a^b",
    r"a$b",
    r"(^a)",
    r"(a$)",
    r"\x",
    r"\n",
    r"[\n]",
    r"[^\]]",
    r"(ab)*",
    r"(ab)+$",
    r"((a))",
    r"a**",
    r"a+*",
    r"a{1}{2}",
    r"\(",
    r"[]",
    r"[^]",
    r"\1",
    r"(a)\1",
    r"[[:space:][:digit:]]",
    r"[%--]",
    r"[--/]",
    r"[a-a]",
    r"[ab-]",
    r".",
    r"^.$",
    r"..",
    r"[^a]",
    r"[^ab]+",
    r"[a-c-]",
    r"[[:alpha:]-]",
    r"a{,}",
    r"a{0}",
    r"a{0,0}",
    r"[--a]",
    r"a{1,2}{3}",
    r"a{32767}",
    r"a{32768}",
    r"[[:alpha:]",
    r"[[=ab=]]",
    r"[[.ab.]]",
    r"[[:]",
    r"[a-[.c.]]",
    r"(a|b)*c",
    r"(a*)*",
    r"(a|b|)+",
];

#[test]
fn patterns_mean_what_glibc_makes_of_them() {
    let failures: Vec<String> = PATTERNS.iter().filter_map(|p| check(p).err()).collect();
    assert!(failures.is_empty(), "{} of {} patterns:\n{}", failures.len(), PATTERNS.len(), failures.join("\n"));
}

/// Every sequence of up to three of these pieces, against glibc.
#[test]
fn generated_patterns_mean_what_glibc_makes_of_them() {
    let pieces = [
        "a", "b", ".", "*", "+", "?", "{2}", "{1,2}", "(", ")", "|", "^", "$", "[ab]", "[^a]", r"\w", r"\d", r"\.",
        r"\<", "[]a]", "[a-]",
    ];
    let mut failures = Vec::new();
    let mut n = 0;
    let mut pattern = Vec::new();
    // Counting in base (pieces + 1) over three digits: 0 is "no piece".
    let base = pieces.len() + 1;
    for code in 1..base.pow(3) {
        pattern.clear();
        let mut c = code;
        for _ in 0..3 {
            if c % base > 0 {
                pattern.push(pieces[c % base - 1]);
            }
            c /= base;
        }
        let p = pattern.concat();
        n += 1;
        if let Err(e) = check(&p) {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {n} patterns:\n{}",
        failures.len(),
        failures.iter().take(40).cloned().collect::<Vec<_>>().join("\n")
    );
}
