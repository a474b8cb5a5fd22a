//! What each counter of a module's record is for the tools: bytes read
//! and written, operations, times, the access-size buckets, the common
//! accesses, the fastest and slowest rank. Found once per module from its
//! names (which its `layout!` makes from its constants), so every module
//! with the usual counters is handled by the same code: the report, the
//! live view and the facility tools read the roles here.

use crate::modules::{self, counter_names};
use crate::record::Record;

/// Whether `value` of counter `k` of `module` is Darshan's "not
/// recorded": C Darshan's LD_PRELOAD library does not wrap mmap and
/// stores −1 in POSIX_MMAPS (docs/counter-rules.md). Such a value is no
/// count: it is never summed or compared, shown as "not recorded" by the
/// report and stored as NULL in the facility database. Any value below
/// zero is one: C runtimes before 3.2 summed the ranks' −1s into a shared
/// record (−4 at 4 ranks), which darshan-util reads as −1 ("make sure
/// invalid counters are -1 exactly").
pub fn not_recorded(module: usize, k: usize, value: i64) -> bool {
    value < 0 && module == modules::POSIX && k == crate::counters::posix::MMAPS
}

/// A cumulative time (`<MODULE>_F_<KIND>_TIME`) as the seconds it
/// counts, or None where it is Darshan's "not recorded": darshan-util
/// writes −1 for the times an older version of a module did not keep
/// (PNETCDF_FILE before version 3: F_META_TIME and F_WAIT_TIME), and no
/// time spent is below zero (or NaN). Such a value is never summed.
pub fn recorded_time(value: f64) -> Option<f64> {
    (value >= 0.0).then_some(value)
}

/// Record `r`'s time at fcounter `k`, in seconds: 0 where its module has
/// no such time or the record holds none ([`recorded_time`]).
pub fn time_at(r: &Record, k: Option<usize>) -> f64 {
    k.and_then(|k| r.fcounters.get(k)).and_then(|v| recorded_time(*v)).unwrap_or(0.0)
}

#[derive(Debug, Default, Clone)]
pub struct Roles {
    pub module: usize,
    pub prefix: &'static str,
    pub bytes_read: Option<usize>,
    pub bytes_written: Option<usize>,
    pub max_byte_read: Option<usize>,
    pub max_byte_written: Option<usize>,
    /// fcounter indices
    pub read_time: Option<usize>,
    pub write_time: Option<usize>,
    pub meta_time: Option<usize>,
    pub wait_time: Option<usize>,
    pub fastest_rank: Option<usize>,
    pub fastest_rank_bytes: Option<usize>,
    pub slowest_rank: Option<usize>,
    pub slowest_rank_bytes: Option<usize>,
    pub f_fastest_time: Option<usize>,
    pub f_slowest_time: Option<usize>,
    /// fcounter indices of the first read's start and the last read's
    /// end (`F_READ_START_TIMESTAMP`, `F_READ_END_TIMESTAMP`), and the
    /// writes' likewise: seconds since the job started, 0 where none.
    pub read_span: Option<(usize, usize)>,
    pub write_span: Option<(usize, usize)>,
    /// `<MODULE>_READS` and `_WRITES` (operation counts).
    pub reads: Option<usize>,
    pub writes: Option<usize>,
    /// Access-size histogram buckets: (label, read counter, write counter).
    pub size_buckets: Vec<(String, usize, usize)>,
    /// The buckets of requests under 1 MiB (Drishti's "small"): read and
    /// write counters.
    pub small: Vec<(usize, usize)>,
    /// ACCESS1..4: (size counter, count counter).
    pub access: Vec<(usize, usize)>,
    /// The bucket of `small` whose top is 1 MiB (`100K_1M`): it holds
    /// requests of exactly 1 MiB too (C's `DARSHAN_BUCKET_INC` counts
    /// sizes below 1,048,577 there), which are not under 1 MiB.
    pub mib_bucket: Option<(usize, usize)>,
}

