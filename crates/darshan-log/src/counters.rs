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

pub mod posix {
    pub const NUM_INDICES: usize = 69;
    pub const F_NUM_INDICES: usize = 17;
    /// Words in one record: id, rank, counters, fcounters.
    pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
    /// Word offset of the first counter (after id, rank) and of the
    /// first fcounter: counter k is word `COUNTERS_AT + k`.
    pub const COUNTERS_AT: usize = 2;
    pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
    crate::layout_fns!();
    pub const OPENS: usize = 0;
    pub const FILENOS: usize = 1;
    pub const DUPS: usize = 2;
    pub const READS: usize = 3;
    pub const WRITES: usize = 4;
    pub const SEEKS: usize = 5;
    pub const STATS: usize = 6;
    pub const MMAPS: usize = 7;
    pub const FSYNCS: usize = 8;
    pub const FDSYNCS: usize = 9;
    pub const RENAME_SOURCES: usize = 10;
    pub const RENAME_TARGETS: usize = 11;
    pub const RENAMED_FROM: usize = 12;
    pub const MODE: usize = 13;
    pub const BYTES_READ: usize = 14;
    pub const BYTES_WRITTEN: usize = 15;
    pub const MAX_BYTE_READ: usize = 16;
    pub const MAX_BYTE_WRITTEN: usize = 17;
    pub const CONSEC_READS: usize = 18;
    pub const CONSEC_WRITES: usize = 19;
    pub const SEQ_READS: usize = 20;
    pub const SEQ_WRITES: usize = 21;
    pub const RW_SWITCHES: usize = 22;
    pub const MEM_NOT_ALIGNED: usize = 23;
    pub const MEM_ALIGNMENT: usize = 24;
    pub const FILE_NOT_ALIGNED: usize = 25;
    pub const FILE_ALIGNMENT: usize = 26;
    pub const MAX_READ_TIME_SIZE: usize = 27;
    pub const MAX_WRITE_TIME_SIZE: usize = 28;
    pub const SIZE_READ_0_100: usize = 29;
    pub const SIZE_READ_100_1K: usize = 30;
    pub const SIZE_READ_1K_10K: usize = 31;
    pub const SIZE_READ_10K_100K: usize = 32;
    pub const SIZE_READ_100K_1M: usize = 33;
    pub const SIZE_READ_1M_4M: usize = 34;
    pub const SIZE_READ_4M_10M: usize = 35;
    pub const SIZE_READ_10M_100M: usize = 36;
    pub const SIZE_READ_100M_1G: usize = 37;
    pub const SIZE_READ_1G_PLUS: usize = 38;
    pub const SIZE_WRITE_0_100: usize = 39;
    pub const SIZE_WRITE_100_1K: usize = 40;
    pub const SIZE_WRITE_1K_10K: usize = 41;
    pub const SIZE_WRITE_10K_100K: usize = 42;
    pub const SIZE_WRITE_100K_1M: usize = 43;
    pub const SIZE_WRITE_1M_4M: usize = 44;
    pub const SIZE_WRITE_4M_10M: usize = 45;
    pub const SIZE_WRITE_10M_100M: usize = 46;
    pub const SIZE_WRITE_100M_1G: usize = 47;
    pub const SIZE_WRITE_1G_PLUS: usize = 48;
    pub const STRIDE1_STRIDE: usize = 49;
    pub const STRIDE2_STRIDE: usize = 50;
    pub const STRIDE3_STRIDE: usize = 51;
    pub const STRIDE4_STRIDE: usize = 52;
    pub const STRIDE1_COUNT: usize = 53;
    pub const STRIDE2_COUNT: usize = 54;
    pub const STRIDE3_COUNT: usize = 55;
    pub const STRIDE4_COUNT: usize = 56;
    pub const ACCESS1_ACCESS: usize = 57;
    pub const ACCESS2_ACCESS: usize = 58;
    pub const ACCESS3_ACCESS: usize = 59;
    pub const ACCESS4_ACCESS: usize = 60;
    pub const ACCESS1_COUNT: usize = 61;
    pub const ACCESS2_COUNT: usize = 62;
    pub const ACCESS3_COUNT: usize = 63;
    pub const ACCESS4_COUNT: usize = 64;
    pub const FASTEST_RANK: usize = 65;
    pub const FASTEST_RANK_BYTES: usize = 66;
    pub const SLOWEST_RANK: usize = 67;
    pub const SLOWEST_RANK_BYTES: usize = 68;
    pub const F_OPEN_START_TIMESTAMP: usize = 0;
    pub const F_READ_START_TIMESTAMP: usize = 1;
    pub const F_WRITE_START_TIMESTAMP: usize = 2;
    pub const F_CLOSE_START_TIMESTAMP: usize = 3;
    pub const F_OPEN_END_TIMESTAMP: usize = 4;
    pub const F_READ_END_TIMESTAMP: usize = 5;
    pub const F_WRITE_END_TIMESTAMP: usize = 6;
    pub const F_CLOSE_END_TIMESTAMP: usize = 7;
    pub const F_READ_TIME: usize = 8;
    pub const F_WRITE_TIME: usize = 9;
    pub const F_META_TIME: usize = 10;
    pub const F_MAX_READ_TIME: usize = 11;
    pub const F_MAX_WRITE_TIME: usize = 12;
    pub const F_FASTEST_RANK_TIME: usize = 13;
    pub const F_SLOWEST_RANK_TIME: usize = 14;
    pub const F_VARIANCE_RANK_TIME: usize = 15;
    pub const F_VARIANCE_RANK_BYTES: usize = 16;
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
    crate::layout_fns!();
    pub const FOOS: usize = 0;
    pub const FOO_MAX_DAT: usize = 1;
    pub const F_FOO_TIMESTAMP: usize = 0;
    pub const F_FOO_MAX_DURATION: usize = 1;
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
    crate::layout_fns!();
    pub const OPENS: usize = 0;
    pub const FDOPENS: usize = 1;
    pub const READS: usize = 2;
    pub const WRITES: usize = 3;
    pub const SEEKS: usize = 4;
    pub const FLUSHES: usize = 5;
    pub const BYTES_WRITTEN: usize = 6;
    pub const BYTES_READ: usize = 7;
    pub const MAX_BYTE_READ: usize = 8;
    pub const MAX_BYTE_WRITTEN: usize = 9;
    pub const FASTEST_RANK: usize = 10;
    pub const FASTEST_RANK_BYTES: usize = 11;
    pub const SLOWEST_RANK: usize = 12;
    pub const SLOWEST_RANK_BYTES: usize = 13;
    pub const F_META_TIME: usize = 0;
    pub const F_WRITE_TIME: usize = 1;
    pub const F_READ_TIME: usize = 2;
    pub const F_OPEN_START_TIMESTAMP: usize = 3;
    pub const F_CLOSE_START_TIMESTAMP: usize = 4;
    pub const F_WRITE_START_TIMESTAMP: usize = 5;
    pub const F_READ_START_TIMESTAMP: usize = 6;
    pub const F_OPEN_END_TIMESTAMP: usize = 7;
    pub const F_CLOSE_END_TIMESTAMP: usize = 8;
    pub const F_WRITE_END_TIMESTAMP: usize = 9;
    pub const F_READ_END_TIMESTAMP: usize = 10;
    pub const F_FASTEST_RANK_TIME: usize = 11;
    pub const F_SLOWEST_RANK_TIME: usize = 12;
    pub const F_VARIANCE_RANK_TIME: usize = 13;
    pub const F_VARIANCE_RANK_BYTES: usize = 14;
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
    crate::layout_fns!();
    pub const INDEP_OPENS: usize = 0;
    pub const COLL_OPENS: usize = 1;
    pub const INDEP_READS: usize = 2;
    pub const INDEP_WRITES: usize = 3;
    pub const COLL_READS: usize = 4;
    pub const COLL_WRITES: usize = 5;
    pub const SPLIT_READS: usize = 6;
    pub const SPLIT_WRITES: usize = 7;
    pub const NB_READS: usize = 8;
    pub const NB_WRITES: usize = 9;
    pub const SYNCS: usize = 10;
    pub const HINTS: usize = 11;
    pub const VIEWS: usize = 12;
    pub const MODE: usize = 13;
    pub const BYTES_READ: usize = 14;
    pub const BYTES_WRITTEN: usize = 15;
    pub const RW_SWITCHES: usize = 16;
    pub const MAX_READ_TIME_SIZE: usize = 17;
    pub const MAX_WRITE_TIME_SIZE: usize = 18;
    pub const SIZE_READ_AGG_0_100: usize = 19;
    pub const SIZE_READ_AGG_100_1K: usize = 20;
    pub const SIZE_READ_AGG_1K_10K: usize = 21;
    pub const SIZE_READ_AGG_10K_100K: usize = 22;
    pub const SIZE_READ_AGG_100K_1M: usize = 23;
    pub const SIZE_READ_AGG_1M_4M: usize = 24;
    pub const SIZE_READ_AGG_4M_10M: usize = 25;
    pub const SIZE_READ_AGG_10M_100M: usize = 26;
    pub const SIZE_READ_AGG_100M_1G: usize = 27;
    pub const SIZE_READ_AGG_1G_PLUS: usize = 28;
    pub const SIZE_WRITE_AGG_0_100: usize = 29;
    pub const SIZE_WRITE_AGG_100_1K: usize = 30;
    pub const SIZE_WRITE_AGG_1K_10K: usize = 31;
    pub const SIZE_WRITE_AGG_10K_100K: usize = 32;
    pub const SIZE_WRITE_AGG_100K_1M: usize = 33;
    pub const SIZE_WRITE_AGG_1M_4M: usize = 34;
    pub const SIZE_WRITE_AGG_4M_10M: usize = 35;
    pub const SIZE_WRITE_AGG_10M_100M: usize = 36;
    pub const SIZE_WRITE_AGG_100M_1G: usize = 37;
    pub const SIZE_WRITE_AGG_1G_PLUS: usize = 38;
    pub const ACCESS1_ACCESS: usize = 39;
    pub const ACCESS2_ACCESS: usize = 40;
    pub const ACCESS3_ACCESS: usize = 41;
    pub const ACCESS4_ACCESS: usize = 42;
    pub const ACCESS1_COUNT: usize = 43;
    pub const ACCESS2_COUNT: usize = 44;
    pub const ACCESS3_COUNT: usize = 45;
    pub const ACCESS4_COUNT: usize = 46;
    pub const FASTEST_RANK: usize = 47;
    pub const FASTEST_RANK_BYTES: usize = 48;
    pub const SLOWEST_RANK: usize = 49;
    pub const SLOWEST_RANK_BYTES: usize = 50;
    pub const F_OPEN_START_TIMESTAMP: usize = 0;
    pub const F_READ_START_TIMESTAMP: usize = 1;
    pub const F_WRITE_START_TIMESTAMP: usize = 2;
    pub const F_CLOSE_START_TIMESTAMP: usize = 3;
    pub const F_OPEN_END_TIMESTAMP: usize = 4;
    pub const F_READ_END_TIMESTAMP: usize = 5;
    pub const F_WRITE_END_TIMESTAMP: usize = 6;
    pub const F_CLOSE_END_TIMESTAMP: usize = 7;
    pub const F_READ_TIME: usize = 8;
    pub const F_WRITE_TIME: usize = 9;
    pub const F_META_TIME: usize = 10;
    pub const F_MAX_READ_TIME: usize = 11;
    pub const F_MAX_WRITE_TIME: usize = 12;
    pub const F_FASTEST_RANK_TIME: usize = 13;
    pub const F_SLOWEST_RANK_TIME: usize = 14;
    pub const F_VARIANCE_RANK_TIME: usize = 15;
    pub const F_VARIANCE_RANK_BYTES: usize = 16;
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
    crate::layout_fns!();
    pub const OPENS: usize = 0;
    pub const FLUSHES: usize = 1;
    pub const USE_MPIIO: usize = 2;
    pub const F_OPEN_START_TIMESTAMP: usize = 0;
    pub const F_CLOSE_START_TIMESTAMP: usize = 1;
    pub const F_OPEN_END_TIMESTAMP: usize = 2;
    pub const F_CLOSE_END_TIMESTAMP: usize = 3;
    pub const F_META_TIME: usize = 4;
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
    crate::layout_fns!();
    /// Dimensions a record keeps (Darshan's H5D_MAX_NDIMS).
    pub const MAX_NDIMS: usize = 5;
    pub const OPENS: usize = 0;
    pub const READS: usize = 1;
    pub const WRITES: usize = 2;
    pub const FLUSHES: usize = 3;
    pub const BYTES_READ: usize = 4;
    pub const BYTES_WRITTEN: usize = 5;
    pub const RW_SWITCHES: usize = 6;
    pub const REGULAR_HYPERSLAB_SELECTS: usize = 7;
    pub const IRREGULAR_HYPERSLAB_SELECTS: usize = 8;
    pub const POINT_SELECTS: usize = 9;
    pub const MAX_READ_TIME_SIZE: usize = 10;
    pub const MAX_WRITE_TIME_SIZE: usize = 11;
    pub const SIZE_READ_AGG_0_100: usize = 12;
    pub const SIZE_READ_AGG_100_1K: usize = 13;
    pub const SIZE_READ_AGG_1K_10K: usize = 14;
    pub const SIZE_READ_AGG_10K_100K: usize = 15;
    pub const SIZE_READ_AGG_100K_1M: usize = 16;
    pub const SIZE_READ_AGG_1M_4M: usize = 17;
    pub const SIZE_READ_AGG_4M_10M: usize = 18;
    pub const SIZE_READ_AGG_10M_100M: usize = 19;
    pub const SIZE_READ_AGG_100M_1G: usize = 20;
    pub const SIZE_READ_AGG_1G_PLUS: usize = 21;
    pub const SIZE_WRITE_AGG_0_100: usize = 22;
    pub const SIZE_WRITE_AGG_100_1K: usize = 23;
    pub const SIZE_WRITE_AGG_1K_10K: usize = 24;
    pub const SIZE_WRITE_AGG_10K_100K: usize = 25;
    pub const SIZE_WRITE_AGG_100K_1M: usize = 26;
    pub const SIZE_WRITE_AGG_1M_4M: usize = 27;
    pub const SIZE_WRITE_AGG_4M_10M: usize = 28;
    pub const SIZE_WRITE_AGG_10M_100M: usize = 29;
    pub const SIZE_WRITE_AGG_100M_1G: usize = 30;
    pub const SIZE_WRITE_AGG_1G_PLUS: usize = 31;
    pub const ACCESS1_ACCESS: usize = 32;
    pub const ACCESS1_LENGTH_D1: usize = 33;
    pub const ACCESS1_LENGTH_D2: usize = 34;
    pub const ACCESS1_LENGTH_D3: usize = 35;
    pub const ACCESS1_LENGTH_D4: usize = 36;
    pub const ACCESS1_LENGTH_D5: usize = 37;
    pub const ACCESS1_STRIDE_D1: usize = 38;
    pub const ACCESS1_STRIDE_D2: usize = 39;
    pub const ACCESS1_STRIDE_D3: usize = 40;
    pub const ACCESS1_STRIDE_D4: usize = 41;
    pub const ACCESS1_STRIDE_D5: usize = 42;
    pub const ACCESS2_ACCESS: usize = 43;
    pub const ACCESS2_LENGTH_D1: usize = 44;
    pub const ACCESS2_LENGTH_D2: usize = 45;
    pub const ACCESS2_LENGTH_D3: usize = 46;
    pub const ACCESS2_LENGTH_D4: usize = 47;
    pub const ACCESS2_LENGTH_D5: usize = 48;
    pub const ACCESS2_STRIDE_D1: usize = 49;
    pub const ACCESS2_STRIDE_D2: usize = 50;
    pub const ACCESS2_STRIDE_D3: usize = 51;
    pub const ACCESS2_STRIDE_D4: usize = 52;
    pub const ACCESS2_STRIDE_D5: usize = 53;
    pub const ACCESS3_ACCESS: usize = 54;
    pub const ACCESS3_LENGTH_D1: usize = 55;
    pub const ACCESS3_LENGTH_D2: usize = 56;
    pub const ACCESS3_LENGTH_D3: usize = 57;
    pub const ACCESS3_LENGTH_D4: usize = 58;
    pub const ACCESS3_LENGTH_D5: usize = 59;
    pub const ACCESS3_STRIDE_D1: usize = 60;
    pub const ACCESS3_STRIDE_D2: usize = 61;
    pub const ACCESS3_STRIDE_D3: usize = 62;
    pub const ACCESS3_STRIDE_D4: usize = 63;
    pub const ACCESS3_STRIDE_D5: usize = 64;
    pub const ACCESS4_ACCESS: usize = 65;
    pub const ACCESS4_LENGTH_D1: usize = 66;
    pub const ACCESS4_LENGTH_D2: usize = 67;
    pub const ACCESS4_LENGTH_D3: usize = 68;
    pub const ACCESS4_LENGTH_D4: usize = 69;
    pub const ACCESS4_LENGTH_D5: usize = 70;
    pub const ACCESS4_STRIDE_D1: usize = 71;
    pub const ACCESS4_STRIDE_D2: usize = 72;
    pub const ACCESS4_STRIDE_D3: usize = 73;
    pub const ACCESS4_STRIDE_D4: usize = 74;
    pub const ACCESS4_STRIDE_D5: usize = 75;
    pub const ACCESS1_COUNT: usize = 76;
    pub const ACCESS2_COUNT: usize = 77;
    pub const ACCESS3_COUNT: usize = 78;
    pub const ACCESS4_COUNT: usize = 79;
    pub const DATASPACE_NDIMS: usize = 80;
    pub const DATASPACE_NPOINTS: usize = 81;
    pub const DATATYPE_SIZE: usize = 82;
    pub const CHUNK_SIZE_D1: usize = 83;
    pub const CHUNK_SIZE_D2: usize = 84;
    pub const CHUNK_SIZE_D3: usize = 85;
    pub const CHUNK_SIZE_D4: usize = 86;
    pub const CHUNK_SIZE_D5: usize = 87;
    pub const USE_MPIIO_COLLECTIVE: usize = 88;
    pub const USE_DEPRECATED: usize = 89;
    pub const FASTEST_RANK: usize = 90;
    pub const FASTEST_RANK_BYTES: usize = 91;
    pub const SLOWEST_RANK: usize = 92;
    pub const SLOWEST_RANK_BYTES: usize = 93;
    pub const F_OPEN_START_TIMESTAMP: usize = 0;
    pub const F_READ_START_TIMESTAMP: usize = 1;
    pub const F_WRITE_START_TIMESTAMP: usize = 2;
    pub const F_CLOSE_START_TIMESTAMP: usize = 3;
    pub const F_OPEN_END_TIMESTAMP: usize = 4;
    pub const F_READ_END_TIMESTAMP: usize = 5;
    pub const F_WRITE_END_TIMESTAMP: usize = 6;
    pub const F_CLOSE_END_TIMESTAMP: usize = 7;
    pub const F_READ_TIME: usize = 8;
    pub const F_WRITE_TIME: usize = 9;
    pub const F_META_TIME: usize = 10;
    pub const F_MAX_READ_TIME: usize = 11;
    pub const F_MAX_WRITE_TIME: usize = 12;
    pub const F_FASTEST_RANK_TIME: usize = 13;
    pub const F_SLOWEST_RANK_TIME: usize = 14;
    pub const F_VARIANCE_RANK_TIME: usize = 15;
    pub const F_VARIANCE_RANK_BYTES: usize = 16;
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
    crate::layout_fns!();
    pub const CSJOBID: usize = 0;
    pub const NNODES: usize = 1;
    pub const RANKSPERNODE: usize = 2;
    pub const DDRPERNODE: usize = 3;
    pub const INODES: usize = 4;
    pub const ANODES: usize = 5;
    pub const BNODES: usize = 6;
    pub const CNODES: usize = 7;
    pub const DNODES: usize = 8;
    pub const ENODES: usize = 9;
    pub const TORUSENABLED: usize = 10;
    pub const F_TIMESTAMP: usize = 0;
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
    crate::layout_fns!();
    pub const CREATES: usize = 0;
    pub const OPENS: usize = 1;
    pub const REDEFS: usize = 2;
    pub const INDEP_WAITS: usize = 3;
    pub const COLL_WAITS: usize = 4;
    pub const SYNCS: usize = 5;
    pub const BYTES_READ: usize = 6;
    pub const BYTES_WRITTEN: usize = 7;
    pub const WAIT_FAILURES: usize = 8;
    pub const F_OPEN_START_TIMESTAMP: usize = 0;
    pub const F_CLOSE_START_TIMESTAMP: usize = 1;
    pub const F_WAIT_START_TIMESTAMP: usize = 2;
    pub const F_OPEN_END_TIMESTAMP: usize = 3;
    pub const F_CLOSE_END_TIMESTAMP: usize = 4;
    pub const F_WAIT_END_TIMESTAMP: usize = 5;
    pub const F_META_TIME: usize = 6;
    pub const F_WAIT_TIME: usize = 7;
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
    crate::layout_fns!();
    /// Dimensions a record keeps (Darshan's PNETCDF_VAR_MAX_NDIMS).
    pub const MAX_NDIMS: usize = 5;
    pub const OPENS: usize = 0;
    pub const INDEP_READS: usize = 1;
    pub const INDEP_WRITES: usize = 2;
    pub const COLL_READS: usize = 3;
    pub const COLL_WRITES: usize = 4;
    pub const NB_READS: usize = 5;
    pub const NB_WRITES: usize = 6;
    pub const BYTES_READ: usize = 7;
    pub const BYTES_WRITTEN: usize = 8;
    pub const RW_SWITCHES: usize = 9;
    pub const PUT_VAR: usize = 10;
    pub const PUT_VAR1: usize = 11;
    pub const PUT_VARA: usize = 12;
    pub const PUT_VARS: usize = 13;
    pub const PUT_VARM: usize = 14;
    pub const PUT_VARN: usize = 15;
    pub const PUT_VARD: usize = 16;
    pub const GET_VAR: usize = 17;
    pub const GET_VAR1: usize = 18;
    pub const GET_VARA: usize = 19;
    pub const GET_VARS: usize = 20;
    pub const GET_VARM: usize = 21;
    pub const GET_VARN: usize = 22;
    pub const GET_VARD: usize = 23;
    pub const IPUT_VAR: usize = 24;
    pub const IPUT_VAR1: usize = 25;
    pub const IPUT_VARA: usize = 26;
    pub const IPUT_VARS: usize = 27;
    pub const IPUT_VARM: usize = 28;
    pub const IPUT_VARN: usize = 29;
    pub const IGET_VAR: usize = 30;
    pub const IGET_VAR1: usize = 31;
    pub const IGET_VARA: usize = 32;
    pub const IGET_VARS: usize = 33;
    pub const IGET_VARM: usize = 34;
    pub const IGET_VARN: usize = 35;
    pub const BPUT_VAR: usize = 36;
    pub const BPUT_VAR1: usize = 37;
    pub const BPUT_VARA: usize = 38;
    pub const BPUT_VARS: usize = 39;
    pub const BPUT_VARM: usize = 40;
    pub const BPUT_VARN: usize = 41;
    pub const MAX_READ_TIME_SIZE: usize = 42;
    pub const MAX_WRITE_TIME_SIZE: usize = 43;
    pub const SIZE_READ_AGG_0_100: usize = 44;
    pub const SIZE_READ_AGG_100_1K: usize = 45;
    pub const SIZE_READ_AGG_1K_10K: usize = 46;
    pub const SIZE_READ_AGG_10K_100K: usize = 47;
    pub const SIZE_READ_AGG_100K_1M: usize = 48;
    pub const SIZE_READ_AGG_1M_4M: usize = 49;
    pub const SIZE_READ_AGG_4M_10M: usize = 50;
    pub const SIZE_READ_AGG_10M_100M: usize = 51;
    pub const SIZE_READ_AGG_100M_1G: usize = 52;
    pub const SIZE_READ_AGG_1G_PLUS: usize = 53;
    pub const SIZE_WRITE_AGG_0_100: usize = 54;
    pub const SIZE_WRITE_AGG_100_1K: usize = 55;
    pub const SIZE_WRITE_AGG_1K_10K: usize = 56;
    pub const SIZE_WRITE_AGG_10K_100K: usize = 57;
    pub const SIZE_WRITE_AGG_100K_1M: usize = 58;
    pub const SIZE_WRITE_AGG_1M_4M: usize = 59;
    pub const SIZE_WRITE_AGG_4M_10M: usize = 60;
    pub const SIZE_WRITE_AGG_10M_100M: usize = 61;
    pub const SIZE_WRITE_AGG_100M_1G: usize = 62;
    pub const SIZE_WRITE_AGG_1G_PLUS: usize = 63;
    pub const ACCESS1_ACCESS: usize = 64;
    pub const ACCESS1_LENGTH_D1: usize = 65;
    pub const ACCESS1_LENGTH_D2: usize = 66;
    pub const ACCESS1_LENGTH_D3: usize = 67;
    pub const ACCESS1_LENGTH_D4: usize = 68;
    pub const ACCESS1_LENGTH_D5: usize = 69;
    pub const ACCESS1_STRIDE_D1: usize = 70;
    pub const ACCESS1_STRIDE_D2: usize = 71;
    pub const ACCESS1_STRIDE_D3: usize = 72;
    pub const ACCESS1_STRIDE_D4: usize = 73;
    pub const ACCESS1_STRIDE_D5: usize = 74;
    pub const ACCESS2_ACCESS: usize = 75;
    pub const ACCESS2_LENGTH_D1: usize = 76;
    pub const ACCESS2_LENGTH_D2: usize = 77;
    pub const ACCESS2_LENGTH_D3: usize = 78;
    pub const ACCESS2_LENGTH_D4: usize = 79;
    pub const ACCESS2_LENGTH_D5: usize = 80;
    pub const ACCESS2_STRIDE_D1: usize = 81;
    pub const ACCESS2_STRIDE_D2: usize = 82;
    pub const ACCESS2_STRIDE_D3: usize = 83;
    pub const ACCESS2_STRIDE_D4: usize = 84;
    pub const ACCESS2_STRIDE_D5: usize = 85;
    pub const ACCESS3_ACCESS: usize = 86;
    pub const ACCESS3_LENGTH_D1: usize = 87;
    pub const ACCESS3_LENGTH_D2: usize = 88;
    pub const ACCESS3_LENGTH_D3: usize = 89;
    pub const ACCESS3_LENGTH_D4: usize = 90;
    pub const ACCESS3_LENGTH_D5: usize = 91;
    pub const ACCESS3_STRIDE_D1: usize = 92;
    pub const ACCESS3_STRIDE_D2: usize = 93;
    pub const ACCESS3_STRIDE_D3: usize = 94;
    pub const ACCESS3_STRIDE_D4: usize = 95;
    pub const ACCESS3_STRIDE_D5: usize = 96;
    pub const ACCESS4_ACCESS: usize = 97;
    pub const ACCESS4_LENGTH_D1: usize = 98;
    pub const ACCESS4_LENGTH_D2: usize = 99;
    pub const ACCESS4_LENGTH_D3: usize = 100;
    pub const ACCESS4_LENGTH_D4: usize = 101;
    pub const ACCESS4_LENGTH_D5: usize = 102;
    pub const ACCESS4_STRIDE_D1: usize = 103;
    pub const ACCESS4_STRIDE_D2: usize = 104;
    pub const ACCESS4_STRIDE_D3: usize = 105;
    pub const ACCESS4_STRIDE_D4: usize = 106;
    pub const ACCESS4_STRIDE_D5: usize = 107;
    pub const ACCESS1_COUNT: usize = 108;
    pub const ACCESS2_COUNT: usize = 109;
    pub const ACCESS3_COUNT: usize = 110;
    pub const ACCESS4_COUNT: usize = 111;
    pub const NDIMS: usize = 112;
    pub const NPOINTS: usize = 113;
    pub const DATATYPE_SIZE: usize = 114;
    pub const IS_RECORD_VAR: usize = 115;
    pub const FASTEST_RANK: usize = 116;
    pub const FASTEST_RANK_BYTES: usize = 117;
    pub const SLOWEST_RANK: usize = 118;
    pub const SLOWEST_RANK_BYTES: usize = 119;
    pub const F_OPEN_START_TIMESTAMP: usize = 0;
    pub const F_READ_START_TIMESTAMP: usize = 1;
    pub const F_WRITE_START_TIMESTAMP: usize = 2;
    pub const F_CLOSE_START_TIMESTAMP: usize = 3;
    pub const F_OPEN_END_TIMESTAMP: usize = 4;
    pub const F_READ_END_TIMESTAMP: usize = 5;
    pub const F_WRITE_END_TIMESTAMP: usize = 6;
    pub const F_CLOSE_END_TIMESTAMP: usize = 7;
    pub const F_READ_TIME: usize = 8;
    pub const F_WRITE_TIME: usize = 9;
    pub const F_META_TIME: usize = 10;
    pub const F_MAX_READ_TIME: usize = 11;
    pub const F_MAX_WRITE_TIME: usize = 12;
    pub const F_FASTEST_RANK_TIME: usize = 13;
    pub const F_SLOWEST_RANK_TIME: usize = 14;
    pub const F_VARIANCE_RANK_TIME: usize = 15;
    pub const F_VARIANCE_RANK_BYTES: usize = 16;
}
