//! Counter indices of the record layouts the runtime writes (as Darshan's
//! `include/darshan-*-log-format.h`), generated from the name tables.
//! A record is 64-bit words: id, rank, counters, then fcounters.

/// Index (0..10) of Darshan's access-size bucket for an access of `bytes`
/// (SIZE_*_0_100, 100_1K, ... 1G_PLUS): upper bounds inclusive. Shared by
/// the runtime's wrappers and the tools that write logs.
#[inline]
pub fn size_bucket(bytes: i64) -> usize {
    const BOUNDS: [i64; 9] = [100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824];
    BOUNDS.iter().position(|&b| bytes <= b).unwrap_or(9)
}

/// The word positions of a module's counters, from its `COUNTERS_AT`,
/// `FCOUNTERS_AT`, `NUM_INDICES` and `F_NUM_INDICES`: `word(k)` and
/// `fword(k)` (checked in debug builds and wherever `k` is a constant),
/// and `words(first, last)` for a family whose members are consecutive
/// by the format's definition (histogram bins, per-call counters).
#[macro_export]
macro_rules! layout_fns {
    () => {
        /// Word of counter `k` in a record.
        #[inline(always)]
        pub const fn word(k: usize) -> usize {
            debug_assert!(k < NUM_INDICES);
            COUNTERS_AT + k
        }
        /// Word of fcounter `k` in a record.
        #[inline(always)]
        pub const fn fword(k: usize) -> usize {
            debug_assert!(k < F_NUM_INDICES);
            FCOUNTERS_AT + k
        }
        /// The words of counters `first..=last`, checked to be in order.
        pub const fn words(first: usize, last: usize) -> std::ops::RangeInclusive<usize> {
            assert!(first <= last && last < NUM_INDICES);
            word(first)..=word(last)
        }
    };
}

/// A module's counter and fcounter indices, written once: as `usize`
/// constants (the tools index parsed records' counter vectors with them)
/// and, in the module's `typed` namespace, as constants of two distinct
/// types, `Counter` and `FCounter`, whose `word`/`fword` take only their
/// own kind. The runtime's modules use `typed`: an fcounter passed where
/// a counter belongs (or another module's counter: each module's types
/// are its own) does not compile, where with plain indices it silently
/// addressed the wrong word:
///
/// ```compile_fail
/// use darshan_log::counters::posix::typed as c;
/// let _ = c::word(c::F_READ_TIME); // an fcounter where a counter belongs
/// ```
///
/// ```compile_fail
/// use darshan_log::counters::posix::typed as c;
/// let _ = c::word(darshan_log::counters::stdio::typed::OPENS); // STDIO's
/// ```
///
/// ```
/// use darshan_log::counters::posix::{self, typed as c};
/// assert_eq!(c::word(c::OPENS), posix::word(posix::OPENS));
/// assert_eq!(c::fword(c::F_READ_TIME), posix::fword(posix::F_READ_TIME));
/// ```
#[macro_export]
macro_rules! layout {
    (counters { $($c:ident = $cv:expr,)* } fcounters { $($f:ident = $fv:expr,)* }) => {
        $(pub const $c: usize = $cv;)*
        $(pub const $f: usize = $fv;)*
        $crate::layout_fns!();

        /// This module's record layout with typed indices (see
        /// [`layout!`](crate::layout)): everything of the module, with
        /// the counter names, `word`, `fword` and `words` typed.
        pub mod typed {
            pub use super::*;

            /// A counter of this module's record.
            #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
            pub struct Counter(usize);
            /// An fcounter of this module's record.
            #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
            pub struct FCounter(usize);

            impl Counter {
                /// Its index among the counters (the tools' `usize` index).
                pub const fn index(self) -> usize {
                    self.0
                }
                /// The counter `n` places after this one, in a family the
                /// format lays out consecutively (histogram bins, ACCESS1..4).
                #[inline(always)]
                pub const fn plus(self, n: usize) -> Counter {
                    assert!(self.0 + n < NUM_INDICES);
                    Counter(self.0 + n)
                }
                /// Every counter, in order.
                pub fn all() -> impl Iterator<Item = Counter> {
                    (0..NUM_INDICES).map(Counter)
                }
            }

            impl FCounter {
                pub const fn index(self) -> usize {
                    self.0
                }
                #[inline(always)]
                pub const fn plus(self, n: usize) -> FCounter {
                    assert!(self.0 + n < F_NUM_INDICES);
                    FCounter(self.0 + n)
                }
                pub fn all() -> impl Iterator<Item = FCounter> {
                    (0..F_NUM_INDICES).map(FCounter)
                }
            }

            $(pub const $c: Counter = Counter($cv);)*
            $(pub const $f: FCounter = FCounter($fv);)*

            /// Word of counter `k` in a record.
            #[inline(always)]
            pub const fn word(k: Counter) -> usize {
                super::word(k.0)
            }
            /// Word of fcounter `k` in a record.
            #[inline(always)]
            pub const fn fword(k: FCounter) -> usize {
                super::fword(k.0)
            }
            /// The words of counters `first..=last`, checked to be in order.
            pub const fn words(first: Counter, last: Counter) -> std::ops::RangeInclusive<usize> {
                super::words(first.0, last.0)
            }
            /// The words of fcounters `first..=last`, checked to be in order.
            pub const fn fwords(first: FCounter, last: FCounter) -> std::ops::RangeInclusive<usize> {
                assert!(first.0 <= last.0 && last.0 < F_NUM_INDICES);
                super::fword(first.0)..=super::fword(last.0)
            }
        }
    };
}

