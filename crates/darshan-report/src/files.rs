//! Per-file view: every (module, file) pair's bytes, time and ranks, from
//! which the top tables, the rank imbalance of shared files and the
//! per-file diagnosis inputs come. One small entry per file, so memory
//! grows with files, not with records' size.

use std::collections::HashMap;

use darshan_log::counters::{mpiio, posix};
use darshan_log::modules::{self, module_name};
use darshan_log::{NameTable, Record};
use darshan_util::accum::{self, FileEntry};

use crate::model::FileRow;
use darshan_log::roles::{time_at, Roles};

#[derive(Debug, Clone)]
pub struct FileAgg {
    pub id: u64,
    pub module: usize,
    /// Bytes, darshan-util's max offset and process count (-1 once a
    /// shared record is seen), folded by the accumulator's own rules.
    pub entry: FileEntry,
    pub io_time: f64,
    pub max_byte_read: i64,
    pub max_byte_written: i64,
    pub reads: i64,
    pub writes: i64,
    /// (rank, seconds, bytes) of the slowest and fastest rank.
    pub slowest: (i64, f64, i64),
    pub fastest: (i64, f64, i64),
    pub detail: Detail,
}

/// (smallest, largest) of a value over a file's single-rank records.
pub type MinMax = (i64, i64);

/// What only some modules' files need.
#[derive(Debug, Clone, Default)]
pub enum Detail {
    #[default]
    None,
    Posix {
        /// Reads and writes in the buckets up to 1 MiB (Drishti's
        /// "small"), and of those at least how many were of exactly
        /// 1 MiB (`Roles::exactly_1mib`).
        small_reads: i64,
        small_writes: i64,
        mib: (i64, i64),
        /// Over the single-rank records: (min, max) bytes per rank
        /// written and read (Drishti P21/P22); None before the first.
        rank_w: Option<MinMax>,
        rank_r: Option<MinMax>,
        /// Requests not aligned to the file alignment, and that alignment
        /// (the largest of the file's records: st_blksize, or the stripe
        /// size where the runtime knows it).
        file_not_aligned: i64,
        file_alignment: i64,
    },
    Mpiio {
        indep_reads: i64,
        indep_writes: i64,
        coll_reads: i64,
        coll_writes: i64,
    },
}

impl FileAgg {
    fn new(module: usize, id: u64) -> FileAgg {
        let detail = match module {
            modules::POSIX => Detail::Posix {
                small_reads: 0,
                small_writes: 0,
                mib: (0, 0),
                rank_w: None,
                rank_r: None,
                file_not_aligned: 0,
                file_alignment: 0,
            },
            modules::MPIIO => Detail::Mpiio { indep_reads: 0, indep_writes: 0, coll_reads: 0, coll_writes: 0 },
            _ => Detail::None,
        };
        FileAgg {
            id,
            module,
            entry: FileEntry::default(),
            io_time: 0.0,
            max_byte_read: -1,
            max_byte_written: -1,
            reads: 0,
            writes: 0,
            slowest: (-1, -1.0, 0),
            fastest: (-1, f64::INFINITY, 0),
            detail,
        }
    }

    pub fn bytes_read(&self) -> i64 {
        self.entry.r_bytes
    }

    pub fn bytes_written(&self) -> i64 {
        self.entry.w_bytes
    }

    /// Processes with a record of the file; -1 when shared by all.
    pub fn ranks(&self) -> i64 {
        self.entry.nprocs
    }

    pub fn shared(&self) -> bool {
        self.entry.nprocs == -1 || self.entry.nprocs > 1
    }

    /// (slowest − fastest rank's time) / slowest rank's time, for shared
    /// files with recorded time.
    pub fn time_imbalance(&self) -> Option<f64> {
        let fastest = if self.fastest.1.is_finite() { self.fastest.1 } else { 0.0 };
        (self.shared() && self.slowest.1 > 0.0).then(|| (self.slowest.1 - fastest).max(0.0) / self.slowest.1)
    }

    /// (reads, writes) under 1 MiB: those of the small buckets not
    /// known to be of exactly 1 MiB.
    pub fn small(&self) -> (i64, i64) {
        let ((r, w), (mr, mw)) = (self.small_bucketed(), self.exactly_1mib());
        (r.saturating_sub(mr), w.saturating_sub(mw))
    }

    /// (reads, writes) in the access-size buckets up to 1 MiB: what
    /// Drishti counts as small.
    pub fn small_bucketed(&self) -> (i64, i64) {
        match self.detail {
            Detail::Posix { small_reads, small_writes, .. } => (small_reads, small_writes),
            _ => (0, 0),
        }
    }

