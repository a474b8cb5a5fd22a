//! The common accesses of H5D and PNETCDF_VAR: Darshan counts each
//! distinct (access size, 5 lengths, 5 strides) tuple of a dataset or
//! variable, up to 32 distinct ones (its per-record search tree), and
//! keeps the four most frequent in the record. The tuples live in one
//! zeroed block reserved at attach (32 slots per record, untouched until
//! used), so counting never allocates. A record's slots are read only up
//! to its own count of distinct tuples (kept in its runtime state), so
//! nothing needs clearing.

use crate::store::arena::ZeroedWords;

/// Values in one tuple: the access size, then lengths D1..D5 and strides
/// D1..D5 (the fastest-varying dimension first).
pub const TUPLE: usize = 11;
/// Distinct tuples tracked per dataset (DARSHAN_COMMON_VAL_MAX_RUNTIME_COUNT).
const MAX_DISTINCT: usize = 32;
/// A slot: the tuple and its frequency.
const SLOT: usize = TUPLE + 1;

pub struct AccessTuples {
    words: Option<ZeroedWords>,
}

impl AccessTuples {
    pub const fn none() -> AccessTuples {
        AccessTuples { words: None }
    }

    pub fn for_records(n: usize) -> AccessTuples {
        AccessTuples { words: ZeroedWords::new(n * MAX_DISTINCT * SLOT) }
    }

    /// Count one access of record `rec` (which has `distinct` tuples so
    /// far); its new frequency, or None when the tuple is not tracked.
    pub fn track(&mut self, rec: usize, distinct: &mut u8, v: &[i64; TUPLE]) -> Option<i64> {
        let words = self.words.as_mut()?;
        let base = rec * MAX_DISTINCT * SLOT;
        let block = words.get_mut(base..base + MAX_DISTINCT * SLOT)?;
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
