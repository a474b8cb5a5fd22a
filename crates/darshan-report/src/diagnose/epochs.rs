//! Epochs: a job that reads the same data set pass after pass (training
//! epochs, loaders that re-read a file per sample). Its read volume is a
//! multiple of the data set's extent; that is said as passes over a data
//! set, with the advice that fits (cache it where it is cheap to read
//! again), instead of "read on one rank and broadcast".

use super::{counted, finding, Ctx};
use crate::model::{Finding, Level};
use crate::units::bytes as b;
use darshan_log::modules;

/// Passes from which a data set counts as read repeatedly.
const MIN_PASSES: f64 = 1.5;

/// The data set: the application's files only read (no byte written),
/// at least two of them. (files, bytes read, extent).
pub fn data_set(cx: &Ctx) -> (i64, i64, i64) {
    let (mut n, mut read, mut extent) = (0i64, 0i64, 0i64);
    for e in cx.files_of(modules::POSIX).filter(|e| e.bytes_read() > 0 && e.bytes_written() == 0) {
        n += 1;
        read = read.saturating_add(e.bytes_read());
        extent = extent.saturating_add(e.max_byte_read.saturating_add(1).max(0));
    }
    (n, read, extent)
}

/// E01: N passes over a D-byte data set of F files.
pub fn passes(cx: &Ctx) -> Option<Finding> {
    let (n, read, extent) = data_set(cx);
    if n < 2 || extent <= 0 {
        return None;
    }
    let passes = read as f64 / extent as f64;
    let again = (read - extent) as f64;
    if passes < MIN_PASSES || again < cx.min_volume() {
        return None;
    }
    Some(finding(
        "E01",
        Level::Warn,
        format!("{passes:.1} passes over a {} data set of {}", b(extent as f64), counted(n, "file")),
        vec![
            format!("{} read from {} whose extent is {} ({passes:.2} times over)", b(read as f64), counted(n, "read-only file"), b(extent as f64)),
            format!("{} of it read again from the file system after the first pass", b(again)),
        ]
        .into_iter()
        .chain(pass_times(cx, read, extent))
        .collect(),
        Some(cx.advice(
            "Read the data set from the file system once: keep it in memory or on node-local storage after the first pass, or read it on one rank per node and distribute it (MPI_Bcast)",
            "Read the data set from the file system once: cache it in memory or on node-local storage after the first pass (or stage it there before the job), and shard it by rank so each process reads only its part",
        )),
    ))
}

/// The times at which the shares `fracs` (ascending, 0..=1) of the bins'
/// bytes had been read, each interpolated within its bin: one walk over
/// the bins for all of them (a log's bins and passes are both its own
/// numbers, so no pass walks the bins again).
fn times_at(bins: &[f64], width: f64, total: f64, fracs: &[f64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(fracs.len());
    let mut want = fracs.iter().copied().peekable();
    let mut cum = 0.0;
    for (i, b) in bins.iter().enumerate() {
        let share = b / total;
        while let Some(f) = want.next_if(|f| share > 0.0 && cum + share >= *f) {
            out.push((i as f64 + ((f - cum) / share).clamp(0.0, 1.0)) * width);
        }
        cum += share;
    }
    out.extend(want.map(|_| bins.len() as f64 * width));
    out
}

/// Each full pass's time and throughput, from when the job read (DXT's
/// POSIX segments, else the POSIX heat map): pass k ends when k data set
/// extents of the data set's reads are done. The bins hold every POSIX
/// read; the bytes of other files (software loading, configuration) are
/// taken to come first, as they do at start-up (when the bins hold less
/// than the data set's reads, every byte counts pro rata). None when the
/// bins are too coarse to time the passes.
fn pass_times(cx: &Ctx, read: i64, extent: i64) -> Option<String> {
    let heat = ["DXT_POSIX", "HEATMAP POSIX"].iter().find_map(|n| cx.heatmaps.iter().find(|h| h.name == *n))?;
    let total: f64 = heat.read_per_bin.iter().sum();
    let full = (read / extent.max(1)).min(1000) as usize;
    if total <= 0.0 || full < 2 || heat.bin_width.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    let (first, share) = if total >= read as f64 {
        ((total - read as f64) / total, extent as f64 / total)
    } else {
        (0.0, extent as f64 / read as f64)
    };
    let fracs: Vec<f64> = (0..=full).map(|k| first + k as f64 * share).collect();
    let t = times_at(&heat.read_per_bin, heat.bin_width, total, &fracs);
    let span = t[full] - t[0];
    let source = if heat.name == "DXT_POSIX" { "DXT" } else { "heat map" };
    if span < 2.0 * full as f64 * heat.bin_width {
        return Some(format!(
            "the {source}'s bins ({}) are too coarse to time each pass: {full} passes took about {}",
            crate::units::secs(heat.bin_width),
            crate::units::secs(span)
        ));
    }
    let each: Vec<String> = t
        .windows(2)
        .enumerate()
        .take(10)
        .map(|(k, w)| {
            format!("{}: {} ({}/s)", k + 1, crate::units::secs(w[1] - w[0]), b(extent as f64 / (w[1] - w[0]).max(1e-9)))
        })
        .collect();
    Some(format!(
        "per pass, from the {source} ({} bins; the first began {} into the job): {}{}",
        crate::units::secs(heat.bin_width),
        crate::units::secs(t[0]),
        each.join("; "),
        if full > 10 { " ..." } else { "" }
    ))
}
