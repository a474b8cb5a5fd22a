//! Thresholds and calibration: Drishti's defaults, the seed papers'
//! thresholds and the FSU model's coefficients, overridable by a JSON file
//! in Drishti's own `--config` layout (`{"small": {"requests": 0.2}}` sets
//! `small_requests`), so a Drishti config file works unchanged.

use std::collections::BTreeMap;

/// (key, default, what it is). Ratios are fractions in [0, 1].
pub const DEFAULTS: &[(&str, f64, &str)] = &[
    ("imbalance_operations", 0.1, "Drishti: minimum read/write imbalance ratio (P01-P04)"),
    ("small_bytes", 1048576.0, "Drishti: size under which a request is small"),
    ("small_requests", 0.1, "Drishti: maximum small-request ratio (P05, P06, P15, P16)"),
    ("small_requests_absolute", 1000.0, "Drishti: maximum small requests"),
    ("misaligned_requests", 0.1, "Drishti: maximum misaligned-request ratio (P07, P08)"),
    ("metadata_time_rank", 30.0, "Drishti and the XE6 study: seconds of metadata time per process (P17, X03)"),
    ("random_operations", 0.2, "Drishti: maximum random-request ratio (P11, P13)"),
    ("random_operations_absolute", 1000.0, "Drishti: maximum random requests"),
    ("imbalance_stragglers", 0.15, "Drishti: maximum fastest/slowest rank difference ratio (P18, P19)"),
    ("imbalance_size", 0.3, "Drishti: maximum per-rank size difference ratio (P21, P22)"),
    ("interface_stdio", 0.1, "Drishti: maximum STDIO share of bytes (S01)"),
    ("collective_operations", 0.5, "Drishti: minimum collective share (M02, M03 evidence)"),
    ("collective_operations_absolute", 1000.0, "Drishti: minimum MPI-IO operations before collectives matter"),
    ("backtrace", 2.0, "Drishti: backtraces shown (unused: no DXT address mapping here)"),
    ("metadata_ratio", 0.25, "XE6 study: maximum metadata share of I/O time (X02)"),
    ("burstiness", 10.0, "JSC: peak-to-mean bin volume above which I/O is bursty (J01)"),
    ("fsu_load", 0.1, "NERSC FSU: file-system seconds per run-time second above which load is high (F01)"),
    ("fsu_a0_read", 0.0005, "NERSC FSU: seconds per read operation"),
    ("fsu_a1_read", 1.0e-9, "NERSC FSU: seconds per byte read (1 GB/s)"),
    ("fsu_a0_write", 0.001, "NERSC FSU: seconds per write operation"),
    ("fsu_a1_write", 1.25e-9, "NERSC FSU: seconds per byte written (800 MB/s)"),
    ("min_volume", 1048576.0, "ours: bytes under which no finding about data volume is made"),
    ("min_time", 1.0, "ours: seconds under which no finding about time (X02) is made"),
    ("lustre_large_file", 1073741824.0, "Lustre: file size above which one stripe is too few (L01)"),
    ("metadata_ops_rate", 1000.0, "ours: namespace operations per second above which they are a storm (D01)"),
    ("metadata_ops_absolute", 10000.0, "ours: namespace operations under which no storm is reported (D01)"),
    ("temporary_files", 100.0, "ours: files written and removed within the run from which it is said (D02)"),
    ("repeated_listings", 10.0, "ours: listings of one directory per process from which it is said (D03)"),
    (
        "mpi_comm_share",
        0.25,
        "ours: the ranks' mean share of the run time in MPI communication from which it is said (C01)",
    ),
    (
        "uring_stall",
        1.0,
        "ours: seconds one io_uring request may take from submission to completion before it is said (U03)",
    ),
];

#[derive(Debug, Clone)]
pub struct Config {
    values: BTreeMap<&'static str, f64>,
    /// Where the values came from ("defaults" or the file's path).
    pub source: String,
}

impl Default for Config {
    fn default() -> Self {
        Config { values: DEFAULTS.iter().map(|(k, v, _)| (*k, *v)).collect(), source: "defaults".to_string() }
    }
}

impl Config {
    pub fn get(&self, key: &str) -> f64 {
        self.values.get(key).copied().unwrap_or(0.0)
    }

