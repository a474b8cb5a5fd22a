//! POSIX_META (id 63, ours): namespace, attribute and mapping
//! operations per path (docs/posix-meta.md).

/// How one fcounter of two ranks' records of a path combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// The smaller that is not 0 (0: never happened).
    MinNonzero,
    Max,
    Sum,
}

/// How ranks' records of one path combine, in the runtime's MPI
/// reduction and in darshan-merge alike: every counter sums; the
/// fcounters: the first start, the last end, the total time, the
/// slowest call.
pub const F_COMBINE: [Combine; F_NUM_INDICES] = [Combine::MinNonzero, Combine::Max, Combine::Sum, Combine::Max];
pub const NUM_INDICES: usize = 24;
pub const F_NUM_INDICES: usize = 4;
/// Words in one record: id, rank, counters, fcounters.
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
/// Word offset of the first counter (after id, rank) and of the
/// first fcounter: counter k is word `COUNTERS_AT + k`.
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "POSIX_META";
    counters {
        UNLINKS = 0,
        RENAMES_FROM = 1,
        RENAMES_TO = 2,
        MKDIRS = 3,
        RMDIRS = 4,
        OPENDIRS = 5,
        READDIRS = 6,
        DIR_ENTRIES = 7,
        TRUNCATES = 8,
        FALLOCATES = 9,
        CHMODS = 10,
        CHOWNS = 11,
        ACCESSES = 12,
        LINKS = 13,
        SYMLINKS = 14,
        READLINKS = 15,
        UTIMES = 16,
        XATTR_GETS = 17,
        XATTR_SETS = 18,
        MMAPS = 19,
        MMAP_BYTES = 20,
        MMAP_SHARED_WRITE_BYTES = 21,
        MSYNCS = 22,
        MUNMAPS = 23,
    }
    fcounters {
        F_START_TIMESTAMP = 0,
        F_END_TIMESTAMP = 1,
        F_TIME = 2,
        F_MAX_TIME = 3,
    }
}