/// Whether `value` of counter `k` of `module` is Darshan's "not
/// recorded": C Darshan's LD_PRELOAD library does not wrap mmap and
/// stores −1 in POSIX_MMAPS (docs/counter-rules.md). Such a value is no
/// count: it is never summed or compared, shown as "not recorded" by the
/// report and stored as NULL in the facility database.
pub fn not_recorded(module: usize, k: usize, value: i64) -> bool {
    value == -1 && module == crate::modules::POSIX && k == posix::MMAPS
}

pub mod posix {
    pub const NUM_INDICES: usize = 69;
    pub const F_NUM_INDICES: usize = 17;
    /// Words in one record: id, rank, counters, fcounters.
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout! {
        counters {
            OPENS = 0,
            FILENOS = 1,
            DUPS = 2,
            READS = 3,
            WRITES = 4,
            SEEKS = 5,
            STATS = 6,
            MMAPS = 7,
            FSYNCS = 8,
            FDSYNCS = 9,
            RENAME_SOURCES = 10,
            RENAME_TARGETS = 11,
            RENAMED_FROM = 12,
            MODE = 13,
            BYTES_READ = 14,
            BYTES_WRITTEN = 15,
            MAX_BYTE_READ = 16,
            MAX_BYTE_WRITTEN = 17,
            CONSEC_READS = 18,
            CONSEC_WRITES = 19,
            SEQ_READS = 20,
            SEQ_WRITES = 21,
            RW_SWITCHES = 22,
            MEM_NOT_ALIGNED = 23,
            MEM_ALIGNMENT = 24,
            FILE_NOT_ALIGNED = 25,
            FILE_ALIGNMENT = 26,
            MAX_READ_TIME_SIZE = 27,
            MAX_WRITE_TIME_SIZE = 28,
            SIZE_READ_0_100 = 29,
            SIZE_READ_100_1K = 30,
            SIZE_READ_1K_10K = 31,
            SIZE_READ_10K_100K = 32,
            SIZE_READ_100K_1M = 33,
            SIZE_READ_1M_4M = 34,
            SIZE_READ_4M_10M = 35,
            SIZE_READ_10M_100M = 36,
            SIZE_READ_100M_1G = 37,
            SIZE_READ_1G_PLUS = 38,
            SIZE_WRITE_0_100 = 39,
            SIZE_WRITE_100_1K = 40,
            SIZE_WRITE_1K_10K = 41,
            SIZE_WRITE_10K_100K = 42,
            SIZE_WRITE_100K_1M = 43,
            SIZE_WRITE_1M_4M = 44,
            SIZE_WRITE_4M_10M = 45,
            SIZE_WRITE_10M_100M = 46,
            SIZE_WRITE_100M_1G = 47,
            SIZE_WRITE_1G_PLUS = 48,
            STRIDE1_STRIDE = 49,
            STRIDE2_STRIDE = 50,
            STRIDE3_STRIDE = 51,
            STRIDE4_STRIDE = 52,
            STRIDE1_COUNT = 53,
            STRIDE2_COUNT = 54,
            STRIDE3_COUNT = 55,
            STRIDE4_COUNT = 56,
            ACCESS1_ACCESS = 57,
            ACCESS2_ACCESS = 58,
            ACCESS3_ACCESS = 59,
            ACCESS4_ACCESS = 60,
            ACCESS1_COUNT = 61,
            ACCESS2_COUNT = 62,
            ACCESS3_COUNT = 63,
            ACCESS4_COUNT = 64,
            FASTEST_RANK = 65,
            FASTEST_RANK_BYTES = 66,
            SLOWEST_RANK = 67,
            SLOWEST_RANK_BYTES = 68,
        }
        fcounters {
            F_OPEN_START_TIMESTAMP = 0,
            F_READ_START_TIMESTAMP = 1,
            F_WRITE_START_TIMESTAMP = 2,
            F_CLOSE_START_TIMESTAMP = 3,
            F_OPEN_END_TIMESTAMP = 4,
            F_READ_END_TIMESTAMP = 5,
            F_WRITE_END_TIMESTAMP = 6,
            F_CLOSE_END_TIMESTAMP = 7,
            F_READ_TIME = 8,
            F_WRITE_TIME = 9,
            F_META_TIME = 10,
            F_MAX_READ_TIME = 11,
            F_MAX_WRITE_TIME = 12,
            F_FASTEST_RANK_TIME = 13,
            F_SLOWEST_RANK_TIME = 14,
            F_VARIANCE_RANK_TIME = 15,
            F_VARIANCE_RANK_BYTES = 16,
        }
    }
}

