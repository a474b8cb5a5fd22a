//! Per-module statistics, PyDarshan's summary sections: overview and file
//! counts (darshan-util's accumulator), access pattern, access sizes,
//! common access sizes, operation counts; and the I/O cost per interface.

use std::collections::HashMap;

use darshan_log::modules::{self, counter_names, module_name};
use darshan_log::Record;
use darshan_util::accum::{self, Accumulator};

use crate::model::{AccessPattern, FileCategory, IoCost, ModuleStats, Overview};
use darshan_log::roles::{recorded_time, Roles};

/// Everything summed over one module's records.
pub struct ModuleSums {
    pub layout: Roles,
    pub records: u64,
    /// Σ of every counter over all records (PyDarshan's `agg_ioops`).
    pub counters: Vec<i64>,
    /// Per counter: every record so far holds −1, which is how C Darshan
    /// writes a counter it does not record (POSIX_MMAPS in 3.x logs): its
    /// sum is meaningless and is shown as "not recorded".
    unrecorded: Vec<bool>,
    /// Σ of read, write, meta, wait time over all records, of the values
    /// that are times (`darshan_log::roles::recorded_time`).
    pub times: [f64; 4],
    /// Per time: some record held a time there (not only C's −1 "not
    /// recorded", nor no such counter).
    timed: [bool; 4],
    common: HashMap<i64, i64>,
    accum: Option<Accumulator>,
}

impl ModuleSums {
    /// Whether counter `k` was not recorded by the runtime that wrote the
    /// log (−1 in every record).
    pub fn not_recorded(&self, k: usize) -> bool {
        self.records > 0 && self.unrecorded.get(k).copied().unwrap_or(false)
    }

    pub fn new(module: usize, nprocs: i64) -> Option<ModuleSums> {
        let mut s = ModuleSums::bare(module)?;
        s.accum = Accumulator::without_files(module, nprocs);
        Some(s)
    }

    /// The sums alone, without the accumulator's per-rank figures: for
    /// records summed apart (`app_sums::LeftOut`).
    pub fn bare(module: usize) -> Option<ModuleSums> {
        let layout = Roles::of(module)?;
        let n = counter_names(module).0.len();
        Some(ModuleSums {
            layout,
            records: 0,
            counters: vec![0; n],
            unrecorded: vec![true; n],
            times: [0.0; 4],
            timed: [false; 4],
            common: HashMap::new(),
            accum: None,
        })
    }

    /// These sums less `part`'s, records summed apart from the same
    /// stream: counters exact (they were added wrapping), times to
    /// rounding. The rules read it; it has no tables (no accumulator,
    /// no common access sizes).
    pub fn minus(&self, part: &ModuleSums) -> ModuleSums {
        let mut out = ModuleSums {
            layout: self.layout.clone(),
            records: self.records.saturating_sub(part.records),
            counters: self.counters.clone(),
            unrecorded: self.unrecorded.clone(),
            times: self.times,
            timed: self.timed,
            common: HashMap::new(),
            accum: None,
        };
        for (s, v) in out.counters.iter_mut().zip(&part.counters) {
            *s = s.wrapping_sub(*v);
        }
        for (t, v) in out.times.iter_mut().zip(part.times) {
            *t = (*t - v).max(0.0);
        }
        out
    }

    pub fn add(&mut self, r: &Record) {
        if r.counters.len() != self.counters.len() {
            return;
        }
        self.records += 1;
        let module = self.layout.module;
        for (k, ((s, v), u)) in self.counters.iter_mut().zip(&r.counters).zip(self.unrecorded.iter_mut()).enumerate() {
            // A "not recorded" -1 beside counts (our runtime's POSIX_MMAPS
            // for a file never mapped) adds nothing to them; an old C
            // runtime's shared record summed its ranks' (roles.rs).
            let unrecorded = darshan_log::roles::not_recorded(module, k, *v);
            if !unrecorded {
                *s = s.wrapping_add(*v);
            }
            *u &= unrecorded || *v == -1;
        }
        let l = &self.layout;
        for (k, idx) in [l.read_time, l.write_time, l.meta_time, l.wait_time].iter().enumerate() {
            if let Some(v) = idx.and_then(|i| r.fcounters.get(i)).and_then(|v| recorded_time(*v)) {
                self.times[k] += v;
                self.timed[k] = true;
            }
        }
        for &(a, n) in &l.access {
            let (size, count) = (r.counters[a], r.counters[n]);
            if size != 0 || count != 0 {
                *self.common.entry(size).or_default() += count;
            }
        }
        if let Some(acc) = self.accum.as_mut() {
            acc.inject(r);
        }
    }