    /// Read a JSON config: `{"category": {"name": value}}` sets
    /// `category_name`; a flat `{"category_name": value}` works too.
    pub fn load(path: &std::path::Path) -> Result<Config, ConfigError> {
        let text = read_bounded(path).map_err(|e| ConfigError::Read { path: path.display().to_string(), source: e })?;
        let mut c = Config::from_json(&text)
            .map_err(|e| ConfigError::In { path: path.display().to_string(), source: Box::new(e) })?;
        c.source = path.display().to_string();
        Ok(c)
    }

    pub fn from_json(text: &str) -> Result<Config, ConfigError> {
        let v: serde_json::Value = serde_json::from_str(text)?;
        let top = v.as_object().ok_or(ConfigError::NotAnObject)?;
        let mut c = Config::default();
        for (cat, inner) in top {
            match inner {
                serde_json::Value::Object(m) => {
                    for (name, val) in m {
                        c.set(&format!("{cat}_{name}"), val)?;
                    }
                }
                val => c.set(cat, val)?,
            }
        }
        Ok(c)
    }

    fn set(&mut self, key: &str, val: &serde_json::Value) -> Result<(), ConfigError> {
        let Some((k, _, _)) = DEFAULTS.iter().find(|(k, _, _)| *k == key) else {
            return Err(ConfigError::Unknown(key.into()));
        };
        let x = val.as_f64().ok_or_else(|| ConfigError::NotANumber(key.into()))?;
        let ratio = matches!(
            key,
            "imbalance_operations" | "small_requests" | "misaligned_requests" | "random_operations" | "metadata_ratio"
        );
        if !x.is_finite() || x < 0.0 || (ratio && x > 1.0) {
            let range = if ratio { "between 0 and 1" } else { "a non-negative number" };
            return Err(ConfigError::OutOfRange { key: key.into(), range, value: x });
        }
        self.values.insert(k, x);
        Ok(())
    }
}

/// The most a thresholds file may hold (a real one is a few hundred bytes).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A thresholds file's text, opened as every tool opens what a user may
/// have made (darshan_log::safe_fs: no FIFO or device, no link another
/// user owns) and at most [`MAX_CONFIG_BYTES`] long.
pub fn read_bounded(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    let input = darshan_log::safe_fs::open_input(path)?;
    if input.size > MAX_CONFIG_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} bytes; a thresholds file is at most {MAX_CONFIG_BYTES}", input.size),
        ));
    }
    let mut text = String::new();
    input.file.take(MAX_CONFIG_BYTES).read_to_string(&mut text)?;
    Ok(text)
}

/// A thresholds file that cannot be used: why, with the file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {source}")]
    Read { path: String, source: std::io::Error },
    /// What is wrong inside the file `path`.
    #[error("{path}: {source}")]
    In { path: String, source: Box<ConfigError> },
    #[error("not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("expected a JSON object")]
    NotAnObject,
    #[error("unknown threshold `{0}`")]
    Unknown(String),
    #[error("`{0}` must be a number")]
    NotANumber(String),
    #[error("`{key}` must be {range}, not {value}")]
    OutOfRange { key: String, range: &'static str, value: f64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drishti_config_file_sets_its_thresholds() {
        let c =
            Config::from_json(r#"{"small": {"requests": 0.2, "requests_absolute": 10}, "metadata_time": {"rank": 5}}"#)
                .unwrap();
        assert_eq!(c.get("small_requests"), 0.2);
        assert_eq!(c.get("small_requests_absolute"), 10.0);
        assert_eq!(c.get("metadata_time_rank"), 5.0);
        assert_eq!(c.get("imbalance_size"), 0.3);
    }

    #[test]
    fn bad_config_values_are_clear_errors() {
        assert!(matches!(Config::from_json("[1]"), Err(ConfigError::NotAnObject)));
        let e = Config::from_json(r#"{"small": {"requests": 2}}"#).unwrap_err();
        assert!(matches!(&e, ConfigError::OutOfRange { key, value, .. } if key == "small_requests" && *value == 2.0));
        assert!(e.to_string().contains("between 0 and 1"), "{e}");
        assert!(matches!(Config::from_json(r#"{"nonsense": 1}"#), Err(ConfigError::Unknown(k)) if k == "nonsense"));
        assert!(
            matches!(Config::from_json(r#"{"fsu": {"a0_read": "x"}}"#), Err(ConfigError::NotANumber(k)) if k == "fsu_a0_read")
        );
        assert!(Config::from_json("{").unwrap_err().to_string().contains("JSON"));
    }
}
