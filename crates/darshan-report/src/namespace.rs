//! The metadata section: what the job did to the namespace and to files'
//! attributes and mappings, from the POSIX_META module (ours; C Darshan
//! records none of it): operations by kind, the busiest directories, an
//! estimate of the rate over time, temporary files (written and removed
//! within the run) and directories listed again and again.
//!
//! A directory's "operations" are the entries made and removed in it
//! (unlink, rename, mkdir, rmdir, link, symlink of its children) and its
//! own listings (opendir). The rate over time spreads each record's
//! namespace operations evenly between its first and last call: the log
//! keeps counts, not when each call was, so this is an estimate (said so
//! in the report).

use std::collections::HashMap;

use darshan_log::counters::posix_meta as c;
use darshan_log::modules::POSIX;
use darshan_log::{NameTable, Record};

use crate::files::Files;
use crate::model::{DirOps, Namespace};

/// Bins of the rate estimate.
const RATE_BINS: usize = 50;

/// The counters that change the namespace (each counted once: a rename by
/// its source).
pub const NAMESPACE: [usize; 7] =
    [c::UNLINKS, c::RENAMES_FROM, c::MKDIRS, c::RMDIRS, c::OPENDIRS, c::LINKS, c::SYMLINKS];

/// What streams past: totals, per-directory sums, per-record spans.
#[derive(Default)]
pub struct NamespaceAcc {
    totals: Vec<i64>,
    time: f64,
    start: f64,
    end: f64,
    dirs: HashMap<Vec<u8>, DirOps>,
    /// (start, end, namespace ops) of each record, for the rate.
    spans: Vec<(f64, f64, f64)>,
    /// Ids of the paths unlinked (with their names).
    unlinked: Vec<(u64, Vec<u8>)>,
    records: u64,
}

fn parent(p: &[u8]) -> &[u8] {
    match p.iter().rposition(|&b| b == b'/') {
        Some(0) => b"/",
        Some(i) => &p[..i],
        None => b".",
    }
}

impl NamespaceAcc {
    pub fn add(&mut self, r: &Record, names: &NameTable) {
        if r.counters.len() != c::NUM_INDICES || r.fcounters.len() != c::F_NUM_INDICES {
            return;
        }
        self.records += 1;
        if self.totals.is_empty() {
            self.totals = vec![0; c::NUM_INDICES];
        }
        for (t, v) in self.totals.iter_mut().zip(&r.counters) {
            *t = t.saturating_add(*v);
        }
        let f = &r.fcounters;
        if f[c::F_TIME].is_finite() && f[c::F_TIME] > 0.0 {
            self.time += f[c::F_TIME];
        }
        let (s, e) = (f[c::F_START_TIMESTAMP], f[c::F_END_TIMESTAMP]);
        if s > 0.0 && (self.start == 0.0 || s < self.start) {
            self.start = s;
        }
        self.end = self.end.max(e);
        // Counts from a log are not trusted to be small: sums saturate.
        let sum = |ks: &[usize]| ks.iter().fold(0i64, |a, &k| a.saturating_add(r.counters[k].max(0)));
        let ns = sum(&NAMESPACE);
        if ns > 0 && e >= s {
            self.spans.push((s, e, ns as f64));
        }
        let name = names.get(r.id).map(<[u8]>::to_vec).unwrap_or_else(|| format!("{:016x}", r.id).into_bytes());
        // Entries made and removed: in the parent; listings: the directory.
        let in_parent = sum(&[c::UNLINKS, c::RENAMES_FROM, c::MKDIRS, c::RMDIRS, c::LINKS, c::SYMLINKS]);
        if in_parent > 0 {
            let d = self.dir(parent(&name));
            d.ops = d.ops.saturating_add(in_parent);
        }
        let (listings, entries) = (r.counters[c::OPENDIRS], r.counters[c::DIR_ENTRIES].max(0));
        if listings > 0 {
            let d = self.dir(&name);
            d.ops = d.ops.saturating_add(listings);
            d.listings = d.listings.saturating_add(listings);
            d.entries_read = d.entries_read.saturating_add(entries);
        }
        if r.counters[c::UNLINKS] > 0 {
            self.unlinked.push((r.id, name));
        }
    }

    fn dir(&mut self, p: &[u8]) -> &mut DirOps {
        self.dirs
            .entry(p.to_vec())
            .or_insert_with(|| DirOps { path: String::from_utf8_lossy(p).into_owned(), ..Default::default() })
    }

