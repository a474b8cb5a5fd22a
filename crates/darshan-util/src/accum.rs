//! darshan-util's accumulator: the `--total` summation record, the
//! `--file` categories and the `--perf` derived metrics, for the modules
//! that support them (POSIX, MPI-IO, STDIO, DFS, DAOS).

use std::collections::HashMap;

use darshan_log::modules::*;
use darshan_log::Record;

/// Where the aggregation-relevant counters of a module live.
struct Spec {
    sum: &'static [(usize, usize)],
    /// Sums that went negative become exactly -1 (POSIX, DFS, DAOS).
    clamp: bool,
    set: &'static [usize],
    max: &'static [usize],
    /// (first index of a value/count group of 4+4, skip the group when
    /// the incoming first value is 0)
    common: &'static [(usize, bool)],
    /// FASTEST_RANK, FASTEST_RANK_BYTES, SLOWEST_RANK, SLOWEST_RANK_BYTES
    fast_slow: [usize; 4],
    bytes_read: usize,
    bytes_written: usize,
    /// fcounter indices of READ, WRITE, META time
    times: [usize; 3],
    /// fcounter ranges: min non-zero, max
    f_min_nonzero: &'static [usize],
    f_max: &'static [usize],
    /// (F_MAX_*_TIME, *_TIME_SIZE counter)
    max_time: &'static [(usize, usize)],
    f_fastest: usize,
    f_slowest: usize,
    f_zero: &'static [usize],
    /// counters giving the max byte offset, or none (-1)
    max_offset: Option<(usize, usize)>,
}

const POSIX_SPEC: Spec = Spec {
    sum: &[(0, 12), (14, 16), (18, 24), (25, 26), (29, 49)],
    clamp: true,
    set: &[12, 13, 24, 26],
    max: &[16, 17],
    common: &[(49, false), (57, false)],
    fast_slow: [65, 66, 67, 68],
    bytes_read: 14,
    bytes_written: 15,
    times: [8, 9, 10],
    f_min_nonzero: &[0, 1, 2, 3],
    f_max: &[4, 5, 6, 7],
    max_time: &[(11, 27), (12, 28)],
    f_fastest: 13,
    f_slowest: 14,
    f_zero: &[15, 16],
    max_offset: Some((16, 17)),
};

const MPIIO_SPEC: Spec = Spec {
    sum: &[(0, 13), (14, 17), (19, 39)],
    clamp: false,
    set: &[13],
    max: &[],
    common: &[(39, true)],
    fast_slow: [47, 48, 49, 50],
    bytes_read: 14,
    bytes_written: 15,
    times: [8, 9, 10],
    f_min_nonzero: &[0, 1, 2, 3],
    f_max: &[4, 5, 6, 7],
    max_time: &[(11, 17), (12, 18)],
    f_fastest: 13,
    f_slowest: 14,
    f_zero: &[15, 16],
    max_offset: None,
};

const STDIO_SPEC: Spec = Spec {
    sum: &[(0, 8)],
    clamp: false,
    set: &[],
    max: &[8, 9],
    common: &[],
    fast_slow: [10, 11, 12, 13],
    bytes_read: 7,
    bytes_written: 6,
    times: [2, 1, 0],
    f_min_nonzero: &[3, 4, 5, 6],
    f_max: &[7, 8, 9, 10],
    max_time: &[],
    f_fastest: 11,
    f_slowest: 12,
    f_zero: &[13, 14],
    max_offset: Some((8, 9)),
};

const DFS_SPEC: Spec = Spec {
    sum: &[(0, 17), (19, 39)],
    clamp: true,
    set: &[47],
    max: &[],
    common: &[(39, false)],
    fast_slow: [48, 49, 50, 51],
    bytes_read: 14,
    bytes_written: 15,
    times: [8, 9, 10],
    f_min_nonzero: &[0, 1, 2, 3],
    f_max: &[4, 5, 6, 7],
    max_time: &[(11, 17), (12, 18)],
    f_fastest: 13,
    f_slowest: 14,
    f_zero: &[],
    max_offset: None,
};

const DAOS_SPEC: Spec = Spec {
    sum: &[(0, 27), (29, 49)],
    clamp: true,
    set: &[57, 58, 59],
    max: &[],
    common: &[(49, false)],
    fast_slow: [60, 61, 62, 63],
    bytes_read: 24,
    bytes_written: 25,
    times: [8, 9, 10],
    f_min_nonzero: &[0, 1, 2, 3],
    f_max: &[4, 5, 6, 7],
    max_time: &[(11, 27), (12, 28)],
    f_fastest: 13,
    f_slowest: 14,
    f_zero: &[],
    max_offset: None,
};

