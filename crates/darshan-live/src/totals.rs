//! What a module's records add up to: bytes, operations and time per
//! module and per file, the figures the live view's deltas are made of.

use std::collections::{BTreeMap, HashMap};

use darshan_log::modules;
use darshan_log::roles::Roles;
use darshan_log::Record;
use serde::Serialize;

/// What a module's records add up to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    pub bytes_read: i64,
    pub bytes_written: i64,
    pub reads: i64,
    pub writes: i64,
    /// Opens, stats, seeks, syncs and the namespace operations
    /// (POSIX_META): what a metadata server sees.
    pub meta_ops: i64,
    pub read_time: f64,
    pub write_time: f64,
    pub meta_time: f64,
}

impl Totals {
    pub fn add(&mut self, o: &Totals) {
        self.bytes_read = self.bytes_read.wrapping_add(o.bytes_read);
        self.bytes_written = self.bytes_written.wrapping_add(o.bytes_written);
        self.reads = self.reads.wrapping_add(o.reads);
        self.writes = self.writes.wrapping_add(o.writes);
        self.meta_ops = self.meta_ops.wrapping_add(o.meta_ops);
        self.read_time += o.read_time;
        self.write_time += o.write_time;
        self.meta_time += o.meta_time;
    }

    pub fn minus(&self, o: &Totals) -> Totals {
        Totals {
            bytes_read: self.bytes_read.wrapping_sub(o.bytes_read),
            bytes_written: self.bytes_written.wrapping_sub(o.bytes_written),
            reads: self.reads.wrapping_sub(o.reads),
            writes: self.writes.wrapping_sub(o.writes),
            meta_ops: self.meta_ops.wrapping_sub(o.meta_ops),
            read_time: self.read_time - o.read_time,
            write_time: self.write_time - o.write_time,
            meta_time: self.meta_time - o.meta_time,
        }
    }

    pub fn is_zero(&self) -> bool {
        *self == Totals::default()
    }
}

/// Counters named `<PREFIX>_<suffix>` of a module, found once.
fn counter(module: usize, suffix: &str) -> Option<usize> {
    let prefix = darshan_log::roles::prefix(module).or(darshan_log::roles::extension_prefix(module))?;
    modules::counter_names(module)
        .0
        .iter()
        .position(|n| n.strip_prefix(prefix).and_then(|s| s.strip_prefix('_')) == Some(suffix))
}

/// IO_URING's FDATASYNCS and SYNC_RANGES are syncs as FSYNCS are, and
/// its META_OPS the opens, closes and stats submitted through a ring.
const META_SUFFIXES: [&str; 8] =
    ["OPENS", "STATS", "SEEKS", "FSYNCS", "FLUSHES", "FDATASYNCS", "SYNC_RANGES", "META_OPS"];
const NAMESPACE: [&str; 14] = [
    "UNLINKS",
    "RENAMES_FROM",
    "MKDIRS",
    "RMDIRS",
    "OPENDIRS",
    "READDIRS",
    "TRUNCATES",
    "CHMODS",
    "CHOWNS",
    "ACCESSES",
    "LINKS",
    "SYMLINKS",
    "UTIMES",
    "XATTR_SETS",
];

/// Where a counted module's figures are, looked up by name once per
/// module (not per record: a reader sums every record of every process
/// every interval).
struct Where {
    layout: Option<Roles>,
    meta: Vec<usize>,
}

fn where_of(module: usize) -> &'static Where {
    static CACHE: std::sync::OnceLock<Vec<Where>> = std::sync::OnceLock::new();
    let all = CACHE.get_or_init(|| {
        (0..modules::MAX_MODS)
            .map(|m| {
                let suffixes: &[&str] = if m == modules::POSIX_META { &NAMESPACE } else { &META_SUFFIXES };
                let prefix = darshan_log::roles::prefix(m).or(darshan_log::roles::extension_prefix(m));
                Where {
                    layout: prefix.filter(|_| counted(m) && m != modules::POSIX_META).map(|p| Roles::named(m, p)),
                    meta: if counted(m) { suffixes.iter().filter_map(|s| counter(m, s)).collect() } else { Vec::new() },
                }
            })
            .collect()
    });
    &all[module.min(modules::MAX_MODS - 1)]
}

/// One record's totals.
fn of_record(module: usize, r: &Record) -> Totals {
    let c = |k: Option<usize>| k.and_then(|k| r.counters.get(k)).copied().unwrap_or(0);
    let f = |k: Option<usize>| darshan_log::roles::time_at(r, k);
    let w = where_of(module);
    let meta = w.meta.iter().map(|&k| c(Some(k))).fold(0i64, i64::wrapping_add);
    if module == modules::POSIX_META {
        let time = darshan_log::counters::posix_meta::F_TIME;
        return Totals { meta_ops: meta, meta_time: f(Some(time)), ..Default::default() };
    }
    let Some(l) = &w.layout else { return Totals::default() };
    if module == modules::IO_URING {
        // A ring's submit-to-completion times overlap (32 requests in
        // flight wait together): their sum is not time spent in I/O.
        return Totals {
            bytes_read: c(l.bytes_read),
            bytes_written: c(l.bytes_written),
            reads: c(l.reads),
            writes: c(l.writes),
            meta_ops: meta,
            ..Default::default()
        };
    }
    Totals {
        bytes_read: c(l.bytes_read),
        bytes_written: c(l.bytes_written),
        reads: c(l.reads),
        writes: c(l.writes),
        meta_ops: meta,
        read_time: f(l.read_time),
        write_time: f(l.write_time),
        meta_time: f(l.meta_time),
    }
}

/// The modules whose records are summed (interfaces a program calls: the
/// layers under MPI-IO and HDF5 are POSIX's own records).
pub fn counted(module: usize) -> bool {
    matches!(module, modules::POSIX | modules::STDIO | modules::MPIIO | modules::POSIX_META | modules::IO_URING)
}

/// The modules whose bytes reach the file system as the program asked
/// for them (MPI-IO's are POSIX's again underneath). io_uring's requests
/// are not POSIX calls: their bytes are nowhere else.
pub fn reaches_files(module: &str) -> bool {
    matches!(module, "POSIX" | "STDIO" | "IO_URING")
}

/// Per module, and per file name (the modules that reach the file
/// system), what a snapshot's (or a final log's) records add up to.
pub fn sums<'a>(
    mods: impl IntoIterator<Item = (usize, &'a [Record])>,
    names: &dyn Fn(u64) -> String,
) -> (BTreeMap<usize, Totals>, HashMap<String, Totals>) {
    let mut by_mod: BTreeMap<usize, Totals> = BTreeMap::new();
    let mut by_file: HashMap<String, Totals> = HashMap::new();
    for (m, recs) in mods {
        if !counted(m) {
            continue;
        }
        let per_file = reaches_files(modules::module_name(m));
        for r in recs {
            let t = of_record(m, r);
            by_mod.entry(m).or_default().add(&t);
            if per_file {
                by_file.entry(names(r.id)).or_default().add(&t);
            }
        }
    }
    (by_mod, by_file)
}

pub fn minus_map(a: &BTreeMap<usize, Totals>, b: &BTreeMap<usize, Totals>) -> BTreeMap<usize, Totals> {
    a.iter().map(|(k, v)| (*k, v.minus(&b.get(k).copied().unwrap_or_default()))).collect()
}

pub fn minus_files(a: &HashMap<String, Totals>, b: &HashMap<String, Totals>) -> HashMap<String, Totals> {
    a.iter().map(|(k, v)| (k.clone(), v.minus(&b.get(k).copied().unwrap_or_default()))).collect()
}
