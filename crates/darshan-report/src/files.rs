//! Per-file view: every (module, file) pair's bytes, time and ranks, from
//! which the top tables, the rank imbalance of shared files and the
//! per-file diagnosis inputs come. One small entry per file, so memory
//! grows with files, not with records' size.

use std::collections::HashMap;

use darshan_log::modules::{self, module_name};
use darshan_log::{NameTable, Record};

use crate::layout::Layout;
use crate::model::FileRow;

#[derive(Debug, Clone)]
pub struct FileAgg {
    pub module: usize,
    pub id: u64,
    /// Records seen for this file from single ranks; -1 once a shared
    /// (rank −1) record is seen.
    pub ranks: i64,
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub io_time: f64,
    pub meta_time: f64,
    pub max_byte_read: i64,
    pub max_byte_written: i64,
    pub slowest: (i64, f64, i64),
    pub fastest: (i64, f64, i64),
    /// Reads and writes under 1 MiB (POSIX histogram buckets).
    pub small_reads: i64,
    pub small_writes: i64,
    pub reads: i64,
    pub writes: i64,
    /// MPI-IO: independent and collective reads and writes.
    pub indep_reads: i64,
    pub indep_writes: i64,
    pub coll_reads: i64,
    pub coll_writes: i64,
    /// Over this file's single-rank records: min and max bytes per rank
    /// written and read (Drishti P21/P22).
    pub rank_w: Option<(i64, i64)>,
    pub rank_r: Option<(i64, i64)>,
}

impl FileAgg {
    fn new(module: usize, id: u64) -> FileAgg {
        FileAgg {
            module,
            id,
            ranks: 0,
            bytes_read: 0,
            bytes_written: 0,
            io_time: 0.0,
            meta_time: 0.0,
            max_byte_read: -1,
            max_byte_written: -1,
            slowest: (-1, -1.0, 0),
            fastest: (-1, f64::INFINITY, 0),
            small_reads: 0,
            small_writes: 0,
            reads: 0,
            writes: 0,
            indep_reads: 0,
            indep_writes: 0,
            coll_reads: 0,
            coll_writes: 0,
            rank_w: None,
            rank_r: None,
        }
    }

    pub fn shared(&self) -> bool {
        self.ranks == -1 || self.ranks > 1
    }
}

/// Modules whose files the per-file view covers.
pub fn covered(module: usize) -> bool {
    matches!(
        module,
        modules::POSIX | modules::MPIIO | modules::STDIO | modules::H5D | modules::PNETCDF_VAR | modules::DFS | modules::DAOS
    )
}

/// Counter indices the per-file view reads beyond the layout's.
#[derive(Default, Clone)]
struct Extra {
    reads: Option<usize>,
    writes: Option<usize>,
    indep: Option<(usize, usize)>,
    coll: Option<(usize, usize)>,
    /// size buckets under 1 MiB: read and write counter indices
    small: Vec<(usize, usize)>,
}

#[derive(Default)]
pub struct Files {
    pub map: HashMap<(usize, u64), FileAgg>,
    extras: HashMap<usize, Extra>,
}