/// Whether darshan-util's combiner (`agg_records`) knows `module`.
pub const fn combines(module: usize) -> bool {
    matches!(module, POSIX | MPIIO | STDIO | DFS | DAOS)
}

fn spec(module: usize) -> Option<&'static Spec> {
    match module {
        POSIX => Some(&POSIX_SPEC),
        MPIIO => Some(&MPIIO_SPEC),
        STDIO => Some(&STDIO_SPEC),
        DFS => Some(&DFS_SPEC),
        DAOS => Some(&DAOS_SPEC),
        _ => None,
    }
}

/// The max offset darshan-util takes for a record's file: the larger of
/// its max bytes read and written, -1 for modules without them (and for
/// modules the accumulator does not know).
pub fn max_offset(module: usize, rec: &Record) -> i64 {
    spec(module).map_or(-1, |s| spec_max_offset(s, rec))
}

fn spec_max_offset(s: &Spec, rec: &Record) -> i64 {
    match s.max_offset {
        Some((a, b)) => rec.counters[a].max(rec.counters[b]),
        None => -1,
    }
}

/// One record's figures, as darshan-util's `log_record_metrics` gives
/// them to its accumulator.
pub struct Figures {
    pub read: i64,
    pub written: i64,
    pub max_offset: i64,
    /// Metadata, read and write time; a shared record's slowest rank's.
    pub io_time: f64,
    /// Metadata time alone, and read plus write time (0 for a shared
    /// record, which has no breakdown).
    pub md_time: f64,
    pub rw_time: f64,
    /// 1, or -1 ("all") for a shared record.
    pub nprocs: i64,
}

/// `rec`'s figures; None for a module without an accumulator or a record
/// of another shape.
pub fn figures(module: usize, rec: &Record) -> Option<Figures> {
    let s = spec(module)?;
    let (names, fnames) = counter_names(module);
    (rec.counters.len() == names.len() && rec.fcounters.len() == fnames.len()).then(|| spec_figures(s, rec))
}

fn spec_figures(s: &Spec, rec: &Record) -> Figures {
    let (c, f) = (&rec.counters, &rec.fcounters);
    let (read_t, write_t, md) = (f[s.times[0]], f[s.times[1]], f[s.times[2]]);
    let shared = rec.rank < 0;
    Figures {
        read: c[s.bytes_read],
        written: c[s.bytes_written],
        max_offset: spec_max_offset(s, rec),
        io_time: if shared { f[s.f_slowest] } else { md + read_t + write_t },
        md_time: if shared { 0.0 } else { md },
        rw_time: if shared { 0.0 } else { read_t + write_t },
        nprocs: if shared { -1 } else { 1 },
    }
}

pub fn supported(module: usize) -> bool {
    spec(module).is_some()
}

/// Merge the "four most common values" group at `i` of `rec` into `agg`,
/// with darshan-util's exact ordering and tie rules.
fn merge_common(agg: &mut [i64], rec: &[i64], i: usize, skip_if_zero: bool) {
    if skip_if_zero && rec[i] == 0 {
        return;
    }
    // Values `agg` already has: their counts added.
    let mut dup = [false; 4];
    for j in i..i + 4 {
        for k in 0..4 {
            if agg[i + k] == rec[j] {
                agg[i + k + 4] = agg[i + k + 4].wrapping_add(rec[j + 4]);
                dup[j - i] = true;
            }
        }
    }
    for j in i..i + 4 {
        if dup[j - i] {
            continue;
        }
        if rec[j] == 0 || !insert_ranked(agg, i, rec[j], rec[j + 4]) {
            break;
        }
    }
}

/// `value`, seen `count` times, into the group at `i` of `agg` in rank
/// order (more counts first, then the smaller value), as C inserts it;
/// false when it ranks below all four (C stops merging there).
fn insert_ranked(agg: &mut [i64], i: usize, value: i64, count: i64) -> bool {
    let get = |a: &[i64], k: usize| a.get(k).copied().unwrap_or(0);
    let mut total = count;
    for k in 0..4 {
        if agg[i + k] == value {
            total = agg[i + k + 4].wrapping_add(count);
            break;
        }
    }
    let mut vals = [0i64; 4];
    let mut cnts = [0i64; 4];
    let mut n = 0;
    let mut k = 0;
    while k < 4 && (agg[i + k + 4] > total || (agg[i + k + 4] == total && agg[i + k] > value)) {
        vals[n] = agg[i + k];
        cnts[n] = agg[i + k + 4];
        n += 1;
        k += 1;
    }
    if n == 4 {
        return false;
    }
    vals[n] = value;
    cnts[n] = count;
    n += 1;
    // As in C, this may look past the four values into the counts.
    while n != 4 && k < 8 {
        if get(agg, i + k) != value {
            vals[n] = get(agg, i + k);
            cnts[n] = get(agg, i + k + 4);
            n += 1;
        }
        k += 1;
    }
    agg[i..i + 4].copy_from_slice(&vals);
    agg[i + 4..i + 8].copy_from_slice(&cnts);
    true
}