pub mod null {
    //! The NULL module's template record (`modules/null`).
    pub const NUM_INDICES: usize = 2;
    pub const F_NUM_INDICES: usize = 2;
    /// Words in one record: id, rank, counters, fcounters.
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout! {
        counters {
            FOOS = 0,
            FOO_MAX_DAT = 1,
        }
        fcounters {
            F_FOO_TIMESTAMP = 0,
            F_FOO_MAX_DURATION = 1,
        }
    }
}

pub mod stdio {
    pub const NUM_INDICES: usize = 14;
    pub const F_NUM_INDICES: usize = 15;
    /// Words in one record: id, rank, counters, fcounters.
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout! {
        counters {
            OPENS = 0,
            FDOPENS = 1,
            READS = 2,
            WRITES = 3,
            SEEKS = 4,
            FLUSHES = 5,
            BYTES_WRITTEN = 6,
            BYTES_READ = 7,
            MAX_BYTE_READ = 8,
            MAX_BYTE_WRITTEN = 9,
            FASTEST_RANK = 10,
            FASTEST_RANK_BYTES = 11,
            SLOWEST_RANK = 12,
            SLOWEST_RANK_BYTES = 13,
        }
        fcounters {
            F_META_TIME = 0,
            F_WRITE_TIME = 1,
            F_READ_TIME = 2,
            F_OPEN_START_TIMESTAMP = 3,
            F_CLOSE_START_TIMESTAMP = 4,
            F_WRITE_START_TIMESTAMP = 5,
            F_READ_START_TIMESTAMP = 6,
            F_OPEN_END_TIMESTAMP = 7,
            F_CLOSE_END_TIMESTAMP = 8,
            F_WRITE_END_TIMESTAMP = 9,
            F_READ_END_TIMESTAMP = 10,
            F_FASTEST_RANK_TIME = 11,
            F_SLOWEST_RANK_TIME = 12,
            F_VARIANCE_RANK_TIME = 13,
            F_VARIANCE_RANK_BYTES = 14,
        }
    }
}

