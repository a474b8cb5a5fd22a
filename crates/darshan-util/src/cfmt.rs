//! printf-compatible formatting of the few conversions darshan-util uses,
//! written straight into a byte buffer (no per-line allocation).

use std::io::Write;

#[inline]
pub fn push_i64(buf: &mut Vec<u8>, v: i64) {
    let mut b = itoa::Buffer::new();
    buf.extend_from_slice(b.format(v).as_bytes());
}

#[inline]
pub fn push_u64(buf: &mut Vec<u8>, v: u64) {
    let mut b = itoa::Buffer::new();
    buf.extend_from_slice(b.format(v).as_bytes());
}

/// `%f` with glibc's spelling of the special values. Rust's `{:.6}` is
/// exact decimal conversion with round-half-to-even, as glibc's printf.
#[inline]
pub fn push_f6(buf: &mut Vec<u8>, v: f64) {
    push_fixed(buf, v, 6)
}

pub fn push_fixed(buf: &mut Vec<u8>, v: f64, prec: usize) {
    if v.is_nan() {
        buf.extend_from_slice(if v.is_sign_negative() { b"-nan" } else { b"nan" });
    } else if v.is_infinite() {
        buf.extend_from_slice(if v < 0.0 { b"-inf" } else { b"inf" });
    } else if v == 0.0 && prec == 6 {
        buf.extend_from_slice(if v.is_sign_negative() { b"-0.000000" } else { b"0.000000" });
    } else {
        let _ = write!(buf, "{:.*}", prec, v);
    }
}

/// `ctime()` text (with its trailing newline) in the local time zone;
/// `(null)` without newline where glibc's ctime fails, as printf prints it.
pub fn ctime(t: i64) -> String {
    use chrono::{Local, TimeZone};
    match Local.timestamp_opt(t, 0).single() {
        Some(dt) if (-9999..=9999).contains(&chrono::Datelike::year(&dt)) => {
            dt.format("%a %b %e %H:%M:%S %Y\n").to_string()
        }
        _ => "(null)".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f6(v: f64) -> String {
        let mut b = Vec::new();
        push_f6(&mut b, v);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn fixed_point_matches_glibc_printf() {
        // Values checked against glibc printf("%f"): ties round to even.
        assert_eq!(f6(0.0078125), "0.007812");
        assert_eq!(f6(0.0234375), "0.023438");
        assert_eq!(f6(-1.0), "-1.000000");
        assert_eq!(f6(-0.0), "-0.000000");
        assert_eq!(f6(1e20), "100000000000000000000.000000");
        assert_eq!(f6(f64::NAN), "nan");
        assert_eq!(f6(f64::INFINITY), "inf");
        assert_eq!(f6(0.1234565), "0.123456"); // the double is just below the tie
    }
}
