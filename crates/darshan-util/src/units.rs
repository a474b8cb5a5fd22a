//! Human-readable numbers for the reports (darshan-summary, its history
//! section) and their renderers.

/// Bytes in binary units with two decimals ("1.50 MiB"), as PyDarshan.
pub fn bytes(b: f64) -> String {
    const U: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut v = b;
    let mut u = 0;
    while v.abs() >= 1024.0 && u < U.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{} B", b as i64)
    } else {
        format!("{v:.2} {}", U[u])
    }
}

/// Seconds with a precision that suits their size.
pub fn secs(s: f64) -> String {
    if s == 0.0 {
        "0 s".to_string()
    } else if s < 0.001 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// `what` as said of `n` things: with an "s" unless there is one.
pub fn noun(n: i64, what: &str) -> String {
    if n == 1 {
        what.to_string()
    } else {
        format!("{what}s")
    }
}

/// "1 file", "2,000 files": the count with thousands separators and its noun.
pub fn counted(n: i64, what: &str) -> String {
    format!("{} {}", count(n), noun(n, what))
}

/// Counts with thousands separators.
pub fn count(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_read_as_people_write_them() {
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.50 KiB");
        assert_eq!(bytes(1073741824.0), "1.00 GiB");
        assert_eq!(count(1234567), "1,234,567");
        assert_eq!(count(-1000), "-1,000");
        assert_eq!(secs(0.0005), "500.0 µs");
        assert_eq!(secs(2.5), "2.50 s");
    }

    /// The report said "1 records", "over 1 files".
    #[test]
    fn one_thing_is_said_in_the_singular() {
        assert_eq!(counted(1, "file"), "1 file");
        assert_eq!(counted(0, "file"), "0 files");
        assert_eq!(counted(2500, "record"), "2,500 records");
        assert_eq!(noun(1, "file"), "file");
        assert_eq!(noun(3, "file"), "files");
    }
}