    /// (reads, writes) of the small buckets known to be of exactly 1 MiB.
    pub fn exactly_1mib(&self) -> (i64, i64) {
        match self.detail {
            Detail::Posix { mib, .. } => mib,
            _ => (0, 0),
        }
    }

    /// Over the single-rank records: (min, max) bytes written, then read.
    pub fn rank_extremes(&self) -> (Option<MinMax>, Option<MinMax>) {
        match self.detail {
            Detail::Posix { rank_w, rank_r, .. } => (rank_w, rank_r),
            _ => (None, None),
        }
    }

    /// (requests not aligned to the file alignment, that alignment).
    pub fn file_alignment(&self) -> (i64, i64) {
        match self.detail {
            Detail::Posix { file_not_aligned, file_alignment, .. } => (file_not_aligned, file_alignment),
            _ => (0, 0),
        }
    }

    /// Bytes read beyond the file's extent (the highest offset read + 1):
    /// data read more than once. Sparse reads (gaps) never count.
    pub fn reread_bytes(&self) -> i64 {
        (self.bytes_read() - (self.max_byte_read + 1)).max(0)
    }

    /// Bytes written beyond the file's extent: data written more than once.
    pub fn rewritten_bytes(&self) -> i64 {
        (self.bytes_written() - (self.max_byte_written + 1)).max(0)
    }

    /// (independent reads, independent writes, collective reads, collective writes)
    pub fn mpiio_ops(&self) -> (i64, i64, i64, i64) {
        match self.detail {
            Detail::Mpiio { indep_reads, indep_writes, coll_reads, coll_writes } => {
                (indep_reads, indep_writes, coll_reads, coll_writes)
            }
            _ => (0, 0, 0, 0),
        }
    }
}

/// Modules whose files the per-file view covers.
pub fn covered(module: usize) -> bool {
    matches!(
        module,
        modules::POSIX
            | modules::MPIIO
            | modules::STDIO
            | modules::H5D
            | modules::PNETCDF_VAR
            | modules::DFS
            | modules::DAOS
    )
}

/// One module's files in the order first seen, and where each id's is.
/// The entries are a vector, not a map's values: a vector grows in place
/// (a large one is remapped, not copied), where a map's rehash holds the
/// old and the new table at once (a log of 115,000 files took 92 MB).
#[derive(Default)]
struct Table {
    at: HashMap<u64, usize>,
    entries: Vec<FileAgg>,
}

/// Every covered module's files, one table per module keyed by record id.
#[derive(Default)]
pub struct Files {
    maps: Vec<(usize, Table)>,
    /// Entries to reserve in a module's map on its first record.
    pub expect: usize,
}

impl Files {
    /// Module `module`'s entry of file `id`, made at its first record.
    fn entry(&mut self, module: usize, id: u64) -> &mut FileAgg {
        let i = match self.maps.iter().position(|(m, _)| *m == module) {
            Some(i) => i,
            None => {
                let t = Table { at: HashMap::with_capacity(self.expect), entries: Vec::with_capacity(self.expect) };
                self.maps.push((module, t));
                self.maps.len() - 1
            }
        };
        let t = &mut self.maps[i].1;
        let k = *t.at.entry(id).or_insert_with(|| {
            t.entries.push(FileAgg::new(module, id));
            t.entries.len() - 1
        });
        &mut t.entries[k]
    }

