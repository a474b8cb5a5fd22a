//! STDIO (id 9): per stream's file (darshan-stdio-log-format.h).

pub const NUM_INDICES: usize = 14;
pub const F_NUM_INDICES: usize = 15;
/// Words in one record: id, rank, counters, fcounters.
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
/// Word offset of the first counter (after id, rank) and of the
/// first fcounter: counter k is word `COUNTERS_AT + k`.
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "STDIO";
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