pub mod mpiio {
    pub const NUM_INDICES: usize = 51;
    pub const F_NUM_INDICES: usize = 17;
    /// Words in one record: id, rank, counters, fcounters.
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout! {
        counters {
            INDEP_OPENS = 0,
            COLL_OPENS = 1,
            INDEP_READS = 2,
            INDEP_WRITES = 3,
            COLL_READS = 4,
            COLL_WRITES = 5,
            SPLIT_READS = 6,
            SPLIT_WRITES = 7,
            NB_READS = 8,
            NB_WRITES = 9,
            SYNCS = 10,
            HINTS = 11,
            VIEWS = 12,
            MODE = 13,
            BYTES_READ = 14,
            BYTES_WRITTEN = 15,
            RW_SWITCHES = 16,
            MAX_READ_TIME_SIZE = 17,
            MAX_WRITE_TIME_SIZE = 18,
            SIZE_READ_AGG_0_100 = 19,
            SIZE_READ_AGG_100_1K = 20,
            SIZE_READ_AGG_1K_10K = 21,
            SIZE_READ_AGG_10K_100K = 22,
            SIZE_READ_AGG_100K_1M = 23,
            SIZE_READ_AGG_1M_4M = 24,
            SIZE_READ_AGG_4M_10M = 25,
            SIZE_READ_AGG_10M_100M = 26,
            SIZE_READ_AGG_100M_1G = 27,
            SIZE_READ_AGG_1G_PLUS = 28,
            SIZE_WRITE_AGG_0_100 = 29,
            SIZE_WRITE_AGG_100_1K = 30,
            SIZE_WRITE_AGG_1K_10K = 31,
            SIZE_WRITE_AGG_10K_100K = 32,
            SIZE_WRITE_AGG_100K_1M = 33,
            SIZE_WRITE_AGG_1M_4M = 34,
            SIZE_WRITE_AGG_4M_10M = 35,
            SIZE_WRITE_AGG_10M_100M = 36,
            SIZE_WRITE_AGG_100M_1G = 37,
            SIZE_WRITE_AGG_1G_PLUS = 38,
            ACCESS1_ACCESS = 39,
            ACCESS2_ACCESS = 40,
            ACCESS3_ACCESS = 41,
            ACCESS4_ACCESS = 42,
            ACCESS1_COUNT = 43,
            ACCESS2_COUNT = 44,
            ACCESS3_COUNT = 45,
            ACCESS4_COUNT = 46,
            FASTEST_RANK = 47,
            FASTEST_RANK_BYTES = 48,
            SLOWEST_RANK = 49,
            SLOWEST_RANK_BYTES = 50,
        }
        fcounters {
            F_OPEN_START_TIMESTAMP = 0,
            F_READ_START_TIMESTAMP = 1,
            F_WRITE_START_TIMESTAMP = 2,
            F_CLOSE_START_TIMESTAMP = 3,
            F_OPEN_END_TIMESTAMP = 4,
            F_READ_END_TIMESTAMP = 5,
            F_WRITE_END_TIMESTAMP = 6,
            F_CLOSE_END_TIMESTAMP = 7,
            F_READ_TIME = 8,
            F_WRITE_TIME = 9,
            F_META_TIME = 10,
            F_MAX_READ_TIME = 11,
            F_MAX_WRITE_TIME = 12,
            F_FASTEST_RANK_TIME = 13,
            F_SLOWEST_RANK_TIME = 14,
            F_VARIANCE_RANK_TIME = 15,
            F_VARIANCE_RANK_BYTES = 16,
        }
    }
}

pub mod h5f {
    pub const NUM_INDICES: usize = 3;
    pub const F_NUM_INDICES: usize = 5;
    /// Words in one record: id, rank, counters, fcounters.
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout! {
        counters {
            OPENS = 0,
            FLUSHES = 1,
            USE_MPIIO = 2,
        }
        fcounters {
            F_OPEN_START_TIMESTAMP = 0,
            F_CLOSE_START_TIMESTAMP = 1,
            F_OPEN_END_TIMESTAMP = 2,
            F_CLOSE_END_TIMESTAMP = 3,
            F_META_TIME = 4,
        }
    }
}

