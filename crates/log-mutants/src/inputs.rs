//! Inputs other than a mutant log on its own: a crash-safe mutant alone
//! in a directory under a crash-safe file's name (what the live reader
//! and `darshan-merge --dir` look for), and lying thresholds files
//! (`--config`) beside a seed log.

use std::path::{Path, PathBuf};

use crate::mutate::Rng;

/// The name a crash-safe mutant takes: job 1's file of rank 0.
pub const CRASH_SAFE_NAME: &str = "u_prog_id1_mmap-log-1-0.darshan";

/// Whether `file` is a crash-safe file (uncompressed regions).
pub fn is_crash_safe(file: &[u8]) -> bool {
    darshan_log::Header::parse(&file[..darshan_log::header::HEADER_SIZE.min(file.len())], u64::MAX)
        .is_ok_and(|h| h.compression == darshan_log::Compression::None)
}

/// The directory `work/crash-safe/<k>` holding `mutant` (linked) under
/// [`CRASH_SAFE_NAME`].
pub fn crash_safe_dir(work: &Path, k: usize, mutant: &Path) -> Option<PathBuf> {
    let d = work.join("crash-safe").join(format!("{k:05}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).ok()?;
    std::fs::hard_link(mutant, d.join(CRASH_SAFE_NAME)).ok()?;
    Some(d)
}

/// Values a threshold takes: out of range, of the wrong type, not JSON.
const VALUE_LIES: [&str; 14] =
    ["0", "1e-300", "1", "0.5", "1e308", "-1", "\"x\"", "null", "true", "[]", "{}", "NaN", "1e400", "-0"];

/// One lying thresholds file, and what it lies about.
fn config_text(rng: &mut Rng) -> (String, String) {
    let keys: Vec<&str> = darshan_report::diagnose::config::DEFAULTS.iter().map(|(k, _, _)| *k).collect();
    match rng.below(10) {
        0 => (String::new(), "config: empty".into()),
        1 => ("[".repeat(100_000), "config: nested 100,000 deep".into()),
        2 => (format!("{{\"small_requests\": \"{}\"}}", "x".repeat(3 << 20)), "config: 3 MiB".into()),
        3 => {
            let body: Vec<String> = keys.iter().map(|k| format!("\"{k}\": 0")).collect();
            (format!("{{{}}}", body.join(", ")), "config: every threshold 0".into())
        }
        4 => ("{\"no_such_threshold\": 1}".into(), "config: unknown key".into()),
        _ => {
            let k = *rng.pick(&keys);
            let v = *rng.pick(&VALUE_LIES);
            // Drishti's nested form half the time: {"small": {"requests": v}}.
            let text = match k.split_once('_').filter(|_| rng.below(2) == 0) {
                Some((cat, name)) => format!("{{\"{cat}\": {{\"{name}\": {v}}}}}"),
                None => format!("{{\"{k}\": {v}}}"),
            };
            (text, format!("config: {k} = {v}"))
        }
    }
}

/// `n` directories `work/configs/<k>`, each with a lying `config.json`
/// and a seed log (linked, in turn from `logs`) as `seed.darshan`:
/// (directory, the seed's size, what the config lies about).
pub fn config_dirs(work: &Path, logs: &[PathBuf], n: usize, seed: u64) -> Vec<(PathBuf, u64, String)> {
    let mut rng = Rng::new(seed ^ 0xC0F1_6000);
    let mut out = Vec::new();
    for k in 0..n.min(logs.len() * n) {
        let Some(log) = logs.get(k % logs.len().max(1)) else { break };
        let d = work.join("configs").join(format!("{k:04}"));
        let _ = std::fs::remove_dir_all(&d);
        if std::fs::create_dir_all(&d).is_err() {
            continue;
        }
        let (text, what) = config_text(&mut rng);
        let linked = std::fs::hard_link(log, d.join("seed.darshan"))
            .or_else(|_| std::fs::copy(log, d.join("seed.darshan")).map(|_| ()));
        if std::fs::write(d.join("config.json"), text).is_ok() && linked.is_ok() {
            let size = std::fs::metadata(log).map(|m| m.len()).unwrap_or(0);
            out.push((d, size, format!("{what} ({})", log.display())));
        }
    }
    out
}
