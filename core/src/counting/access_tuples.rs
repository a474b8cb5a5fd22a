//! The common accesses of H5D and PNETCDF_VAR: Darshan counts each
//! distinct (access size, 5 lengths, 5 strides) tuple of a dataset or
//! variable, up to 32 distinct ones (its per-record search tree), and
//! keeps the four most frequent in the record. The tuples live in zeroed
//! blocks of 32 slots per record, one block per [`CHUNK`] records, each
//! taken at the first access of one of its records (`LazyWords`: pages,
//! never the heap), and a process that never reads a dataset has
//! no address space for them (one block for all 1,024 records was 3 MiB
//! per module in every process, which `mlockall` made resident and
//! `ulimit -v` counted). A record's slots are read only up to its own
//! count of distinct tuples (kept in its runtime state), so nothing needs
//! clearing.

use crate::store::lazy_words::LazyWords;

/// Values in one tuple: the access size, then lengths D1..D5 and strides
/// D1..D5 (the fastest-varying dimension first).
pub const TUPLE: usize = 11;
/// Distinct tuples tracked per dataset (DARSHAN_COMMON_VAL_MAX_RUNTIME_COUNT).
const MAX_DISTINCT: usize = 32;
/// A slot: the tuple and its frequency.
const SLOT: usize = TUPLE + 1;

/// Records whose slots share one block (96 KiB).
pub const CHUNK: usize = 32;
/// Words of one record's slots.
const RECORD_WORDS: usize = MAX_DISTINCT * SLOT;

pub struct AccessTuples {
    /// One block per CHUNK records, taken when one of them is accessed.
    chunks: Vec<LazyWords>,
}

impl AccessTuples {
    pub const fn none() -> AccessTuples {
        AccessTuples { chunks: Vec::new() }
    }

    /// Room for `n` records' tuples, none of it taken yet.
    pub fn for_records(n: usize) -> AccessTuples {
        AccessTuples { chunks: (0..n.div_ceil(CHUNK)).map(|_| LazyWords::of(CHUNK * RECORD_WORDS)).collect() }
    }

    /// Address space taken so far, in bytes.
    pub fn taken(&self) -> usize {
        self.chunks.iter().map(LazyWords::bytes).sum()
    }

    /// Count one access of record `rec` (which has `distinct` tuples so
    /// far); its new frequency, or None when the tuple is not tracked
    /// (beyond 32 distinct ones, or no memory for its block).
    pub fn track(&mut self, rec: usize, distinct: &mut u8, v: &[i64; TUPLE]) -> Option<i64> {
        let chunk = self.chunks.get_mut(rec / CHUNK)?.get_or_take()?;
        let base = rec % CHUNK * RECORD_WORDS;
        let block = chunk.get_mut(base..base + RECORD_WORDS)?;
        for k in 0..*distinct as usize {
            let s = &mut block[k * SLOT..(k + 1) * SLOT];
            if s[..TUPLE].iter().zip(v).all(|(&a, &b)| a as i64 == b) {
                s[TUPLE] += 1;
                return Some(s[TUPLE] as i64);
            }
        }
        let k = *distinct as usize;
        if k == MAX_DISTINCT {
            return None;
        }
        let s = &mut block[k * SLOT..(k + 1) * SLOT];
        for (d, &x) in s.iter_mut().zip(v) {
            *d = x as u64;
        }
        s[TUPLE] = 1;
        *distinct += 1;
        Some(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_of_a_thousand_datasets_took_three_mib_before_any_was_read() {
        let mut t = AccessTuples::for_records(1024);
        assert_eq!(t.taken(), 0, "nothing before the first access");
        let (mut d0, mut d1) = (0u8, 0u8);
        let v = [8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(t.track(CHUNK + 3, &mut d0, &v), Some(1));
        assert_eq!(t.track(CHUNK + 3, &mut d0, &v), Some(2));
        assert_eq!(t.taken(), CHUNK * MAX_DISTINCT * SLOT * 8, "one block, for the accessed record's chunk");
        // A record of the same chunk has slots of its own.
        assert_eq!(t.track(CHUNK + 4, &mut d1, &v), Some(1));
        assert_eq!((d0, d1), (1, 1));
        assert_eq!(t.taken(), CHUNK * MAX_DISTINCT * SLOT * 8);
    }

    #[test]
    fn the_thirty_third_distinct_tuple_is_not_tracked_and_a_record_past_the_room_neither() {
        let mut t = AccessTuples::for_records(2);
        let mut d = 0u8;
        for i in 0..MAX_DISTINCT as i64 {
            assert_eq!(t.track(1, &mut d, &[i, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Some(1));
        }
        assert_eq!(t.track(1, &mut d, &[99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(t.track(1, &mut d, &[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Some(2), "a tracked one still counts");
        assert_eq!(t.track(CHUNK, &mut 0, &[1; TUPLE]), None, "record beyond the room");
        assert_eq!(AccessTuples::none().track(0, &mut 0, &[1; TUPLE]), None);
    }
}
