//! The records' words (the format crate's `counters::apmpi` in 64-bit
//! words), the operations by name, and C's arithmetic on bytes.

use darshan_log::counters::apmpi as f;

/// The names C registers (their hashes are the records' ids).
pub const HEADER_NAME: &[u8] = b"darshan-apmpi-header";
pub const PERF_NAME: &[u8] = b"APMPI";

/// The header: id, rank, magic, sync flag (an int, padded), two variances.
pub const HEADER_WORDS: usize = f::HEADER_SIZE / 8;
/// A rank's record.
pub const PERF_WORDS: usize = f::PERF_SIZE / 8;

/// Where a rank's record keeps its counters, times, sync times, totals
/// and, last, its processor name.
pub const COUNTERS_AT: usize = 2;
pub const F_TIME_AT: usize = COUNTERS_AT + f::NUM_INDICES;
pub const F_SYNC_AT: usize = F_TIME_AT + f::F_TIME_NUM_INDICES;
pub const F_GLOBAL_AT: usize = F_SYNC_AT + f::F_SYNC_NUM_INDICES;
pub const NODE_AT: usize = F_GLOBAL_AT + f::F_GLOBAL_NUM_INDICES;
const _: () = assert!(NODE_AT + f::NAME_MAX / 8 == PERF_WORDS && HEADER_WORDS * 8 == f::HEADER_SIZE);

/// The records' ids, the hashes of their names (C 3.5.0's logs hold
/// these; a test checks them against `darshan_log::record_id`): constants,
/// as every recorded call looks a record's length up by its id.
pub const HEADER_ID: u64 = 7_713_204_788_897_956_166;
pub const PERF_ID: u64 = 2_250_748_219_237_254_214;

/// Words of the record `rec` starts with: the header's or a rank's.
pub fn record_len(rec: &[u64]) -> usize {
    if rec.first() == Some(&HEADER_ID) {
        HEADER_WORDS
    } else {
        PERF_WORDS
    }
}

/// An operation of the record, named as the format names it
/// (`OpId::named("MPI_SEND")`; an unknown name does not compile where
/// the id is a constant), with its sync time's index found then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpId {
    op: u8,
    sync: Option<u8>,
}

impl OpId {
    pub const fn named(name: &str) -> OpId {
        let mut k = 0;
        while k < f::NUM_OPS {
            if eq(f::OPS[k].name.as_bytes(), name.as_bytes()) {
                return OpId { op: k as u8, sync: sync_of(name.as_bytes()) };
            }
            k += 1;
        }
        panic!("not an APMPI operation");
    }

    pub const fn index(self) -> usize {
        self.op as usize
    }

    pub const fn get(self) -> f::Op {
        f::OPS[self.op as usize]
    }

    /// Its sync time's index, for the barrier and the blocking
    /// collectives.
    pub const fn sync_index(self) -> Option<usize> {
        match self.sync {
            Some(i) => Some(i as usize),
            None => None,
        }
    }
}

/// The index of `name`'s sync time, if it has one.
const fn sync_of(name: &[u8]) -> Option<u8> {
    let mut i = 0;
    while i < f::F_SYNC_NUM_INDICES {
        let s = f::F_SYNC_NAMES[i].as_bytes();
        if s.len() == name.len() + SYNC_SUFFIX.len() && starts(s, name) {
            return Some(i as u8);
        }
        i += 1;
    }
    None
}

const SYNC_SUFFIX: &[u8] = b"_TOTAL_SYNC_TIME";

const fn starts(s: &[u8], prefix: &[u8]) -> bool {
    if s.len() < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if s[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && starts(a, b)
}

/// The histogram bucket of a message of `bytes` (C's
/// DARSHAN_MSG_BUCKET_INC: up to 256, 1 KiB, 8 KiB, 256 KiB, 1 MiB,
/// more; a negative size, which C's int arithmetic can make, counts as
/// the smallest).
pub fn bucket(bytes: i64) -> usize {
    match bytes {
        ..=256 => 0,
        257..=1024 => 1,
        1025..=8192 => 2,
        8193..=262_144 => 3,
        262_145..=1_048_576 => 4,
        _ => 5,
    }
}

/// C's BYTECOUNT: `count * size` in int arithmetic (wrapping past 2 GiB,
/// as the C module's does), 0 when the count is not positive.
pub fn c_bytes(count: i32, type_size: i32) -> i64 {
    if count > 0 {
        count.wrapping_mul(type_size) as i64
    } else {
        0
    }
}