    /// The section (None without POSIX_META records); `files` gives the
    /// POSIX side of the paths removed, `top` the rows of each table.
    pub fn finish(self, files: &Files, top: usize) -> Option<Namespace> {
        if self.records == 0 {
            return None;
        }
        let names = darshan_log::modules::counter_names(darshan_log::modules::POSIX_META).0;
        let operations: Vec<(String, i64)> = names.iter().zip(&self.totals).map(|(n, v)| (n.to_string(), *v)).collect();
        let t = |k: usize| self.totals[k];
        let sum = |ks: &[usize]| ks.iter().fold(0i64, |a, &k| a.saturating_add(t(k).max(0)));
        let namespace_ops = sum(&NAMESPACE);
        let attribute_ops = sum(&[
            c::TRUNCATES,
            c::FALLOCATES,
            c::CHMODS,
            c::CHOWNS,
            c::ACCESSES,
            c::READLINKS,
            c::UTIMES,
            c::XATTR_GETS,
            c::XATTR_SETS,
        ]);
        let mapping_ops = sum(&[c::MMAPS, c::MSYNCS, c::MUNMAPS]);
        let span = (self.end - self.start).max(0.0);
        let rate = if span > 0.0 { namespace_ops as f64 / span } else { 0.0 };
        let (rate_bins, bin_seconds) = rate_estimate(&self.spans, self.start, self.end);
        let peak_rate = rate_bins.iter().map(|b| b.1).fold(0.0, f64::max) / bin_seconds.max(f64::MIN_POSITIVE);
        let (dirs, relisted) = ranked_dirs(self.dirs, top);
        let (temporary_files, temporary_bytes_written, temporary_examples) = temporaries(&self.unlinked, files);
        Some(Namespace {
            operations,
            namespace_ops,
            attribute_ops,
            mapping_ops,
            time: self.time,
            start: self.start,
            end: self.end,
            rate,
            peak_rate,
            rate_bins,
            bin_seconds,
            busiest_dirs: dirs,
            temporary_files,
            temporary_bytes_written,
            temporary_examples,
            relisted_dirs: relisted,
            records: self.records,
        })
    }
}

/// The `top` directories with the most operations, and the `top` listed
/// more than once, most listings first.
fn ranked_dirs(dirs: HashMap<Vec<u8>, DirOps>, top: usize) -> (Vec<DirOps>, Vec<DirOps>) {
    let mut dirs: Vec<DirOps> = dirs.into_values().collect();
    dirs.sort_by(|a, b| b.ops.cmp(&a.ops).then(a.path.cmp(&b.path)));
    let mut relisted: Vec<DirOps> = dirs.iter().filter(|d| d.listings > 1).cloned().collect();
    relisted.sort_by(|a, b| b.listings.cmp(&a.listings).then(a.path.cmp(&b.path)));
    relisted.truncate(top);
    dirs.truncate(top);
    (dirs, relisted)
}

/// Temporary files: removed, and opened by the job (a POSIX record of the
/// same path: the ids are the same hash); how many, the bytes written to
/// them, and up to five of their names.
fn temporaries(unlinked: &[(u64, Vec<u8>)], files: &Files) -> (u64, i64, Vec<String>) {
    let mut count = 0;
    let mut bytes_written = 0i64;
    let mut examples = Vec::new();
    for (id, name) in unlinked {
        if let Some(f) = files.get(POSIX, *id) {
            count += 1;
            bytes_written = f.entry.w_bytes.max(0).saturating_add(bytes_written);
            if examples.len() < 5 {
                examples.push(String::from_utf8_lossy(name).into_owned());
            }
        }
    }
    (count, bytes_written, examples)
}

/// Namespace operations per bin, each record's spread evenly over its
/// [start, end] (all at once when the two are equal).
fn rate_estimate(spans: &[(f64, f64, f64)], t0: f64, t1: f64) -> (Vec<(f64, f64)>, f64) {
    let width = ((t1 - t0) / RATE_BINS as f64).max(1e-3);
    let mut bins = vec![0.0; RATE_BINS];
    for &(s, e, n) in spans {
        let (a, b) = (((s - t0) / width).max(0.0), ((e - t0) / width).max(0.0));
        let (ia, ib) = ((a as usize).min(RATE_BINS - 1), (b as usize).min(RATE_BINS - 1));
        if ia == ib || b <= a {
            bins[ia] += n;
            continue;
        }
        for (i, bin) in bins.iter_mut().enumerate().take(ib + 1).skip(ia) {
            let lo = a.max(i as f64);
            let hi = b.min(i as f64 + 1.0);
            if hi > lo {
                *bin += n * (hi - lo) / (b - a);
            }
        }
    }
    (bins.into_iter().enumerate().map(|(i, v)| (t0 + i as f64 * width, v)).collect(), width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_estimate_keeps_every_operation_and_spreads_it_over_its_span() {
        let (bins, w) = rate_estimate(&[(0.0, 10.0, 100.0), (5.0, 5.0, 7.0)], 0.0, 10.0);
        assert_eq!(w, 0.2);
        let total: f64 = bins.iter().map(|b| b.1).sum();
        assert!((total - 107.0).abs() < 1e-9, "{total}");
        assert!((bins[0].1 - 2.0).abs() < 1e-9);
        assert!((bins[25].1 - 9.0).abs() < 1e-9, "{}", bins[25].1);
    }

    #[test]
    fn entries_count_in_their_parent_and_listings_in_the_directory() {
        assert_eq!(parent(b"/a/b/c"), b"/a/b");
        assert_eq!(parent(b"/a"), b"/");
    }
}