/// darshan-util's `log_agg_records` for one incoming record.
fn agg_record(s: &Spec, rec: &Record, agg: &mut Record, init: bool) {
    let ends = Extremes::of(s, rec);
    if init {
        agg.rank = rec.rank;
        agg.id = rec.id;
    }
    let same_file = agg.id == rec.id;
    if !same_file {
        agg.id = 0;
    }
    if agg.rank != rec.rank {
        agg.rank = -1;
    }
    agg_counters(s, &rec.counters, &mut agg.counters);
    agg_fcounters(s, rec, agg);
    if same_file {
        ends.merge_into(s, agg, init);
    } else {
        Extremes::clear(s, agg);
    }
    for &i in s.f_zero {
        agg.fcounters[i] = 0.0;
    }
}

/// The integer counters' rules: sums (clamped to -1 where C clamps),
/// last values, maxima and the four-most-common groups.
fn agg_counters(s: &Spec, c: &[i64], a: &mut [i64]) {
    for &(lo, hi) in s.sum {
        for i in lo..hi {
            a[i] = a[i].wrapping_add(c[i]);
            if s.clamp && a[i] < 0 {
                a[i] = -1;
            }
        }
    }
    for &i in s.set {
        a[i] = c[i];
    }
    for &i in s.max {
        if c[i] > a[i] {
            a[i] = c[i];
        }
    }
    for &(i, skip) in s.common {
        merge_common(a, c, i, skip);
    }
}

/// The float counters' rules: time sums, smallest non-zero values,
/// maxima, and a maximum time that carries its integer counter (the size
/// of the slowest operation) along with it.
fn agg_fcounters(s: &Spec, rec: &Record, agg: &mut Record) {
    let (c, f) = (&rec.counters, &rec.fcounters);
    let (a, af) = (&mut agg.counters, &mut agg.fcounters);
    for &i in &s.times {
        af[i] += f[i];
    }
    for &i in s.f_min_nonzero {
        if f[i] > 0.0 && (af[i] == 0.0 || f[i] < af[i]) {
            af[i] = f[i];
        }
    }
    for &i in s.f_max {
        if f[i] > af[i] {
            af[i] = f[i];
        }
    }
    for &(fi, ci) in s.max_time {
        if f[fi] > af[fi] {
            af[fi] = f[fi];
            a[ci] = c[ci];
        }
    }
}

/// A record's fastest and slowest rank, their bytes and times: its own
/// counters for a shared record (rank -1), else its rank with its bytes
/// and I/O time for both.
struct Extremes {
    fast: (i64, i64, f64),
    slow: (i64, i64, f64),
}

impl Extremes {
    fn of(s: &Spec, rec: &Record) -> Extremes {
        let (c, f) = (&rec.counters, &rec.fcounters);
        let [fr, fb, sr, sb] = s.fast_slow;
        if rec.rank == -1 {
            return Extremes { fast: (c[fr], c[fb], f[s.f_fastest]), slow: (c[sr], c[sb], f[s.f_slowest]) };
        }
        let bytes = c[s.bytes_read].wrapping_add(c[s.bytes_written]);
        let t = f[s.times[0]] + f[s.times[1]] + f[s.times[2]];
        Extremes { fast: (rec.rank, bytes, t), slow: (rec.rank, bytes, t) }
    }

    /// Records of one file: the faster and the slower of the two.
    fn merge_into(self, s: &Spec, agg: &mut Record, init: bool) {
        let [fr, fb, sr, sb] = s.fast_slow;
        let (a, af) = (&mut agg.counters, &mut agg.fcounters);
        if init || self.fast.2 < af[s.f_fastest] {
            (a[fr], a[fb], af[s.f_fastest]) = self.fast;
        }
        if init || self.slow.2 > af[s.f_slowest] {
            (a[sr], a[sb], af[s.f_slowest]) = self.slow;
        }
    }

    /// Records of different files have no fastest or slowest rank.
    fn clear(s: &Spec, agg: &mut Record) {
        let [fr, fb, sr, sb] = s.fast_slow;
        (agg.counters[fr], agg.counters[fb], agg.fcounters[s.f_fastest]) = (-1, -1, 0.0);
        (agg.counters[sr], agg.counters[sb], agg.fcounters[s.f_slowest]) = (-1, -1, 0.0);
    }
}

