//! The files a change is in: a file new in this run, one the earlier
//! runs used and this one did not, one whose access sizes, bytes or time
//! moved. Files are matched from run to run by name with their numbers
//! as `#` (words::pattern), per module; software the job loaded is not
//! the application's I/O and is left out.

use std::collections::{BTreeMap, HashMap};

use darshan_ingest::facts::FileFacts;
use darshan_log::modules::module_name;

use crate::judge::{self, Band, Kind, Scale};
use crate::model::FileNote;
use crate::words;

/// Notes per kind at most (the largest first).
pub const MAX_NOTES: usize = 10;

type ByPattern = HashMap<(usize, String), FileFacts>;

/// One run's files by (module, pattern), a series' files summed.
pub fn by_pattern(files: &[FileFacts]) -> ByPattern {
    let mut out: ByPattern = HashMap::new();
    for f in files.iter().filter(|f| darshan_log::software::software_loading(&f.name).is_none()) {
        // The first file of a pattern starts its entry with nothing
        // counted: every file, the first too, is added below.
        let e = out.entry((f.module, words::pattern(&f.name))).or_insert_with(|| FileFacts {
            module: f.module,
            name: f.name.clone(),
            rank: f.rank,
            buckets: f.buckets.iter().map(|(l, _, _)| (l.clone(), 0.0, 0.0)).collect(),
            ..Default::default()
        });
        if e.rank != f.rank {
            e.rank = -1;
        }
        if e.name != f.name {
            e.name = words::pattern(&f.name);
        }
        e.bytes_read += f.bytes_read;
        e.bytes_written += f.bytes_written;
        e.time += f.time;
        for (b, x) in e.buckets.iter_mut().zip(&f.buckets) {
            b.1 += x.1;
            b.2 += x.2;
        }
    }
    out
}

/// The notes, each kind largest first.
pub fn notes(now: &ByPattern, earlier: &[ByPattern], scale: Scale) -> Vec<FileNote> {
    let mut found: BTreeMap<&str, Vec<(f64, FileNote)>> = BTreeMap::new();
    let n = earlier.len();
    for (key, f) in now {
        let seen: Vec<&FileFacts> = earlier.iter().filter_map(|r| r.get(key)).collect();
        if seen.is_empty() {
            let said = format!("new in this run: {}", amounts(f));
            found.entry("new").or_default().push((f.bytes_read + f.bytes_written, note(f, "new", said)));
            continue;
        }
        for (what, weight, said) in changes(f, &seen, scale) {
            found.entry(what).or_default().push((weight, note(f, what, said)));
        }
    }
    for (key, f) in earlier.iter().flat_map(|r| r.iter()) {
        let runs = earlier.iter().filter(|r| r.contains_key(key)).count();
        if !now.contains_key(key)
            && 2 * runs >= n
            && !found.get("gone").is_some_and(|g| g.iter().any(|x| x.1.name == f.name))
        {
            let said = format!("not used in this run; used in {runs} of the {n} earlier runs");
            found.entry("gone").or_default().push((runs as f64, note(f, "gone", said)));
        }
    }
    let mut out = Vec::new();
    for (_, mut v) in found {
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        out.extend(v.into_iter().take(MAX_NOTES).map(|x| x.1));
    }
    out
}

fn note(f: &FileFacts, what: &str, said: String) -> FileNote {
    FileNote { module: module_name(f.module).to_string(), name: f.name.clone(), what: what.into(), rank: f.rank, said }
}

fn amounts(f: &FileFacts) -> String {
    let who = if f.rank < 0 { "shared by ranks".to_string() } else { format!("by rank {}", f.rank) };
    match (f.bytes_read > 0.0, f.bytes_written > 0.0) {
        (true, true) => format!(
            "{} read, {} written, {who}",
            words::value(Kind::Bytes, f.bytes_read),
            words::value(Kind::Bytes, f.bytes_written)
        ),
        (true, false) => format!("{} read {who}", words::value(Kind::Bytes, f.bytes_read)),
        (false, true) => format!("{} written {who}", words::value(Kind::Bytes, f.bytes_written)),
        (false, false) => format!("opened {who}, no data"),
    }
}

/// How a file seen before differs: its usual access size, its bytes,
/// its time; (kind, weight for ordering, words).
fn changes(f: &FileFacts, seen: &[&FileFacts], scale: Scale) -> Vec<(&'static str, f64, String)> {
    // A file one rank used sums one rank's time; a shared one, up to all.
    let scale = if f.rank >= 0 { scale.one_rank() } else { scale };
    let mut out = Vec::new();
    for (writes, verb) in [(false, "reads"), (true, "writes")] {
        let Some(now) = f.usual_bucket(writes) else { continue };
        let before: Vec<&str> = seen.iter().filter_map(|s| s.usual_bucket(writes)).collect();
        let Some((usual, count)) = judge::mode(&before) else { continue };
        if now != usual {
            let ops: f64 = f.buckets.iter().map(|b| if writes { b.2 } else { b.1 }).sum();
            let said = format!(
                "{verb} mostly {} now; {} in {count} of the {} earlier runs that used it",
                words::bucket(now),
                words::bucket(usual),
                seen.len()
            );
            out.push(("sizes", ops, said));
        }
    }
    for (what, get, kind) in [
        ("bytes", (|x: &FileFacts| x.bytes_written) as fn(&FileFacts) -> f64, "written"),
        ("bytes", |x: &FileFacts| x.bytes_read, "read"),
    ] {
        let band = Band::of(&seen.iter().map(|s| get(s)).collect::<Vec<_>>(), Kind::Bytes, scale);
        if band.moved(get(f)) {
            let said = format!(
                "{} {kind} now, usually {}",
                words::value(Kind::Bytes, get(f)),
                words::value(Kind::Bytes, band.median)
            );
            out.push((what, (get(f) - band.median).abs(), said));
        }
    }
    let band = Band::of(&seen.iter().map(|s| s.time).collect::<Vec<_>>(), Kind::Time, scale);
    if f.time > band.high {
        let said = format!(
            "{} in I/O now, usually {}",
            words::value(Kind::Time, f.time),
            words::value(Kind::Time, band.median)
        );
        out.push(("slower", f.time - band.median, said));
    }
    out
}

/// The earlier runs' median run time and process count (for the time
/// floor).
pub fn scale(runs: &[crate::model::Run]) -> Scale {
    let times: Vec<f64> = runs.iter().map(|r| r.run_time).collect();
    Scale::of_runs(&times, &runs.iter().map(|r| r.nprocs as f64).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, rank: i64, written: f64) -> FileFacts {
        FileFacts {
            module: darshan_log::modules::POSIX,
            name: name.into(),
            rank,
            bytes_written: written,
            buckets: vec![("100K_1M".into(), 0.0, 1.0)],
            ..Default::default()
        }
    }

    /// A file's bytes were counted twice: its entry started from its own
    /// figures and then had them added.
    #[test]
    fn a_series_sums_its_files_once_each() {
        let one = by_pattern(&[file("/d/out.dat", 0, 100.0)]);
        assert_eq!(one.values().next().map(|f| (f.bytes_written, f.buckets[0].2)), Some((100.0, 1.0)));
        let series = by_pattern(&[file("/d/rank0.dat", 0, 100.0), file("/d/rank1.dat", 1, 50.0)]);
        let f = series.values().next().unwrap();
        assert_eq!((series.len(), f.bytes_written, f.rank, f.name.as_str()), (1, 150.0, -1, "/d/rank#.dat"));
    }
}