pub mod h5d {
    pub const NUM_INDICES: usize = 94;
    pub const F_NUM_INDICES: usize = 17;
    /// Words in one record: id, rank, file_rec_id, counters, fcounters.
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank, file_rec_id) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 3;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    /// Dimensions a record keeps (Darshan's H5D_MAX_NDIMS).
    pub const MAX_NDIMS: usize = 5;
    crate::layout! {
        counters {
            OPENS = 0,
            READS = 1,
            WRITES = 2,
            FLUSHES = 3,
            BYTES_READ = 4,
            BYTES_WRITTEN = 5,
            RW_SWITCHES = 6,
            REGULAR_HYPERSLAB_SELECTS = 7,
            IRREGULAR_HYPERSLAB_SELECTS = 8,
            POINT_SELECTS = 9,
            MAX_READ_TIME_SIZE = 10,
            MAX_WRITE_TIME_SIZE = 11,
            SIZE_READ_AGG_0_100 = 12,
            SIZE_READ_AGG_100_1K = 13,
            SIZE_READ_AGG_1K_10K = 14,
            SIZE_READ_AGG_10K_100K = 15,
            SIZE_READ_AGG_100K_1M = 16,
            SIZE_READ_AGG_1M_4M = 17,
            SIZE_READ_AGG_4M_10M = 18,
            SIZE_READ_AGG_10M_100M = 19,
            SIZE_READ_AGG_100M_1G = 20,
            SIZE_READ_AGG_1G_PLUS = 21,
            SIZE_WRITE_AGG_0_100 = 22,
            SIZE_WRITE_AGG_100_1K = 23,
            SIZE_WRITE_AGG_1K_10K = 24,
            SIZE_WRITE_AGG_10K_100K = 25,
            SIZE_WRITE_AGG_100K_1M = 26,
            SIZE_WRITE_AGG_1M_4M = 27,
            SIZE_WRITE_AGG_4M_10M = 28,
            SIZE_WRITE_AGG_10M_100M = 29,
            SIZE_WRITE_AGG_100M_1G = 30,
            SIZE_WRITE_AGG_1G_PLUS = 31,
            ACCESS1_ACCESS = 32,
            ACCESS1_LENGTH_D1 = 33,
            ACCESS1_LENGTH_D2 = 34,
            ACCESS1_LENGTH_D3 = 35,
            ACCESS1_LENGTH_D4 = 36,
            ACCESS1_LENGTH_D5 = 37,
            ACCESS1_STRIDE_D1 = 38,
            ACCESS1_STRIDE_D2 = 39,
            ACCESS1_STRIDE_D3 = 40,
            ACCESS1_STRIDE_D4 = 41,
            ACCESS1_STRIDE_D5 = 42,
            ACCESS2_ACCESS = 43,
            ACCESS2_LENGTH_D1 = 44,
            ACCESS2_LENGTH_D2 = 45,
            ACCESS2_LENGTH_D3 = 46,
            ACCESS2_LENGTH_D4 = 47,
            ACCESS2_LENGTH_D5 = 48,
            ACCESS2_STRIDE_D1 = 49,
            ACCESS2_STRIDE_D2 = 50,
            ACCESS2_STRIDE_D3 = 51,
            ACCESS2_STRIDE_D4 = 52,
            ACCESS2_STRIDE_D5 = 53,
            ACCESS3_ACCESS = 54,
            ACCESS3_LENGTH_D1 = 55,
            ACCESS3_LENGTH_D2 = 56,
            ACCESS3_LENGTH_D3 = 57,
            ACCESS3_LENGTH_D4 = 58,
            ACCESS3_LENGTH_D5 = 59,
            ACCESS3_STRIDE_D1 = 60,
            ACCESS3_STRIDE_D2 = 61,
            ACCESS3_STRIDE_D3 = 62,
            ACCESS3_STRIDE_D4 = 63,
            ACCESS3_STRIDE_D5 = 64,
            ACCESS4_ACCESS = 65,
            ACCESS4_LENGTH_D1 = 66,
            ACCESS4_LENGTH_D2 = 67,
            ACCESS4_LENGTH_D3 = 68,
            ACCESS4_LENGTH_D4 = 69,
            ACCESS4_LENGTH_D5 = 70,
            ACCESS4_STRIDE_D1 = 71,
            ACCESS4_STRIDE_D2 = 72,
            ACCESS4_STRIDE_D3 = 73,
            ACCESS4_STRIDE_D4 = 74,
            ACCESS4_STRIDE_D5 = 75,
            ACCESS1_COUNT = 76,
            ACCESS2_COUNT = 77,
            ACCESS3_COUNT = 78,
            ACCESS4_COUNT = 79,
            DATASPACE_NDIMS = 80,
            DATASPACE_NPOINTS = 81,
            DATATYPE_SIZE = 82,
            CHUNK_SIZE_D1 = 83,
            CHUNK_SIZE_D2 = 84,
            CHUNK_SIZE_D3 = 85,
            CHUNK_SIZE_D4 = 86,
            CHUNK_SIZE_D5 = 87,
            USE_MPIIO_COLLECTIVE = 88,
            USE_DEPRECATED = 89,
            FASTEST_RANK = 90,
            FASTEST_RANK_BYTES = 91,
            SLOWEST_RANK = 92,
            SLOWEST_RANK_BYTES = 93,
        }
        fcounters {
            F_OPEN_START_TIMESTAMP = 0,
            F_READ_START_TIMESTAMP = 1,
            F_WRITE_START_TIMESTAMP = 2,
            F_CLOSE_START_TIMESTAMP = 3,
            F_OPEN_END_TIMESTAMP = 4,
            F_READ_END_TIMESTAMP = 5,
            F_WRITE_END_TIMESTAMP = 6,
            F_CLOSE_END_TIMESTAMP = 7,
            F_READ_TIME = 8,
            F_WRITE_TIME = 9,
            F_META_TIME = 10,
            F_MAX_READ_TIME = 11,
            F_MAX_WRITE_TIME = 12,
            F_FASTEST_RANK_TIME = 13,
            F_SLOWEST_RANK_TIME = 14,
            F_VARIANCE_RANK_TIME = 15,
            F_VARIANCE_RANK_BYTES = 16,
        }
    }
}

