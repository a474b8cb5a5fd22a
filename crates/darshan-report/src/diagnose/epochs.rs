//! Epochs: a job that reads the same data set pass after pass (training
//! epochs, loaders that re-read a file per sample). Its read volume is a
//! multiple of the data set's extent; that is said as passes over a data
//! set, with the advice that fits (cache it where it is cheap to read
//! again), instead of "read on one rank and broadcast".

use super::{finding, plural, Ctx};
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
        format!("{passes:.1} passes over a {} data set of {}", b(extent as f64), plural(n, "file")),
        vec![
            format!("{} read from {} whose extent is {} ({passes:.2} times over)", b(read as f64), plural(n, "read-only file"), b(extent as f64)),
            format!("{} of it read again from the file system after the first pass", b(again)),
        ],
        Some(cx.advice(
            "Read the data set from the file system once: keep it in memory or on node-local storage after the first pass, or read it on one rank per node and distribute it (MPI_Bcast)",
            "Read the data set from the file system once: cache it in memory or on node-local storage after the first pass (or stage it there before the job), and shard it by rank so each process reads only its part",
        )),
    ))
}
