//! `darshan-study calibrate`: the FSU model's coefficients from
//! observations a site measures (a benchmark sweep of request sizes):
//! per operation kind, the least-squares line t = a0 + a1·b through the
//! time per operation against its size, each observation weighted by its
//! operation count (the same fit as one point per operation).
//!
//! Input: CSV with a header `op,size,count,seconds` (op is read or write;
//! seconds is the time the `count` operations of `size` bytes took).

use crate::error::CalibrationError;
use serde::Serialize;

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Fit {
    /// Seconds per operation.
    pub a0: f64,
    /// Seconds per byte.
    pub a1: f64,
    pub observations: usize,
    /// Coefficient of determination of the weighted fit.
    pub r2: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    pub read: Fit,
    pub write: Fit,
}

impl Calibration {
    /// The coefficients as a config file that darshan-summary and
    /// darshan-study read (`--config`).
    pub fn config_json(&self) -> serde_json::Value {
        serde_json::json!({"fsu": {
            "a0_read": self.read.a0, "a1_read": self.read.a1,
            "a0_write": self.write.a0, "a1_write": self.write.a1,
        }})
    }
}

/// Weighted least squares of y = a0 + a1·x with weights w.
pub fn fit(points: &[(f64, f64, f64)]) -> Result<Fit, CalibrationError> {
    let (mut s, mut sx, mut sy, mut sxx, mut sxy) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for &(x, y, w) in points {
        s += w;
        sx += w * x;
        sy += w * y;
        sxx += w * x * x;
        sxy += w * x * y;
    }
    let det = s * sxx - sx * sx;
    if points.len() < 2 || det.abs() <= f64::EPSILON * s * sxx {
        return Err(CalibrationError::TooFewSizes);
    }
    let a1 = (s * sxy - sx * sy) / det;
    let a0 = (sy - a1 * sx) / s;
    let mean = sy / s;
    let (mut ss_res, mut ss_tot) = (0.0, 0.0);
    for &(x, y, w) in points {
        ss_res += w * (y - a0 - a1 * x).powi(2);
        ss_tot += w * (y - mean).powi(2);
    }
    let r2 = if ss_tot > 0.0 { 1.0 - ss_res / ss_tot } else { 1.0 };
    Ok(Fit { a0, a1, observations: points.len(), r2 })
}

pub fn calibrate(csv: &str) -> Result<Calibration, CalibrationError> {
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    let mut lines = csv.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    match lines.next() {
        Some((_, h)) if h.replace(' ', "").eq_ignore_ascii_case("op,size,count,seconds") => {}
        _ => return Err(CalibrationError::Header),
    }
    for (i, line) in lines {
        let bad =
            |what: &'static str| CalibrationError::Line { line: i + 1, what, text: line.chars().take(60).collect() };
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != 4 {
            return Err(bad("expected 4 fields"));
        }
        let num = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
        let (Some(size), Some(count), Some(secs)) = (num(f[1]), num(f[2]), num(f[3])) else {
            return Err(bad("size, count and seconds must be non-negative numbers"));
        };
        if count == 0.0 {
            return Err(bad("count must be at least 1"));
        }
        let point = (size, secs / count, count);
        match f[0].to_ascii_lowercase().as_str() {
            "read" | "r" => reads.push(point),
            "write" | "w" => writes.push(point),
            _ => return Err(bad("op must be read or write")),
        }
    }
    let read = fit(&reads).map_err(|e| CalibrationError::Fit { ops: "reads", source: Box::new(e) })?;
    let write = fit(&writes).map_err(|e| CalibrationError::Fit { ops: "writes", source: Box::new(e) })?;
    Ok(Calibration { read, write })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Observations generated from known coefficients, with a deterministic
    /// ±1% disturbance: the fit recovers them.
    #[test]
    fn the_fit_recovers_known_coefficients_from_synthetic_observations() {
        let (r0, r1, w0, w1) = (3.0e-4, 8.0e-10, 1.2e-3, 1.6e-9);
        let mut csv = String::from("op,size,count,seconds\n");
        let mut k = 0;
        for size in [4096.0, 65536.0, 1048576.0, 4194304.0, 16777216.0, 67108864.0] {
            for count in [10.0, 100.0, 1000.0] {
                k += 1;
                let noise = 1.0 + 0.01 * if k % 2 == 0 { 1.0 } else { -1.0 };
                csv += &format!("read,{size},{count},{}\n", count * (r0 + r1 * size) * noise);
                csv += &format!("write,{size},{count},{}\n", count * (w0 + w1 * size) * noise);
            }
        }
        let c = calibrate(&csv).unwrap();
        let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol * b.abs();
        // a1 within the noise; a0 within the noise of the slowest
        // operation's time (relative noise there dwarfs a0).
        let a0_tol = |a0: f64, a1: f64| 0.02 * (a0 + a1 * 67108864.0);
        assert!(close(c.read.a1, r1, 0.02), "{:?}", c.read);
        assert!((c.read.a0 - r0).abs() <= a0_tol(r0, r1), "{:?}", c.read);
        assert!(close(c.write.a1, w1, 0.02), "{:?}", c.write);
        assert!((c.write.a0 - w0).abs() <= a0_tol(w0, w1), "{:?}", c.write);
        assert!(c.read.r2 > 0.99);
        // Exact data gives exact coefficients.
        let exact = fit(&[(0.0, 1.0, 1.0), (10.0, 21.0, 5.0), (20.0, 41.0, 2.0)]).unwrap();
        assert!(close(exact.a0, 1.0, 1e-12) && close(exact.a1, 2.0, 1e-12));
        assert_eq!(exact.r2, 1.0);
    }

    #[test]
    fn bad_observation_files_are_clear_errors() {
        assert!(matches!(calibrate("size,count\n"), Err(CalibrationError::Header)));
        assert!(matches!(
            calibrate("op,size,count,seconds\nread,1,1,x\n"),
            Err(CalibrationError::Line { line: 2, .. })
        ));
        let e = calibrate("op,size,count,seconds\nread,1,1,1\nwrite,1,1,1\n").unwrap_err();
        assert!(
            matches!(&e, CalibrationError::Fit { ops: "reads", source } if matches!(**source, CalibrationError::TooFewSizes))
        );
        assert!(e.to_string().contains("two different"), "{e}");
        assert!(calibrate("op,size,count,seconds\nseek,1,1,1\n").unwrap_err().to_string().contains("read or write"));
    }
}