/// One file as the accumulator sees it: its bytes, its max offset (-1 when
/// the module has none) and the processes that had a record of it (-1
/// once a shared record is seen).
#[derive(Default, Clone, Copy, Debug, PartialEq)]
pub struct FileEntry {
    pub r_bytes: i64,
    pub w_bytes: i64,
    pub max_offset: i64,
    pub nprocs: i64,
}

impl FileEntry {
    /// Fold one record's bytes, max offset and rank into the entry, by
    /// darshan-util's rules (a rank record after a shared one counts on
    /// from -1).
    pub fn add(&mut self, r: i64, w: i64, max_offset: i64, rank: i64) {
        self.r_bytes = self.r_bytes.wrapping_add(r);
        self.w_bytes = self.w_bytes.wrapping_add(w);
        if max_offset == -1 {
            self.max_offset = -1;
        } else {
            self.max_offset = self.max_offset.max(max_offset);
        }
        if rank < 0 {
            self.nprocs = -1;
        } else {
            self.nprocs += 1;
        }
    }
}

#[derive(Default, Clone, Copy, Debug, PartialEq)]
pub struct Category {
    pub count: i64,
    pub total_read: i64,
    pub total_write: i64,
    pub max_read: i64,
    pub max_write: i64,
    /// Sum of the files' max offsets (-1 once any file has none).
    pub total_max_offset: i64,
    pub max_offset: i64,
    /// Processes that had the category's files: their files' counts
    /// summed, -1 once a file is shared by all or the sum reaches the
    /// job's (darshan-util's CATEGORY_INC; PyDarshan's report reads it).
    pub nprocs: i64,
}

#[derive(Default, Clone, Debug, PartialEq)]
pub struct Metrics {
    /// all, read-only, write-only, read-write, unique, shared, partially shared
    pub categories: [Category; 7],
    pub total_bytes: i64,
    pub unique_io_total_time_by_slowest: f64,
    pub unique_rw_only_time_by_slowest: f64,
    pub unique_md_only_time_by_slowest: f64,
    pub unique_io_slowest_rank: i64,
    pub shared_io_total_time_by_slowest: f64,
    pub agg_time_by_slowest: f64,
    pub agg_perf_by_slowest: f64,
}

pub const ALL: usize = 0;
pub const RO: usize = 1;
pub const WO: usize = 2;
pub const RW: usize = 3;
pub const UNIQ: usize = 4;
pub const SHARED: usize = 5;
pub const PART_SHARED: usize = 6;

pub struct Accumulator {
    spec: &'static Spec,
    nprocs: i64,
    agg: Record,
    n: u64,
    files: HashMap<u64, FileEntry>,
    total_bytes: i64,
    shared_time: f64,
    /// per rank: (io total, rw only, md only). A map, not a vector by
    /// rank: a log's rank numbers are as hostile as its other words, and a
    /// map holds no more entries than the log has records.
    rank_times: std::collections::BTreeMap<i64, (f64, f64, f64)>,
    /// Off when the caller keeps its own per-file entries (and passes them
    /// to `metrics_with`), so a big log's files are not held twice.
    track_files: bool,
}

impl Accumulator {
    pub fn new(module: usize, nprocs: i64) -> Option<Self> {
        let spec = spec(module)?;
        let agg = Record::zeroed(module, 0, 0);
        Some(Accumulator {
            spec,
            nprocs,
            agg,
            n: 0,
            files: HashMap::new(),
            total_bytes: 0,
            shared_time: 0.0,
            rank_times: std::collections::BTreeMap::new(),
            track_files: true,
        })
    }

    /// An accumulator that keeps no per-file entries: `metrics_with` takes
    /// them from the caller.
    pub fn without_files(module: usize, nprocs: i64) -> Option<Self> {
        let mut a = Self::new(module, nprocs)?;
        a.track_files = false;
        Some(a)
    }

    pub fn inject(&mut self, rec: &Record) {
        let s = self.spec;
        if rec.counters.len() != self.agg.counters.len() || rec.fcounters.len() != self.agg.fcounters.len() {
            return;
        }
        agg_record(s, rec, &mut self.agg, self.n == 0);
        self.n += 1;
        let fig = spec_figures(s, rec);
        self.total_bytes = self.total_bytes.wrapping_add(fig.read.wrapping_add(fig.written));
        if rec.rank < 0 {
            self.shared_time += fig.io_time;
        } else {
            let e = self.rank_times.entry(rec.rank).or_default();
            e.0 += fig.io_time;
            e.1 += fig.rw_time;
            e.2 += fig.md_time;
        }
        if self.track_files {
            self.files.entry(rec.id).or_default().add(fig.read, fig.written, fig.max_offset, rec.rank);
        }
    }