    /// Σ of one counter by name (0 if the module has no such counter).
    pub fn sum(&self, name: &str) -> i64 {
        self.layout.counter(name).map_or(0, |i| self.counters[i])
    }

    /// Σ reads and writes under 1 MiB (the histogram's small buckets).
    pub fn small(&self) -> (i64, i64) {
        self.layout.small.iter().fold((0, 0), |(r, w), &(a, b)| (r + self.counters[a], w + self.counters[b]))
    }

    /// The module's figures; file categories come from `files`' entries
    /// (the accumulator keeps none, so a big log's files are held once).
    pub fn stats(&self, files: &crate::files::Files) -> ModuleStats {
        let name = module_name(self.layout.module);
        let section = match self.layout.module {
            modules::H5F | modules::H5D => "HDF5".to_string(),
            modules::PNETCDF_FILE | modules::PNETCDF_VAR => "PNETCDF".to_string(),
            _ => name.to_string(),
        };
        let mut common: Vec<(i64, i64)> = self.common.iter().map(|(&s, &c)| (s, c)).collect();
        // Most frequent first; equal counts by size so the order is stable.
        common.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        common.truncate(4);
        ModuleStats {
            module: name.to_string(),
            section,
            records: self.records,
            overview: self.accum.as_ref().map(|a| {
                let mut o = overview(&a.metrics_with(files.entries(self.layout.module)));
                o.sizes_recorded = self.layout.max_byte_read.is_some() || self.layout.max_byte_written.is_some();
                o
            }),
            access_pattern: (self.layout.module == modules::POSIX).then(|| AccessPattern {
                reads: self.sum("POSIX_READS"),
                seq_reads: self.sum("POSIX_SEQ_READS"),
                consec_reads: self.sum("POSIX_CONSEC_READS"),
                writes: self.sum("POSIX_WRITES"),
                seq_writes: self.sum("POSIX_SEQ_WRITES"),
                consec_writes: self.sum("POSIX_CONSEC_WRITES"),
            }),
            access_sizes: self
                .layout
                .size_buckets
                .iter()
                .map(|(label, r, w)| (label.clone(), self.counters[*r], self.counters[*w]))
                .collect(),
            common_access: if self.layout.access.is_empty() { Vec::new() } else { common },
            op_counts: Vec::new(),
            not_recorded: Vec::new(),
        }
    }
}

fn overview(m: &accum::Metrics) -> Overview {
    const KINDS: [&str; 7] = ["total", "read-only", "write-only", "read/write", "unique", "shared", "partially shared"];
    Overview {
        files: m.categories[accum::ALL].count,
        bytes_read: m.categories[accum::ALL].total_read,
        bytes_written: m.categories[accum::ALL].total_write,
        total_bytes: m.total_bytes,
        agg_perf_by_slowest: m.agg_perf_by_slowest,
        agg_time_by_slowest: m.agg_time_by_slowest,
        unique_io_total_time_by_slowest: m.unique_io_total_time_by_slowest,
        unique_rw_only_time_by_slowest: m.unique_rw_only_time_by_slowest,
        unique_md_only_time_by_slowest: m.unique_md_only_time_by_slowest,
        unique_io_slowest_rank: m.unique_io_slowest_rank,
        shared_io_total_time_by_slowest: m.shared_io_total_time_by_slowest,
        sizes_recorded: true,
        categories: m
            .categories
            .iter()
            .zip(KINDS)
            .map(|(c, kind)| FileCategory {
                kind: kind.to_string(),
                count: c.count,
                total_read: c.total_read,
                total_write: c.total_write,
                max_read: c.max_read,
                max_write: c.max_write,
                total_max_offset: c.total_max_offset,
                max_offset: c.max_offset,
                avg_size: if c.count > 0 { (c.total_max_offset as f64 + c.count as f64) / c.count as f64 } else { 0.0 },
                max_size: if c.count > 0 { c.max_offset.wrapping_add(1) } else { 0 },
            })
            .collect(),
    }
}