/// The name prefix of a fixed-layout module's counters, for the modules
/// the report's per-interface statistics (PyDarshan's sections, the I/O
/// cost) are made of.
pub fn prefix(module: usize) -> Option<&'static str> {
    Some(match module {
        modules::POSIX => "POSIX",
        modules::MPIIO => "MPIIO",
        modules::H5F => "H5F",
        modules::H5D => "H5D",
        modules::PNETCDF_FILE => "PNETCDF_FILE",
        modules::PNETCDF_VAR => "PNETCDF_VAR",
        modules::STDIO => "STDIO",
        modules::DFS => "DFS",
        modules::DAOS => "DAOS",
        _ => return None,
    })
}

/// The name prefix of our extension modules' counters (docs/extensions.md).
/// They are not in [`prefix`]: their times do not add up to time spent
/// (io_uring's submit-to-completion latencies overlap), and POSIX_META has
/// no reads or writes, so the per-interface statistics leave them out;
/// the tools that count operations and bytes (the live view, the facility
/// database) read them with [`Roles::named`].
pub fn extension_prefix(module: usize) -> Option<&'static str> {
    Some(match module {
        modules::POSIX_META => "POSIX_META",
        modules::IO_URING => "IO_URING",
        _ => return None,
    })
}

impl Roles {
    /// Seconds record `r` spent in this module's reads, writes and
    /// metadata ([`time_at`] each).
    pub fn io_time(&self, r: &Record) -> f64 {
        time_at(r, self.read_time) + time_at(r, self.write_time) + time_at(r, self.meta_time)
    }

    /// The roles of a module in [`prefix`].
    pub fn of(module: usize) -> Option<Roles> {
        prefix(module).map(|p| Roles::named(module, p))
    }

    /// The roles of `module`'s counters named `<prefix>_…` (any module,
    /// [`extension_prefix`]'s too).
    pub fn named(module: usize, prefix: &'static str) -> Roles {
        let (names, fnames) = counter_names(module);
        let c = |suffix: &str| {
            names.iter().position(|n| n.strip_prefix(prefix).and_then(|s| s.strip_prefix('_')) == Some(suffix))
        };
        let f = |suffix: &str| {
            fnames.iter().position(|n| n.strip_prefix(prefix).and_then(|s| s.strip_prefix('_')) == Some(suffix))
        };
        let mut l = Roles {
            module,
            prefix,
            bytes_read: c("BYTES_READ").or_else(|| c("ARRAY_BYTES_READ")),
            bytes_written: c("BYTES_WRITTEN").or_else(|| c("ARRAY_BYTES_WRITTEN")),
            max_byte_read: c("MAX_BYTE_READ"),
            max_byte_written: c("MAX_BYTE_WRITTEN"),
            read_time: f("F_READ_TIME"),
            write_time: f("F_WRITE_TIME"),
            meta_time: f("F_META_TIME"),
            wait_time: f("F_WAIT_TIME"),
            fastest_rank: c("FASTEST_RANK"),
            fastest_rank_bytes: c("FASTEST_RANK_BYTES"),
            slowest_rank: c("SLOWEST_RANK"),
            slowest_rank_bytes: c("SLOWEST_RANK_BYTES"),
            f_fastest_time: f("F_FASTEST_RANK_TIME"),
            f_slowest_time: f("F_SLOWEST_RANK_TIME"),
            read_span: f("F_READ_START_TIMESTAMP").zip(f("F_READ_END_TIMESTAMP")),
            write_span: f("F_WRITE_START_TIMESTAMP").zip(f("F_WRITE_END_TIMESTAMP")),
            reads: c("READS"),
            writes: c("WRITES"),
            ..Default::default()
        };
        for (i, n) in names.iter().enumerate() {
            let Some(rest) = n.strip_prefix(prefix).and_then(|s| s.strip_prefix("_SIZE_READ_")) else { continue };
            let label = rest.strip_prefix("AGG_").unwrap_or(rest);
            let w = format!("{prefix}_SIZE_WRITE_{rest}");
            if let Some(j) = names.iter().position(|n| *n == w) {
                if bucket_bounds(label).1.is_some_and(|hi| hi <= MIB) {
                    l.small.push((i, j));
                }
                if bucket_bounds(label).1 == Some(MIB) {
                    l.mib_bucket = Some((i, j));
                }
                l.size_buckets.push((label.to_string(), i, j));
            }
        }
        for k in 1..=4 {
            if let (Some(a), Some(n)) = (c(&format!("ACCESS{k}_ACCESS")), c(&format!("ACCESS{k}_COUNT"))) {
                l.access.push((a, n));
            }
        }
        l
    }

