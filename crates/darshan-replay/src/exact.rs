//! `--exact`: a DXT log's POSIX segments replayed as they were: one fio
//! job per rank reading its iolog (fio's `read_iolog`, format version 2),
//! every read and write at its offset and length, in the order the rank
//! made them, with no waiting between them (`replay_no_stall`).

use std::collections::BTreeMap;
use std::fmt::Write;

use darshan_log::modules::DXT_POSIX;
use darshan_log::{Extra, LogFile, Record};

/// One segment: (start time, file index, write?, offset, length).
type Seg = (f64, usize, bool, i64, i64);

/// The files the trace touches (original names, in first-seen order)
/// and each rank's segments in time order.
pub struct Trace {
    pub files: Vec<String>,
    /// Each file's extent (largest offset + length).
    pub extents: Vec<u64>,
    pub ranks: BTreeMap<i64, Vec<Seg>>,
}

pub fn trace(log: &LogFile) -> Result<Trace, darshan_log::LogError> {
    let names = log.names()?;
    let mut t = Trace { files: Vec::new(), extents: Vec::new(), ranks: BTreeMap::new() };
    if log.header.mod_map[DXT_POSIX].len == 0 {
        return Ok(t);
    }
    let mut index: BTreeMap<u64, usize> = BTreeMap::new();
    let mut rd = log.module_reader(DXT_POSIX)?;
    let mut rec = Record::new(DXT_POSIX);
    while rd.next_into(&mut rec)? {
        let Extra::Dxt { writes, reads, .. } = &rec.extra else { continue };
        let f = *index.entry(rec.id).or_insert_with(|| {
            t.files.push(
                names
                    .get(rec.id)
                    .map_or_else(|| format!("{:016x}", rec.id), |n| String::from_utf8_lossy(n).into_owned()),
            );
            t.extents.push(0);
            t.files.len() - 1
        });
        let segs = t.ranks.entry(rec.rank).or_default();
        for (w, list) in [(true, writes), (false, reads)] {
            for s in list {
                segs.push((s.start_time, f, w, s.offset.max(0), s.length.max(0)));
                t.extents[f] = t.extents[f].max((s.offset.max(0) + s.length.max(0)) as u64);
            }
        }
    }
    for segs in t.ranks.values_mut() {
        segs.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Ok(t)
}

/// The replay's names of the trace's files, by index: in `dir`, each
/// base name with what an iolog line cannot hold made `_`.
pub fn replay_names(dir: &str, t: &Trace) -> Vec<String> {
    let name = |(i, f): (usize, &String)| {
        let base = f.rsplit('/').next().unwrap_or("file");
        let clean: String =
            base.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
        format!("{dir}/x{i}-{clean}")
    };
    t.files.iter().enumerate().map(name).collect()
}

/// Rank `rank`'s iolog, the files named by [`replay_names`].
pub fn iolog(names: &[String], t: &Trace, rank: i64) -> String {
    let mut o = String::from("fio version 2 iolog\n");
    let segs = t.ranks.get(&rank).map(Vec::as_slice).unwrap_or_default();
    let mut used: Vec<usize> = segs.iter().map(|s| s.1).collect();
    used.sort_unstable();
    used.dedup();
    for f in &used {
        let n = &names[*f];
        let _ = writeln!(o, "{n} add\n{n} open");
    }
    for (_, f, w, off, len) in segs {
        let _ = writeln!(o, "{} {} {off} {len}", names[*f], if *w { "write" } else { "read" });
    }
    for f in &used {
        let _ = writeln!(o, "{} close", names[*f]);
    }
    o
}

/// The job file: one job per rank, each replaying its iolog.
pub fn job_file(log_name: &str, t: &Trace, iologs: &BTreeMap<i64, String>) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "; darshan-replay --exact of {log_name}: every DXT_POSIX segment, in each rank's order,");
    let _ = writeln!(o, "; at its offset and length, with no waiting between them (replay_no_stall).");
    let _ = writeln!(o, "; Not reproduced: the time between requests, MPI-IO's own segments (their POSIX ones are).");
    // One process per rank, as the job had.
    let _ = writeln!(o, "\n[global]\nioengine=psync\nreplay_no_stall=1");
    for (rank, path) in iologs {
        let n = t.ranks.get(rank).map_or(0, Vec::len);
        let _ = writeln!(o, "\n; rank {rank}: {n} segments\n[rank{rank}]\nread_iolog={path}");
    }
    o
}