/// PyDarshan's operation-count bars for a module, from the sums of every
/// module present (HDF5 and PnetCDF bars combine their two modules).
/// Bars whose every counter the runtime did not record are left out and
/// returned apart, by label (shown as "not recorded", never summed).
pub fn op_counts(module: usize, all: &[ModuleSums]) -> (Vec<(String, i64)>, Vec<String>) {
    // Counter names are unique across modules: a bar's counter is found in
    // whichever module has it (0 when that module is absent).
    let get = |n: &str| all.iter().find_map(|s| s.layout.counter(n).map(|i| s.counters[i])).unwrap_or(0);
    let unrecorded = |n: &str| all.iter().find_map(|s| s.layout.counter(n).map(|i| s.not_recorded(i))).unwrap_or(false);
    let bars = op_bars(module);
    let (shown, unknown): (Vec<_>, Vec<_>) = bars.iter().partition(|(_, parts)| !parts.iter().all(|n| unrecorded(n)));
    (
        shown
            .iter()
            .map(|(label, parts)| (label.to_string(), parts.iter().filter(|n| !unrecorded(n)).map(|n| get(n)).sum()))
            .collect(),
        unknown.iter().map(|(label, _)| label.to_string()).collect(),
    )
}

/// PyDarshan's operation-count bars of a module: each a label and the
/// counters it sums.
type Bars = &'static [(&'static str, &'static [&'static str])];

fn op_bars(module: usize) -> Bars {
    match module {
        modules::POSIX => POSIX_BARS,
        modules::MPIIO => MPIIO_BARS,
        modules::STDIO => STDIO_BARS,
        modules::H5F | modules::H5D => HDF5_BARS,
        modules::PNETCDF_FILE | modules::PNETCDF_VAR => PNETCDF_BARS,
        modules::DFS => DFS_BARS,
        modules::DAOS => DAOS_BARS,
        _ => &[],
    }
}

const POSIX_BARS: Bars = &[
    ("Read", &["POSIX_READS"]),
    ("Write", &["POSIX_WRITES"]),
    ("Open", &["POSIX_OPENS"]),
    ("Stat", &["POSIX_STATS"]),
    ("Seek", &["POSIX_SEEKS"]),
    // PyDarshan plots 0 here ("faulty?"); we show the real count.
    ("Mmap", &["POSIX_MMAPS"]),
    ("Fsync", &["POSIX_FSYNCS", "POSIX_FDSYNCS"]),
];

const MPIIO_BARS: Bars = &[
    ("Ind. Read", &["MPIIO_INDEP_READS"]),
    ("Ind. Write", &["MPIIO_INDEP_WRITES"]),
    ("Ind. Open", &["MPIIO_INDEP_OPENS"]),
    ("Col. Read", &["MPIIO_COLL_READS"]),
    ("Col. Write", &["MPIIO_COLL_WRITES"]),
    ("Col. Open", &["MPIIO_COLL_OPENS"]),
    ("Sync", &["MPIIO_SYNCS"]),
];

const STDIO_BARS: Bars = &[
    ("Read", &["STDIO_READS"]),
    ("Write", &["STDIO_WRITES"]),
    ("Open", &["STDIO_OPENS"]),
    ("Seek", &["STDIO_SEEKS"]),
    ("Flush", &["STDIO_FLUSHES"]),
];

const HDF5_BARS: Bars = &[
    ("H5D Read", &["H5D_READS"]),
    ("H5D Write", &["H5D_WRITES"]),
    ("H5D Open", &["H5D_OPENS"]),
    ("H5D Flush", &["H5D_FLUSHES"]),
    ("H5F Open", &["H5F_OPENS"]),
    ("H5F Flush", &["H5F_FLUSHES"]),
];

const PNETCDF_BARS: Bars = &[
    ("Var Ind Read", &["PNETCDF_VAR_INDEP_READS"]),
    ("Var Ind Write", &["PNETCDF_VAR_INDEP_WRITES"]),
    ("Var Open", &["PNETCDF_VAR_OPENS"]),
    ("Var Coll Read", &["PNETCDF_VAR_COLL_READS"]),
    ("Var Coll Write", &["PNETCDF_VAR_COLL_WRITES"]),
    ("Var NB Read", &["PNETCDF_VAR_NB_READS"]),
    ("Var NB Write", &["PNETCDF_VAR_NB_WRITES"]),
    ("File Open", &["PNETCDF_FILE_OPENS", "PNETCDF_FILE_CREATES"]),
    ("File Sync", &["PNETCDF_FILE_SYNCS"]),
    ("File Ind Waits", &["PNETCDF_FILE_INDEP_WAITS"]),
    ("File Coll Waits", &["PNETCDF_FILE_COLL_WAITS"]),
];