    pub fn add(&mut self, l: &Roles, r: &Record) {
        let c = |i: Option<usize>| i.and_then(|i| r.counters.get(i)).copied().unwrap_or(0);
        let e = self.entry(l.module, r.id);
        let (br, bw) = (c(l.bytes_read), c(l.bytes_written));
        e.entry.add(br, bw, accum::max_offset(l.module, r), r.rank);
        let time = l.io_time(r);
        e.io_time += time;
        e.max_byte_read = e.max_byte_read.max(c(l.max_byte_read));
        e.max_byte_written = e.max_byte_written.max(c(l.max_byte_written));
        e.reads += c(l.reads);
        e.writes += c(l.writes);
        match &mut e.detail {
            Detail::Mpiio { indep_reads, indep_writes, coll_reads, coll_writes } => {
                *indep_reads += r.counters[mpiio::INDEP_READS];
                *indep_writes += r.counters[mpiio::INDEP_WRITES];
                *coll_reads += r.counters[mpiio::COLL_READS];
                *coll_writes += r.counters[mpiio::COLL_WRITES];
            }
            Detail::Posix { small_reads, small_writes, mib, rank_w, rank_r, file_not_aligned, file_alignment } => {
                *file_not_aligned += r.counters.get(posix::FILE_NOT_ALIGNED).copied().unwrap_or(0);
                *file_alignment = (*file_alignment).max(r.counters.get(posix::FILE_ALIGNMENT).copied().unwrap_or(0));
                for &(sr, sw) in &l.small {
                    *small_reads += r.counters[sr];
                    *small_writes += r.counters[sw];
                }
                let (mr, mw) = l.exactly_1mib(r);
                *mib = (mib.0.saturating_add(mr), mib.1.saturating_add(mw));
                if r.rank >= 0 {
                    let mm = |m: Option<(i64, i64)>, v: i64| Some(m.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
                    *rank_w = mm(*rank_w, bw);
                    *rank_r = mm(*rank_r, br);
                }
            }
            Detail::None => {}
        }
        if r.rank < 0 {
            if l.slowest_rank.is_some() {
                e.slowest = (c(l.slowest_rank), time_at(r, l.f_slowest_time), c(l.slowest_rank_bytes));
                e.fastest = (c(l.fastest_rank), time_at(r, l.f_fastest_time), c(l.fastest_rank_bytes));
            } else {
                e.slowest = (-1, time, br + bw);
            }
        } else {
            if time > e.slowest.1 {
                e.slowest = (r.rank, time, br + bw);
            }
            if time < e.fastest.1 {
                e.fastest = (r.rank, time, br + bw);
            }
        }
    }

    /// One module's files, as the accumulator's entries.
    pub fn entries(&self, module: usize) -> impl Iterator<Item = FileEntry> + '_ {
        self.of(module).map(|e| e.entry)
    }

    pub fn iter(&self) -> impl Iterator<Item = &FileAgg> {
        self.maps.iter().flat_map(|(_, t)| t.entries.iter())
    }

    pub fn of(&self, module: usize) -> impl Iterator<Item = &FileAgg> {
        self.maps.iter().filter(move |(m, _)| *m == module).flat_map(|(_, t)| t.entries.iter())
    }

    pub fn get(&self, module: usize, id: u64) -> Option<&FileAgg> {
        let t = &self.maps.iter().find(|(m, _)| *m == module)?.1;
        t.at.get(&id).map(|&k| &t.entries[k])
    }
}

pub fn name_of(names: &NameTable, id: u64) -> String {
    names.get(id).map(|n| String::from_utf8_lossy(n).into_owned()).unwrap_or_else(|| format!("<record {id}>"))
}

/// A file's table row; `nprocs` the job's size (a file every rank shared
/// is said to have that many ranks, and `all_ranks`).
pub fn row(names: &NameTable, e: &FileAgg, nprocs: i64) -> FileRow {
    let fastest = if e.fastest.1.is_finite() { e.fastest } else { (-1, 0.0, 0) };
    let slowest = if e.slowest.1 >= 0.0 { e.slowest } else { (-1, 0.0, 0) };
    let all_ranks = e.ranks() == -1;
    FileRow {
        name: name_of(names, e.id),
        module: module_name(e.module).to_string(),
        record_id: e.id,
        ranks: if all_ranks { nprocs.max(1) } else { e.ranks().max(0) },
        all_ranks,
        bytes_read: e.bytes_read(),
        bytes_written: e.bytes_written(),
        io_time: e.io_time,
        slowest_rank: Some(slowest.0).filter(|r| *r >= 0),
        slowest_rank_time: slowest.1,
        slowest_rank_bytes: slowest.2.max(0),
        fastest_rank: Some(fastest.0).filter(|r| *r >= 0),
        fastest_rank_time: fastest.1,
        fastest_rank_bytes: fastest.2.max(0),
        time_imbalance: e.time_imbalance(),
    }
}

/// The `n` largest entries by `key`, largest first (ties by record id).
pub fn top(files: &Files, n: usize, key: impl Fn(&FileAgg) -> f64) -> Vec<&FileAgg> {
    let mut v: Vec<(f64, &FileAgg)> = files.iter().map(|e| (key(e), e)).filter(|(k, _)| *k > 0.0).collect();
    // A file's records of two modules (POSIX and MPI-IO) share its id:
    // the module breaks that tie, else their order was the hash map's,
    // and one log's report differed from run to run.
    let by = |a: &(f64, &FileAgg), b: &(f64, &FileAgg)| {
        b.0.total_cmp(&a.0).then(a.1.id.cmp(&b.1.id)).then(a.1.module.cmp(&b.1.module))
    };
    if v.len() > n {
        v.select_nth_unstable_by(n, by);
        v.truncate(n);
    }
    v.sort_by(by);
    v.into_iter().map(|(_, e)| e).collect()
}