    /// At least how many of record `r`'s reads and of its writes were of
    /// exactly 1 MiB: requests its `small` buckets count that are not
    /// under 1 MiB. The common accesses count the reads and writes of a
    /// size together, and never more than were made (a process counts
    /// only the first 32 sizes it sees; a shared record sums each rank's
    /// four most common), so one direction made at least that count less
    /// the other direction's whole bucket. (0, 0) where the module keeps
    /// no such bucket or 1 MiB is not among the common accesses.
    pub fn exactly_1mib(&self, r: &Record) -> (i64, i64) {
        let Some((br, bw)) = self.mib_bucket else { return (0, 0) };
        let at = |k: usize| r.counters.get(k).copied().unwrap_or(0).max(0);
        // The first slot of 1 MiB: no runtime lists a size twice.
        let common = self.access.iter().find(|(a, _)| at(*a) == MIB as i64).map_or(0, |(_, n)| at(*n));
        let (read_bucket, write_bucket) = (at(br), at(bw));
        (
            common.saturating_sub(write_bucket).clamp(0, read_bucket),
            common.saturating_sub(read_bucket).clamp(0, write_bucket),
        )
    }

    /// Index of a counter by its full name (e.g. "POSIX_READS").
    pub fn counter(&self, name: &str) -> Option<usize> {
        counter_names(self.module).0.iter().position(|n| *n == name)
    }
}

/// 1 MiB, the top of the access-size buckets Drishti calls small.
const MIB: f64 = 1048576.0;

