//! IO_URING (id 61, ours): the requests a process submits through
//! io_uring rings, per file (docs/io-uring.md). Counted from each
//! submission queue entry at submit time (operation, size, offset) and
//! from each completion entry the runtime saw (result, latency); a
//! completion it did not see is counted as a full transfer and said so
//! in COMPLETIONS_UNSEEN. Requests submitted where the runtime could not
//! read them (a program that enters the kernel with its own `syscall`
//! instruction, as fio does) are counted, from the kernel's submission
//! cursor, in UNOBSERVED_OPS of the record `<io_uring>`.
//!
//! The record `<io_uring>` is also the process's: its rings (RINGS to
//! SUBMIT_CALLS, version 2 on; −1 in a version 1 log, which did not
//! record them). A file's record holds 0 there.

pub const NUM_INDICES: usize = 56;
pub const F_NUM_INDICES: usize = 6;
/// Words in one record: id, rank, counters, fcounters.
pub const RECORD_WORDS: usize = FCOUNTERS_AT + F_NUM_INDICES;
/// Word offset of the first counter (after id, rank) and of the
/// first fcounter: counter k is word `COUNTERS_AT + k`.
pub const COUNTERS_AT: usize = 2;
pub const FCOUNTERS_AT: usize = COUNTERS_AT + NUM_INDICES;
crate::layout! {
    prefix "IO_URING";
    counters {
        READS = 0,
        WRITES = 1,
        READVS = 2,
        WRITEVS = 3,
        READ_FIXEDS = 4,
        WRITE_FIXEDS = 5,
        FSYNCS = 6,
        FDATASYNCS = 7,
        SYNC_RANGES = 8,
        META_OPS = 9,
        BYTES_READ = 10,
        BYTES_WRITTEN = 11,
        MAX_BYTE_READ = 12,
        MAX_BYTE_WRITTEN = 13,
        CONSEC_READS = 14,
        CONSEC_WRITES = 15,
        SEQ_READS = 16,
        SEQ_WRITES = 17,
        RW_SWITCHES = 18,
        SIZE_READ_0_100 = 19,
        SIZE_READ_100_1K = 20,
        SIZE_READ_1K_10K = 21,
        SIZE_READ_10K_100K = 22,
        SIZE_READ_100K_1M = 23,
        SIZE_READ_1M_4M = 24,
        SIZE_READ_4M_10M = 25,
        SIZE_READ_10M_100M = 26,
        SIZE_READ_100M_1G = 27,
        SIZE_READ_1G_PLUS = 28,
        SIZE_WRITE_0_100 = 29,
        SIZE_WRITE_100_1K = 30,
        SIZE_WRITE_1K_10K = 31,
        SIZE_WRITE_10K_100K = 32,
        SIZE_WRITE_100K_1M = 33,
        SIZE_WRITE_1M_4M = 34,
        SIZE_WRITE_4M_10M = 35,
        SIZE_WRITE_10M_100M = 36,
        SIZE_WRITE_100M_1G = 37,
        SIZE_WRITE_1G_PLUS = 38,
        ERRORS = 39,
        SHORT_READS = 40,
        SHORT_WRITES = 41,
        MAX_INFLIGHT = 42,
        COMPLETIONS_SEEN = 43,
        COMPLETIONS_UNSEEN = 44,
        FIXED_FILE_OPS = 45,
        SQPOLL_OPS = 46,
        UNOBSERVED_OPS = 47,
        RINGS = 48,
        SQPOLL_RINGS = 49,
        IOPOLL_RINGS = 50,
        RING_ENTRIES_MAX = 51,
        REGISTERED_FILES = 52,
        REGISTERED_BUFFERS = 53,
        RING_MAX_INFLIGHT = 54,
        SUBMIT_CALLS = 55,
    }
    fcounters {
        F_START_TIMESTAMP = 0,
        F_END_TIMESTAMP = 1,
        F_READ_TIME = 2,
        F_WRITE_TIME = 3,
        F_MAX_READ_TIME = 4,
        F_MAX_WRITE_TIME = 5,
    }
}
