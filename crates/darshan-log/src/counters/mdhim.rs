//! MDHIM (id 12): read by the tools, not recorded by this runtime.
pub const NUM_INDICES: usize = 5;
pub const F_NUM_INDICES: usize = 4;
/// Words in one record: id, rank, counters, fcounters.
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "MDHIM";
    counters {
        PUTS = 0,
        GETS = 1,
        PUT_MAX_SIZE = 2,
        GET_MAX_SIZE = 3,
        SERVERS = 4,
    }
    fcounters {
        F_PUT_TIMESTAMP = 0,
        F_GET_TIMESTAMP = 1,
        F_PUT_MAX_DURATION = 2,
        F_GET_MAX_DURATION = 3,
    }
}