pub mod bgq {
    pub const NUM_INDICES: usize = 11;
    pub const F_NUM_INDICES: usize = 1;
    /// Words in one record: id, rank, counters, fcounters (112 bytes).
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout! {
        counters {
            CSJOBID = 0,
            NNODES = 1,
            RANKSPERNODE = 2,
            DDRPERNODE = 3,
            INODES = 4,
            ANODES = 5,
            BNODES = 6,
            CNODES = 7,
            DNODES = 8,
            ENODES = 9,
            TORUSENABLED = 10,
        }
        fcounters {
            F_TIMESTAMP = 0,
        }
    }
}

pub mod pnetcdf_file {
    pub const NUM_INDICES: usize = 9;
    pub const F_NUM_INDICES: usize = 8;
    /// Words in one record: id, rank, counters, fcounters (152 bytes).
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout! {
        counters {
            CREATES = 0,
            OPENS = 1,
            REDEFS = 2,
            INDEP_WAITS = 3,
            COLL_WAITS = 4,
            SYNCS = 5,
            BYTES_READ = 6,
            BYTES_WRITTEN = 7,
            WAIT_FAILURES = 8,
        }
        fcounters {
            F_OPEN_START_TIMESTAMP = 0,
            F_CLOSE_START_TIMESTAMP = 1,
            F_WAIT_START_TIMESTAMP = 2,
            F_OPEN_END_TIMESTAMP = 3,
            F_CLOSE_END_TIMESTAMP = 4,
            F_WAIT_END_TIMESTAMP = 5,
            F_META_TIME = 6,
            F_WAIT_TIME = 7,
        }
    }
}

