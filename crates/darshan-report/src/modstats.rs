//! Per-module statistics, PyDarshan's summary sections: overview and file
//! counts (darshan-util's accumulator), access pattern, access sizes,
//! common access sizes, operation counts; and the I/O cost per interface.

use std::collections::HashMap;

use darshan_log::modules::{self, counter_names, module_name};
use darshan_log::Record;
use darshan_util::accum::{self, Accumulator};

use crate::layout::Layout;
use crate::model::{AccessPattern, FileCategory, IoCost, ModuleStats, Overview};

/// Everything summed over one module's records.
pub struct ModuleSums {
    pub layout: Layout,
    pub records: u64,
    /// Σ of every counter over all records (PyDarshan's `agg_ioops`).
    pub counters: Vec<i64>,
    /// Σ of read, write, meta, wait time over all records.
    pub times: [f64; 4],
    common: HashMap<i64, i64>,
    accum: Option<Accumulator>,
}

impl ModuleSums {
    pub fn new(module: usize, nprocs: i64) -> Option<ModuleSums> {
        let layout = Layout::of(module)?;
        let n = counter_names(module).0.len();
        Some(ModuleSums {
            layout,
            records: 0,
            counters: vec![0; n],
            times: [0.0; 4],
            common: HashMap::new(),
            accum: Accumulator::without_files(module, nprocs),
        })
    }