const DFS_BARS: Bars = &[
    ("Read", &["DFS_READS"]),
    ("Readx", &["DFS_READXS"]),
    ("Write", &["DFS_WRITES"]),
    ("Writex", &["DFS_WRITEXS"]),
    ("Open", &["DFS_OPENS"]),
    ("GlobalOpen", &["DFS_GLOBAL_OPENS"]),
    ("Lookup", &["DFS_LOOKUPS"]),
    ("GetSize", &["DFS_GET_SIZES"]),
    ("Punch", &["DFS_PUNCHES"]),
    ("Remove", &["DFS_REMOVES"]),
    ("Stat", &["DFS_STATS"]),
];

const DAOS_BARS: Bars = &[
    ("ObjFetch", &["DAOS_OBJ_FETCHES"]),
    ("ObjUpdate", &["DAOS_OBJ_UPDATES"]),
    ("ObjOpen", &["DAOS_OBJ_OPENS"]),
    ("ObjPunch", &["DAOS_OBJ_PUNCHES"]),
    ("ObjDkeyPunch", &["DAOS_OBJ_DKEY_PUNCHES"]),
    ("ObjAkeyPunch", &["DAOS_OBJ_AKEY_PUNCHES"]),
    ("ObjDkeyList", &["DAOS_OBJ_DKEY_LISTS"]),
    ("ObjAkeyList", &["DAOS_OBJ_AKEY_LISTS"]),
    ("ObjRecxList", &["DAOS_OBJ_RECX_LISTS"]),
    ("ArrRead", &["DAOS_ARRAY_READS"]),
    ("ArrWrite", &["DAOS_ARRAY_WRITES"]),
    ("ArrOpen", &["DAOS_ARRAY_OPENS"]),
    ("ArrGetSize", &["DAOS_ARRAY_GET_SIZES"]),
    ("ArrSetSize", &["DAOS_ARRAY_SET_SIZES"]),
    ("ArrStat", &["DAOS_ARRAY_STATS"]),
    ("ArrPunch", &["DAOS_ARRAY_PUNCHES"]),
    ("ArrDestroy", &["DAOS_ARRAY_DESTROYS"]),
    ("KVGet", &["DAOS_KV_GETS"]),
    ("KVPut", &["DAOS_KV_PUTS"]),
    ("KVOpen", &["DAOS_KV_OPENS"]),
    ("KVRemove", &["DAOS_KV_REMOVES"]),
    ("KVList", &["DAOS_KV_LISTS"]),
    ("KVDestroy", &["DAOS_KV_DESTROYS"]),
];

/// One interface's time of one kind (read, write, meta, wait), as its
/// modules' records give it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cost {
    /// No module of the interface keeps such a time (POSIX's wait).
    Absent,
    /// Its modules keep it, but every record held C's −1.
    NotRecorded,
    Seconds(f64),
}

impl Cost {
    fn join(self, other: Cost) -> Cost {
        match (self, other) {
            (Cost::Seconds(a), Cost::Seconds(b)) => Cost::Seconds(a + b),
            (Cost::Seconds(a), _) | (_, Cost::Seconds(a)) => Cost::Seconds(a),
            (Cost::NotRecorded, _) | (_, Cost::NotRecorded) => Cost::NotRecorded,
            _ => Cost::Absent,
        }
    }

    /// Per process: PyDarshan's 0 where there is no such time, none where
    /// it was not recorded.
    fn per_process(self, n: f64) -> Option<f64> {
        match self {
            Cost::Absent => Some(0.0),
            Cost::NotRecorded => None,
            Cost::Seconds(s) => Some(s / n),
        }
    }
}

impl ModuleSums {
    /// Time `k` (read, write, meta, wait) of this module's records.
    /// PyDarshan's wait column is PNETCDF_FILE's only.
    fn cost(&self, k: usize) -> Cost {
        let l = &self.layout;
        let kept = [l.read_time, l.write_time, l.meta_time, l.wait_time][k].is_some()
            && (k != 3 || l.module == modules::PNETCDF_FILE);
        match (kept, self.timed[k]) {
            (false, _) => Cost::Absent,
            (true, true) => Cost::Seconds(self.times[k]),
            (true, false) => Cost::NotRecorded,
        }
    }
}

