//! PNETCDF_FILE (id 5): PnetCDF files.

pub const NUM_INDICES: usize = 9;
pub const F_NUM_INDICES: usize = 8;
/// Words in one record: id, rank, counters, fcounters (152 bytes).
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
/// Word offset of the first counter (after id, rank) and of the
/// first fcounter: counter k is word `COUNTERS_AT + k`.
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "PNETCDF_FILE";
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