    pub fn add(&mut self, r: &Record) {
        if r.counters.len() != self.counters.len() {
            return;
        }
        self.records += 1;
        for (s, v) in self.counters.iter_mut().zip(&r.counters) {
            *s = s.wrapping_add(*v);
        }
        let l = &self.layout;
        for (k, idx) in [l.read_time, l.write_time, l.meta_time, l.wait_time].iter().enumerate() {
            if let Some(v) = idx.and_then(|i| r.fcounters.get(i)) {
                self.times[k] += v;
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
            overview: self.accum.as_ref().map(|a| overview(&a.metrics_with(files.entries(self.layout.module)))),
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
pub fn op_counts(module: usize, all: &[ModuleSums]) -> Vec<(String, i64)> {
    let get = |m: usize, n: &str| all.iter().find(|s| s.layout.module == m).map_or(0, |s| s.sum(n));
    let bars: &[(&str, &[(usize, &str)])] = match module {
        modules::POSIX => &[
            ("Read", &[(modules::POSIX, "POSIX_READS")]),
            ("Write", &[(modules::POSIX, "POSIX_WRITES")]),
            ("Open", &[(modules::POSIX, "POSIX_OPENS")]),
            ("Stat", &[(modules::POSIX, "POSIX_STATS")]),
            ("Seek", &[(modules::POSIX, "POSIX_SEEKS")]),
            // PyDarshan plots 0 here ("faulty?"); we show the real count.
            ("Mmap", &[(modules::POSIX, "POSIX_MMAPS")]),
            ("Fsync", &[(modules::POSIX, "POSIX_FSYNCS"), (modules::POSIX, "POSIX_FDSYNCS")]),
        ],
        modules::MPIIO => &[
            ("Ind. Read", &[(modules::MPIIO, "MPIIO_INDEP_READS")]),
            ("Ind. Write", &[(modules::MPIIO, "MPIIO_INDEP_WRITES")]),
            ("Ind. Open", &[(modules::MPIIO, "MPIIO_INDEP_OPENS")]),
            ("Col. Read", &[(modules::MPIIO, "MPIIO_COLL_READS")]),
            ("Col. Write", &[(modules::MPIIO, "MPIIO_COLL_WRITES")]),
            ("Col. Open", &[(modules::MPIIO, "MPIIO_COLL_OPENS")]),
            ("Sync", &[(modules::MPIIO, "MPIIO_SYNCS")]),
        ],
        modules::STDIO => &[
            ("Read", &[(modules::STDIO, "STDIO_READS")]),
            ("Write", &[(modules::STDIO, "STDIO_WRITES")]),
            ("Open", &[(modules::STDIO, "STDIO_OPENS")]),
            ("Seek", &[(modules::STDIO, "STDIO_SEEKS")]),
            ("Flush", &[(modules::STDIO, "STDIO_FLUSHES")]),
        ],
        modules::H5F | modules::H5D => &[
            ("H5D Read", &[(modules::H5D, "H5D_READS")]),
            ("H5D Write", &[(modules::H5D, "H5D_WRITES")]),
            ("H5D Open", &[(modules::H5D, "H5D_OPENS")]),
            ("H5D Flush", &[(modules::H5D, "H5D_FLUSHES")]),
            ("H5F Open", &[(modules::H5F, "H5F_OPENS")]),
            ("H5F Flush", &[(modules::H5F, "H5F_FLUSHES")]),
        ],
        modules::PNETCDF_FILE | modules::PNETCDF_VAR => &[
            ("Var Ind Read", &[(modules::PNETCDF_VAR, "PNETCDF_VAR_INDEP_READS")]),
            ("Var Ind Write", &[(modules::PNETCDF_VAR, "PNETCDF_VAR_INDEP_WRITES")]),
            ("Var Open", &[(modules::PNETCDF_VAR, "PNETCDF_VAR_OPENS")]),
            ("Var Coll Read", &[(modules::PNETCDF_VAR, "PNETCDF_VAR_COLL_READS")]),
            ("Var Coll Write", &[(modules::PNETCDF_VAR, "PNETCDF_VAR_COLL_WRITES")]),
            ("Var NB Read", &[(modules::PNETCDF_VAR, "PNETCDF_VAR_NB_READS")]),
            ("Var NB Write", &[(modules::PNETCDF_VAR, "PNETCDF_VAR_NB_WRITES")]),
            (
                "File Open",
                &[(modules::PNETCDF_FILE, "PNETCDF_FILE_OPENS"), (modules::PNETCDF_FILE, "PNETCDF_FILE_CREATES")],
            ),
            ("File Sync", &[(modules::PNETCDF_FILE, "PNETCDF_FILE_SYNCS")]),
            ("File Ind Waits", &[(modules::PNETCDF_FILE, "PNETCDF_FILE_INDEP_WAITS")]),
            ("File Coll Waits", &[(modules::PNETCDF_FILE, "PNETCDF_FILE_COLL_WAITS")]),
        ],
        modules::DFS => &[
            ("Read", &[(modules::DFS, "DFS_READS")]),
            ("Readx", &[(modules::DFS, "DFS_READXS")]),
            ("Write", &[(modules::DFS, "DFS_WRITES")]),
            ("Writex", &[(modules::DFS, "DFS_WRITEXS")]),
            ("Open", &[(modules::DFS, "DFS_OPENS")]),
            ("GlobalOpen", &[(modules::DFS, "DFS_GLOBAL_OPENS")]),
            ("Lookup", &[(modules::DFS, "DFS_LOOKUPS")]),
            ("GetSize", &[(modules::DFS, "DFS_GET_SIZES")]),
            ("Punch", &[(modules::DFS, "DFS_PUNCHES")]),
            ("Remove", &[(modules::DFS, "DFS_REMOVES")]),
            ("Stat", &[(modules::DFS, "DFS_STATS")]),
        ],
        modules::DAOS => &[
            ("ObjFetch", &[(modules::DAOS, "DAOS_OBJ_FETCHES")]),
            ("ObjUpdate", &[(modules::DAOS, "DAOS_OBJ_UPDATES")]),
            ("ObjOpen", &[(modules::DAOS, "DAOS_OBJ_OPENS")]),
            ("ObjPunch", &[(modules::DAOS, "DAOS_OBJ_PUNCHES")]),
            ("ObjDkeyPunch", &[(modules::DAOS, "DAOS_OBJ_DKEY_PUNCHES")]),
            ("ObjAkeyPunch", &[(modules::DAOS, "DAOS_OBJ_AKEY_PUNCHES")]),
            ("ObjDkeyList", &[(modules::DAOS, "DAOS_OBJ_DKEY_LISTS")]),
            ("ObjAkeyList", &[(modules::DAOS, "DAOS_OBJ_AKEY_LISTS")]),
            ("ObjRecxList", &[(modules::DAOS, "DAOS_OBJ_RECX_LISTS")]),
            ("ArrRead", &[(modules::DAOS, "DAOS_ARRAY_READS")]),
            ("ArrWrite", &[(modules::DAOS, "DAOS_ARRAY_WRITES")]),
            ("ArrOpen", &[(modules::DAOS, "DAOS_ARRAY_OPENS")]),
            ("ArrGetSize", &[(modules::DAOS, "DAOS_ARRAY_GET_SIZES")]),
            ("ArrSetSize", &[(modules::DAOS, "DAOS_ARRAY_SET_SIZES")]),
            ("ArrStat", &[(modules::DAOS, "DAOS_ARRAY_STATS")]),
            ("ArrPunch", &[(modules::DAOS, "DAOS_ARRAY_PUNCHES")]),
            ("ArrDestroy", &[(modules::DAOS, "DAOS_ARRAY_DESTROYS")]),
            ("KVGet", &[(modules::DAOS, "DAOS_KV_GETS")]),
            ("KVPut", &[(modules::DAOS, "DAOS_KV_PUTS")]),
            ("KVOpen", &[(modules::DAOS, "DAOS_KV_OPENS")]),
            ("KVRemove", &[(modules::DAOS, "DAOS_KV_REMOVES")]),
            ("KVList", &[(modules::DAOS, "DAOS_KV_LISTS")]),
            ("KVDestroy", &[(modules::DAOS, "DAOS_KV_DESTROYS")]),
        ],
        _ => &[],
    };
    bars.iter().map(|(label, parts)| (label.to_string(), parts.iter().map(|(m, n)| get(*m, n)).sum())).collect()
}

/// PyDarshan's I/O cost: per interface, Σ time / nprocs in read, write,
/// meta and wait; H5F+H5D become HDF5 and the PnetCDF pair PNETCDF.
pub fn io_cost(all: &[ModuleSums], nprocs: i64) -> Vec<IoCost> {
    let n = if nprocs > 0 { nprocs as f64 } else { 1.0 };
    let mut out: Vec<IoCost> = Vec::new();
    for s in all {
        if s.records == 0 {
            continue;
        }
        let interface = match s.layout.module {
            modules::H5F | modules::H5D => "HDF5",
            modules::PNETCDF_FILE | modules::PNETCDF_VAR => "PNETCDF",
            modules::MPIIO => "MPIIO",
            m => module_name(m),
        };
        // PyDarshan's wait column is PNETCDF_FILE's only.
        let wait = if s.layout.module == modules::PNETCDF_FILE { s.times[3] } else { 0.0 };
        let row = match out.iter_mut().position(|c| c.interface == interface) {
            Some(i) => &mut out[i],
            None => {
                out.push(IoCost { interface: interface.to_string(), ..Default::default() });
                out.last_mut().unwrap()
            }
        };
        row.read += s.times[0] / n;
        row.write += s.times[1] / n;
        row.meta += s.times[2] / n;
        row.wait += wait / n;
    }
    out
}
