//! BG/Q (id 7): the machine's job facts, one record per job.

pub const NUM_INDICES: usize = 11;
pub const F_NUM_INDICES: usize = 1;
/// Words in one record: id, rank, counters, fcounters (112 bytes).
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
/// Word offset of the first counter (after id, rank) and of the
/// first fcounter: counter k is word `COUNTERS_AT + k`.
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "BGQ";
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