pub mod pnetcdf_var {
    pub const NUM_INDICES: usize = 120;
    pub const F_NUM_INDICES: usize = 17;
    /// Words in one record: id, rank, file_rec_id, counters, fcounters (1120 bytes).
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank, file_rec_id) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 3;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    /// Dimensions a record keeps (Darshan's PNETCDF_VAR_MAX_NDIMS).
    pub const MAX_NDIMS: usize = 5;
    crate::layout! {
        counters {
            OPENS = 0,
            INDEP_READS = 1,
            INDEP_WRITES = 2,
            COLL_READS = 3,
            COLL_WRITES = 4,
            NB_READS = 5,
            NB_WRITES = 6,
            BYTES_READ = 7,
            BYTES_WRITTEN = 8,
            RW_SWITCHES = 9,
            PUT_VAR = 10,
            PUT_VAR1 = 11,
            PUT_VARA = 12,
            PUT_VARS = 13,
            PUT_VARM = 14,
            PUT_VARN = 15,
            PUT_VARD = 16,
            GET_VAR = 17,
            GET_VAR1 = 18,
            GET_VARA = 19,
            GET_VARS = 20,
            GET_VARM = 21,
            GET_VARN = 22,
            GET_VARD = 23,
            IPUT_VAR = 24,
            IPUT_VAR1 = 25,
            IPUT_VARA = 26,
            IPUT_VARS = 27,
            IPUT_VARM = 28,
            IPUT_VARN = 29,
            IGET_VAR = 30,
            IGET_VAR1 = 31,
            IGET_VARA = 32,
            IGET_VARS = 33,
            IGET_VARM = 34,
            IGET_VARN = 35,
            BPUT_VAR = 36,
            BPUT_VAR1 = 37,
            BPUT_VARA = 38,
            BPUT_VARS = 39,
            BPUT_VARM = 40,
            BPUT_VARN = 41,
            MAX_READ_TIME_SIZE = 42,
            MAX_WRITE_TIME_SIZE = 43,
            SIZE_READ_AGG_0_100 = 44,
            SIZE_READ_AGG_100_1K = 45,
            SIZE_READ_AGG_1K_10K = 46,
            SIZE_READ_AGG_10K_100K = 47,
            SIZE_READ_AGG_100K_1M = 48,
            SIZE_READ_AGG_1M_4M = 49,
            SIZE_READ_AGG_4M_10M = 50,
            SIZE_READ_AGG_10M_100M = 51,
            SIZE_READ_AGG_100M_1G = 52,
            SIZE_READ_AGG_1G_PLUS = 53,
            SIZE_WRITE_AGG_0_100 = 54,
            SIZE_WRITE_AGG_100_1K = 55,
            SIZE_WRITE_AGG_1K_10K = 56,
            SIZE_WRITE_AGG_10K_100K = 57,
            SIZE_WRITE_AGG_100K_1M = 58,
            SIZE_WRITE_AGG_1M_4M = 59,
            SIZE_WRITE_AGG_4M_10M = 60,
            SIZE_WRITE_AGG_10M_100M = 61,
            SIZE_WRITE_AGG_100M_1G = 62,
            SIZE_WRITE_AGG_1G_PLUS = 63,
            ACCESS1_ACCESS = 64,
            ACCESS1_LENGTH_D1 = 65,
            ACCESS1_LENGTH_D2 = 66,
            ACCESS1_LENGTH_D3 = 67,
            ACCESS1_LENGTH_D4 = 68,
            ACCESS1_LENGTH_D5 = 69,
            ACCESS1_STRIDE_D1 = 70,
            ACCESS1_STRIDE_D2 = 71,
            ACCESS1_STRIDE_D3 = 72,
            ACCESS1_STRIDE_D4 = 73,
            ACCESS1_STRIDE_D5 = 74,
            ACCESS2_ACCESS = 75,
            ACCESS2_LENGTH_D1 = 76,
            ACCESS2_LENGTH_D2 = 77,
            ACCESS2_LENGTH_D3 = 78,
            ACCESS2_LENGTH_D4 = 79,
            ACCESS2_LENGTH_D5 = 80,
            ACCESS2_STRIDE_D1 = 81,
            ACCESS2_STRIDE_D2 = 82,
            ACCESS2_STRIDE_D3 = 83,
            ACCESS2_STRIDE_D4 = 84,
            ACCESS2_STRIDE_D5 = 85,
            ACCESS3_ACCESS = 86,
            ACCESS3_LENGTH_D1 = 87,
            ACCESS3_LENGTH_D2 = 88,
            ACCESS3_LENGTH_D3 = 89,
            ACCESS3_LENGTH_D4 = 90,
            ACCESS3_LENGTH_D5 = 91,
            ACCESS3_STRIDE_D1 = 92,
            ACCESS3_STRIDE_D2 = 93,
            ACCESS3_STRIDE_D3 = 94,
            ACCESS3_STRIDE_D4 = 95,
            ACCESS3_STRIDE_D5 = 96,
            ACCESS4_ACCESS = 97,
            ACCESS4_LENGTH_D1 = 98,
            ACCESS4_LENGTH_D2 = 99,
            ACCESS4_LENGTH_D3 = 100,
            ACCESS4_LENGTH_D4 = 101,
            ACCESS4_LENGTH_D5 = 102,
            ACCESS4_STRIDE_D1 = 103,
            ACCESS4_STRIDE_D2 = 104,
            ACCESS4_STRIDE_D3 = 105,
            ACCESS4_STRIDE_D4 = 106,
            ACCESS4_STRIDE_D5 = 107,
            ACCESS1_COUNT = 108,
            ACCESS2_COUNT = 109,
            ACCESS3_COUNT = 110,
            ACCESS4_COUNT = 111,
            NDIMS = 112,
            NPOINTS = 113,
            DATATYPE_SIZE = 114,
            IS_RECORD_VAR = 115,
            FASTEST_RANK = 116,
            FASTEST_RANK_BYTES = 117,
            SLOWEST_RANK = 118,
            SLOWEST_RANK_BYTES = 119,
        }
        fcounters {
            F_OPEN_START_TIMESTAMP = 0,
            F_READ_START_TIMESTAMP = 1,
            F_WRITE_START_TIMESTAMP = 2,
            F_CLOSE_START_TIMESTAMP = 3,
            F_OPEN_END_TIMESTAMP = 4,
            F_READ_END_TIMESTAMP = 5,
            F_WRITE_END_TIMESTAMP = 6,
            F_CLOSE_END_TIMESTAMP = 7,
            F_READ_TIME = 8,
            F_WRITE_TIME = 9,
            F_META_TIME = 10,
            F_MAX_READ_TIME = 11,
            F_MAX_WRITE_TIME = 12,
            F_FASTEST_RANK_TIME = 13,
            F_SLOWEST_RANK_TIME = 14,
            F_VARIANCE_RANK_TIME = 15,
            F_VARIANCE_RANK_BYTES = 16,
        }
    }
}