/// PyDarshan's I/O cost: per interface, Σ time / nprocs in read, write,
/// meta and wait; H5F+H5D become HDF5 and the PnetCDF pair PNETCDF. A
/// time every record of an interface left "not recorded" is none (where
/// PyDarshan sums the −1s into a negative time).
pub fn io_cost(all: &[ModuleSums], nprocs: i64) -> Vec<IoCost> {
    let n = if nprocs > 0 { nprocs as f64 } else { 1.0 };
    let mut rows: Vec<(&str, [Cost; 4])> = Vec::new();
    for s in all.iter().filter(|s| s.records > 0) {
        let interface = match s.layout.module {
            modules::H5F | modules::H5D => "HDF5",
            modules::PNETCDF_FILE | modules::PNETCDF_VAR => "PNETCDF",
            modules::MPIIO => "MPIIO",
            m => module_name(m),
        };
        let i = match rows.iter().position(|(name, _)| *name == interface) {
            Some(i) => i,
            None => {
                rows.push((interface, [Cost::Absent; 4]));
                rows.len() - 1
            }
        };
        for (k, cost) in rows[i].1.iter_mut().enumerate() {
            *cost = cost.join(s.cost(k));
        }
    }
    rows.into_iter()
        .map(|(interface, [read, write, meta, wait])| IoCost {
            interface: interface.to_string(),
            read: read.per_process(n),
            write: write.per_process(n),
            meta: meta.per_process(n),
            wait: wait.per_process(n),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use darshan_log::counters::posix as px;

    fn posix_record(id: u64, mmaps: i64) -> Record {
        let mut r = Record::zeroed(modules::POSIX, id, 0);
        r.counters[px::OPENS] = 1;
        r.counters[px::MMAPS] = mmaps;
        r
    }

    fn mmap_bar(mmaps: &[i64]) -> (Option<i64>, Vec<String>) {
        let mut s = ModuleSums::new(modules::POSIX, 1).unwrap();
        mmaps.iter().enumerate().for_each(|(i, &m)| s.add(&posix_record(i as u64, m)));
        let (bars, unknown) = op_counts(modules::POSIX, std::slice::from_ref(&s));
        (bars.iter().find(|(l, _)| l == "Mmap").map(|b| b.1), unknown)
    }

    /// Our runtime writes C's -1 in POSIX_MMAPS for a file never mapped
    /// and counts the mappings of the others: two files mapped 2 and 3
    /// times beside ten never mapped are 5 mappings, not 5 - 10.
    #[test]
    fn files_never_mapped_beside_mapped_ones_take_nothing_from_the_mmap_count() {
        let mut mmaps = vec![-1; 10];
        mmaps.extend([2, 3]);
        assert_eq!(mmap_bar(&mmaps), (Some(5), vec![]));
        // C's preloaded library: -1 everywhere, no count at all.
        assert_eq!(mmap_bar(&[-1, -1]), (None, vec!["Mmap".to_string()]));
    }

    /// darshan-util reads H5F records of version 2 or older with −1 in
    /// H5F_F_META_TIME: HDF5's metadata cost is then H5D's alone, and an
    /// interface whose every record holds −1 has none (not −1 / nprocs).
    #[test]
    fn hdf5_metadata_cost_leaves_out_the_files_unrecorded_times() {
        use darshan_log::counters::{h5d, h5f};
        let mut files = ModuleSums::new(modules::H5F, 4).unwrap();
        for id in 0..3 {
            let mut r = Record::zeroed(modules::H5F, id, -1);
            r.fcounters[h5f::F_META_TIME] = -1.0;
            files.add(&r);
        }
        let mut sets = ModuleSums::new(modules::H5D, 4).unwrap();
        let mut r = Record::zeroed(modules::H5D, 9, -1);
        r.fcounters[h5d::F_META_TIME] = 2.0;
        r.fcounters[h5d::F_WRITE_TIME] = 6.0;
        sets.add(&r);
        let hdf5 = &io_cost(&[files, sets], 4)[0];
        assert_eq!((hdf5.meta, hdf5.write, hdf5.wait), (Some(0.5), Some(1.5), Some(0.0)));
        let mut files = ModuleSums::new(modules::H5F, 4).unwrap();
        let mut r = Record::zeroed(modules::H5F, 1, -1);
        r.fcounters[h5f::F_META_TIME] = -1.0;
        files.add(&r);
        let alone = &io_cost(&[files], 4)[0];
        assert_eq!((alone.interface.as_str(), alone.meta, alone.read), ("HDF5", None, Some(0.0)));
    }
}
