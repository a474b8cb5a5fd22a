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
    prefix "NULL";
    counters {
        FOOS = 0,
        FOO_MAX_DAT = 1,
    }
    fcounters {
        F_FOO_TIMESTAMP = 0,
        F_FOO_MAX_DURATION = 1,
    }
}
