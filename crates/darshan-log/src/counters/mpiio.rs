//! MPI-IO (id 2): per file (darshan-mpiio-log-format.h).

pub const NUM_INDICES: usize = 51;
pub const F_NUM_INDICES: usize = 17;
/// Words in one record: id, rank, counters, fcounters.
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
/// Word offset of the first counter (after id, rank) and of the
/// first fcounter: counter k is word `COUNTERS_AT + k`.
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "MPIIO";
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