/// Lower bound in bytes of a histogram bucket label such as `1K_10K`,
/// `100M_1G` or `1G_PLUS`, and its upper bound (None for open-ended).
pub fn bucket_bounds(label: &str) -> (f64, Option<f64>) {
    let num = |s: &str| -> f64 {
        let (d, m) = match s.as_bytes().last() {
            Some(b'K') => (&s[..s.len() - 1], 1024.0),
            Some(b'M') => (&s[..s.len() - 1], 1048576.0),
            Some(b'G') => (&s[..s.len() - 1], 1073741824.0),
            _ => (s, 1.0),
        };
        d.parse::<f64>().unwrap_or(0.0) * m
    };
    let mut parts = label.splitn(2, '_');
    let lo = num(parts.next().unwrap_or("0"));
    match parts.next() {
        Some("PLUS") | None => (lo, None),
        Some(hi) => (lo, Some(num(hi))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// darshan-util's −1 for a PNETCDF_FILE v2 record's metadata time is
    /// no time: the record's I/O time is its write time alone.
    #[test]
    fn a_time_not_recorded_adds_nothing_to_a_records_io_time() {
        use crate::counters::pnetcdf_file as f;
        let l = Roles::of(modules::PNETCDF_FILE).unwrap();
        let mut r = Record::zeroed(modules::PNETCDF_FILE, 1, -1);
        r.fcounters[f::F_META_TIME] = -1.0;
        r.fcounters[f::F_WAIT_TIME] = 2.5;
        assert_eq!((l.io_time(&r), time_at(&r, l.wait_time), time_at(&r, None)), (0.0, 2.5, 0.0));
        r.fcounters[f::F_META_TIME] = 0.75;
        assert_eq!(l.io_time(&r), 0.75);
    }

    #[test]
    fn posix_and_mpiio_layouts_find_their_histograms_and_common_accesses() {
        let p = Roles::of(modules::POSIX).unwrap();
        assert_eq!(p.size_buckets.len(), 10);
        assert_eq!(p.size_buckets[0].0, "0_100");
        let posix = crate::counters::posix::SIZE_READ_0_100..=crate::counters::posix::SIZE_READ_100K_1M;
        assert_eq!(p.small.iter().map(|s| s.0).collect::<Vec<_>>(), posix.collect::<Vec<_>>());
        assert_eq!(p.reads, Some(crate::counters::posix::READS));
        assert_eq!(p.access.len(), 4);
        assert_eq!(p.bytes_read, Some(crate::counters::posix::BYTES_READ));
        assert_eq!(p.f_slowest_time, Some(crate::counters::posix::F_SLOWEST_RANK_TIME));
        let m = Roles::of(modules::MPIIO).unwrap();
        assert_eq!(m.size_buckets.len(), 10);
        assert_eq!(m.size_buckets[9].0, "1G_PLUS");
        let s = Roles::of(modules::STDIO).unwrap();
        assert!(s.size_buckets.is_empty());
        assert!(s.max_byte_read.is_some());
    }

    #[test]
    fn io_uring_is_named_as_an_extension_not_a_reported_interface() {
        use crate::counters::io_uring as c;
        assert!(Roles::of(modules::IO_URING).is_none());
        let u = Roles::named(modules::IO_URING, extension_prefix(modules::IO_URING).unwrap());
        assert_eq!((u.reads, u.writes), (Some(c::READS), Some(c::WRITES)));
        assert_eq!((u.bytes_read, u.bytes_written), (Some(c::BYTES_READ), Some(c::BYTES_WRITTEN)));
        assert_eq!(u.size_buckets.len(), 10);
        assert_eq!(u.small.len(), 5);
    }

    /// `dd bs=1M` reads 1,500 MiB and a last read of 0 bytes: C puts
    /// all but that one in the 100K_1M bucket, which no request of 1 MiB
    /// makes small; where reads and writes of 1 MiB share the common
    /// count, each direction is given only what the other's bucket
    /// cannot hold.
    #[test]
    fn requests_of_exactly_1_mib_are_told_from_the_bucket_they_share() {
        use crate::counters::posix as p;
        let l = Roles::of(modules::POSIX).unwrap();
        let mut r = Record::zeroed(modules::POSIX, 1, 0);
        r.counters[p::SIZE_READ_100K_1M] = 1500;
        r.counters[p::SIZE_READ_0_100] = 1;
        (r.counters[p::ACCESS1_ACCESS], r.counters[p::ACCESS1_COUNT]) = (1048576, 1500);
        (r.counters[p::ACCESS2_ACCESS], r.counters[p::ACCESS2_COUNT]) = (0, 1);
        assert_eq!(l.exactly_1mib(&r), (1500, 0));
        // 600 writes in the bucket too: of the 1,500 of 1 MiB, at least
        // 900 were reads; the writes' share cannot be told.
        r.counters[p::SIZE_WRITE_100K_1M] = 600;
        assert_eq!(l.exactly_1mib(&r), (900, 0));
        // Every bucketed request of 1 MiB, both ways.
        r.counters[p::ACCESS1_COUNT] = 2100;
        assert_eq!(l.exactly_1mib(&r), (1500, 600));
        // 1 MiB not among the common accesses; a hostile count.
        r.counters[p::ACCESS1_ACCESS] = 1048575;
        assert_eq!(l.exactly_1mib(&r), (0, 0));
        (r.counters[p::ACCESS1_ACCESS], r.counters[p::ACCESS1_COUNT]) = (1048576, i64::MAX);
        assert_eq!(l.exactly_1mib(&r), (1500, 600));
        assert_eq!(Roles::of(modules::STDIO).unwrap().exactly_1mib(&Record::zeroed(modules::STDIO, 1, 0)), (0, 0));
    }

    #[test]
    fn bucket_labels_give_byte_bounds() {
        assert_eq!(bucket_bounds("0_100"), (0.0, Some(100.0)));
        assert_eq!(bucket_bounds("100K_1M"), (102400.0, Some(1048576.0)));
        assert_eq!(bucket_bounds("1G_PLUS"), (1073741824.0, None));
    }
}
