//! H5F (id 3): HDF5 files.

pub const NUM_INDICES: usize = 3;
pub const F_NUM_INDICES: usize = 5;
/// Words in one record: id, rank, counters, fcounters.
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
/// Word offset of the first counter (after id, rank) and of the
/// first fcounter: counter k is word `COUNTERS_AT + k`.
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "H5F";
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