    /// The summation record printed by `--total`.
    pub fn total(&self) -> &Record {
        &self.agg
    }

    pub fn metrics(&self) -> Metrics {
        self.metrics_with(self.files.values().copied())
    }

    /// The derived metrics with the file categories of `files` (the
    /// caller's own entries when built `without_files`).
    pub fn metrics_with(&self, files: impl Iterator<Item = FileEntry>) -> Metrics {
        let mut m = Metrics::default();
        let inc = |cat: &mut Category, e: &FileEntry| {
            cat.count += 1;
            cat.total_read = cat.total_read.wrapping_add(e.r_bytes);
            cat.total_write = cat.total_write.wrapping_add(e.w_bytes);
            cat.max_read = cat.max_read.max(e.r_bytes);
            cat.max_write = cat.max_write.max(e.w_bytes);
            if e.max_offset == -1 {
                cat.total_max_offset = -1;
                cat.max_offset = -1;
            } else {
                cat.total_max_offset = cat.total_max_offset.wrapping_add(e.max_offset);
                cat.max_offset = cat.max_offset.max(e.max_offset);
            }
            if e.nprocs > 0 && cat.nprocs > -1 {
                cat.nprocs = cat.nprocs.wrapping_add(e.nprocs);
            }
            if e.nprocs < 0 || cat.nprocs >= self.nprocs {
                cat.nprocs = -1;
            }
        };
        for e in files {
            let e = &e;
            inc(&mut m.categories[ALL], e);
            if e.r_bytes > 0 && e.w_bytes == 0 {
                inc(&mut m.categories[RO], e);
            } else if e.w_bytes > 0 && e.r_bytes == 0 {
                inc(&mut m.categories[WO], e);
            } else if e.w_bytes > 0 && e.r_bytes > 0 {
                inc(&mut m.categories[RW], e);
            }
            if e.nprocs == 1 {
                inc(&mut m.categories[UNIQ], e);
            } else if e.nprocs == -1 {
                inc(&mut m.categories[SHARED], e);
            } else {
                inc(&mut m.categories[PART_SHARED], e);
            }
        }
        m.total_bytes = self.total_bytes;
        m.shared_io_total_time_by_slowest = self.shared_time;
        // darshan-util looks at ranks 0..nprocs in order; the first of
        // equally slow ranks wins.
        for (&rank, t) in self.rank_times.range(0..self.nprocs.max(0)) {
            if t.0 > m.unique_io_total_time_by_slowest {
                m.unique_io_total_time_by_slowest = t.0;
                m.unique_rw_only_time_by_slowest = t.1;
                m.unique_md_only_time_by_slowest = t.2;
                m.unique_io_slowest_rank = rank;
            }
        }
        m.agg_time_by_slowest = m.unique_io_total_time_by_slowest + m.shared_io_total_time_by_slowest;
        if m.agg_time_by_slowest != 0.0 {
            m.agg_perf_by_slowest = (m.total_bytes as f64 / 1048576.0) / m.agg_time_by_slowest;
        }
        m
    }
}

/// darshan-merge `--shared-redux`: every rank's record of one file
/// combined into one rank -1 record with darshan-util's combiner (sums,
/// min/max, the fastest and slowest of the ranks; variances 0). None for
/// modules the combiner does not know, or no records.
pub fn reduce_shared(recs: &[&Record]) -> Option<Record> {
    let first = recs.first()?;
    let mut agg = Record::new(first.module);
    for (k, r) in recs.iter().enumerate() {
        if !agg_records(r, &mut agg, k == 0) {
            return None;
        }
    }
    agg.id = first.id;
    agg.rank = -1;
    Some(agg)
}

/// darshan-util's `log_agg_records`: `rec` added into `agg` by the
/// module's combiner; with `init`, `agg` starts from zeros (its id and
/// rank are left as they are). False, `agg` untouched, for a module the
/// combiner does not know or a record of another shape.
pub fn agg_records(rec: &Record, agg: &mut Record, init: bool) -> bool {
    let Some(s) = spec(rec.module) else { return false };
    if init {
        agg.counters = vec![0; rec.counters.len()];
        agg.fcounters = vec![0.0; rec.fcounters.len()];
    }
    if rec.counters.len() != agg.counters.len() || rec.fcounters.len() != agg.fcounters.len() {
        return false;
    }
    agg_record(s, rec, agg, init);
    true
}