impl Files {
    pub fn add(&mut self, l: &Layout, r: &Record) {
        let extra = self.extras.entry(l.module).or_insert_with(|| Extra {
            reads: l.counter(&format!("{}_READS", l.prefix)),
            writes: l.counter(&format!("{}_WRITES", l.prefix)),
            indep: l.counter("MPIIO_INDEP_READS").zip(l.counter("MPIIO_INDEP_WRITES")),
            coll: l.counter("MPIIO_COLL_READS").zip(l.counter("MPIIO_COLL_WRITES")),
            small: if l.module == modules::POSIX {
                l.size_buckets.iter().take(5).map(|(_, r, w)| (*r, *w)).collect()
            } else {
                Vec::new()
            },
        });
        let c = |i: Option<usize>| i.and_then(|i| r.counters.get(i)).copied().unwrap_or(0);
        let f = |i: Option<usize>| i.and_then(|i| r.fcounters.get(i)).copied().unwrap_or(0.0);
        let e = self.map.entry((l.module, r.id)).or_insert_with(|| FileAgg::new(l.module, r.id));
        let (br, bw) = (c(l.bytes_read), c(l.bytes_written));
        let time = f(l.read_time) + f(l.write_time) + f(l.meta_time);
        e.bytes_read = e.bytes_read.wrapping_add(br);
        e.bytes_written = e.bytes_written.wrapping_add(bw);
        e.io_time += time;
        e.meta_time += f(l.meta_time);
        e.max_byte_read = e.max_byte_read.max(c(l.max_byte_read));
        e.max_byte_written = e.max_byte_written.max(c(l.max_byte_written));
        e.reads += c(extra.reads);
        e.writes += c(extra.writes);
        if let Some((ir, iw)) = extra.indep {
            e.indep_reads += r.counters[ir];
            e.indep_writes += r.counters[iw];
        }
        if let Some((cr, cw)) = extra.coll {
            e.coll_reads += r.counters[cr];
            e.coll_writes += r.counters[cw];
        }
        for &(sr, sw) in &extra.small {
            e.small_reads += r.counters[sr];
            e.small_writes += r.counters[sw];
        }
        if r.rank < 0 {
            e.ranks = -1;
            if l.slowest_rank.is_some() {
                e.slowest = (c(l.slowest_rank), f(l.f_slowest_time), c(l.slowest_rank_bytes));
                e.fastest = (c(l.fastest_rank), f(l.f_fastest_time), c(l.fastest_rank_bytes));
            } else {
                e.slowest = (-1, time, br + bw);
            }
        } else {
            if e.ranks >= 0 {
                e.ranks += 1;
            }
            if time > e.slowest.1 {
                e.slowest = (r.rank, time, br + bw);
            }
            if time < e.fastest.1 {
                e.fastest = (r.rank, time, br + bw);
            }
            let mm = |m: Option<(i64, i64)>, v: i64| Some(m.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
            e.rank_w = mm(e.rank_w, bw);
            e.rank_r = mm(e.rank_r, br);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &FileAgg> {
        self.map.values()
    }

    pub fn get(&self, module: usize, id: u64) -> Option<&FileAgg> {
        self.map.get(&(module, id))
    }
}

pub fn name_of(names: &NameTable, id: u64) -> String {
    names.get(id).map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_else(|| format!("<record {id}>"))
}

pub fn row(names: &NameTable, e: &FileAgg) -> FileRow {
    let fastest = if e.fastest.1.is_finite() { e.fastest } else { (-1, 0.0, 0) };
    let slowest = if e.slowest.1 >= 0.0 { e.slowest } else { (-1, 0.0, 0) };
    FileRow {
        name: name_of(names, e.id),
        module: module_name(e.module).to_string(),
        record_id: e.id,
        ranks: e.ranks,
        bytes_read: e.bytes_read,
        bytes_written: e.bytes_written,
        io_time: e.io_time,
        slowest_rank: slowest.0,
        slowest_rank_time: slowest.1,
        slowest_rank_bytes: slowest.2,
        fastest_rank: fastest.0,
        fastest_rank_time: fastest.1,
        fastest_rank_bytes: fastest.2,
        time_imbalance: (e.shared() && slowest.1 > 0.0).then(|| (slowest.1 - fastest.1).max(0.0) / slowest.1),
    }
}

/// The `n` largest entries by `key`, largest first (ties by record id).
pub fn top<'a>(files: &'a Files, n: usize, key: impl Fn(&FileAgg) -> f64) -> Vec<&'a FileAgg> {
    let mut v: Vec<(f64, &FileAgg)> = files.iter().map(|e| (key(e), e)).filter(|(k, _)| *k > 0.0).collect();
    let by = |a: &(f64, &FileAgg), b: &(f64, &FileAgg)| b.0.total_cmp(&a.0).then(a.1.id.cmp(&b.1.id));
    if v.len() > n {
        v.select_nth_unstable_by(n, by);
        v.truncate(n);
    }
    v.sort_by(by);
    v.into_iter().map(|(_, e)| e).collect()
}
