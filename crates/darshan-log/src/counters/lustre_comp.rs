//! The counters of one LUSTRE layout component (LUSTRE records are variable-length: `Extra::Lustre`), as darshan-parser names them.
pub const NUM_INDICES: usize = 7;
pub const F_NUM_INDICES: usize = 0;
/// Words in one record: id, rank, counters, fcounters.
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "LUSTRE_COMP";
    counters {
        STRIPE_SIZE = 0,
        STRIPE_COUNT = 1,
        STRIPE_PATTERN = 2,
        FLAGS = 3,
        EXT_START = 4,
        EXT_END = 5,
        MIRROR_ID = 6,
    }
    fcounters {
    }
}