pub mod posix_meta {
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
}

pub mod processes {
    //! PROCESSES (id 62, ours): the processes of a job log, one record
    //! each, written by `darshan-merge --job` from the per-process logs it
    //! merged (a job log keeps each record under its rank, so a rank's
    //! forked or spawned workers are otherwise not told apart). Record id:
    //! the process's index in the job (0-based, rank then start order);
    //! rank: its rank in the job. Figures are the application's own data
    //! (software loading, `crate::software`, apart); times are seconds
    //! since the job's start. docs/log-format.md §12.

    /// What a process is to its job (`ROLE`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Role {
        /// A rank's first process (or, for logs that say nothing of
        /// their place, a process given a rank by start order).
        Rank = 0,
        /// Forked by another process of the job (`fork_parent=`).
        Forked = 1,
        /// Started (fork + exec) by a process of the same rank.
        Spawned = 2,
        /// Started processes of other ranks and has no rank of its own.
        Launcher = 3,
    }

    impl Role {
        pub fn from_word(w: i64) -> Option<Role> {
            [Role::Rank, Role::Forked, Role::Spawned, Role::Launcher].into_iter().find(|r| *r as i64 == w)
        }
        pub fn as_str(self) -> &'static str {
            match self {
                Role::Rank => "rank",
                Role::Forked => "forked worker",
                Role::Spawned => "spawned worker",
                Role::Launcher => "launcher",
            }
        }
    }

    /// Where the timeline bins came from (`TIMELINE_SOURCE`).
    pub const TIMELINE_NONE: i64 = 0;
    pub const TIMELINE_HEATMAP: i64 = 1;
    pub const TIMELINE_DXT: i64 = 2;
    /// Bins of the read timeline: the job's run time in equal parts.
    pub const BINS: usize = 32;
    pub const NUM_INDICES: usize = 43;
    pub const F_NUM_INDICES: usize = 8;
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    crate::layout! {
        counters {
            PID = 0,
            PARENT_PID = 1,
            ROLE = 2,
            RANKED_BY_START = 3,
            READS = 4,
            WRITES = 5,
            BYTES_READ = 6,
            BYTES_WRITTEN = 7,
            SOFTWARE_FILES = 8,
            SOFTWARE_BYTES_READ = 9,
            TIMELINE_SOURCE = 10,
            READ_BIN_0 = 11,
        }
        fcounters {
            F_START = 0,
            F_END = 1,
            F_READ_TIME = 2,
            F_WRITE_TIME = 3,
            F_META_TIME = 4,
            F_FIRST_READ = 5,
            F_LAST_READ_END = 6,
            F_BIN_WIDTH = 7,
        }
    }
}
