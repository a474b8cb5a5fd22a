//! IO_URING's shared-record reduction (docs/io-uring.md): counts, bytes
//! and times add up across ranks; the highest byte, the deepest queue and
//! the slowest request are the largest of any rank; the first start is
//! the earliest, the last end the latest. The processes' ring facts (in
//! `<io_uring>`) add up, but for the largest ring and the deepest queue
//! on one ring, the largest of any rank.

use super::ops as op;
use super::Reducer;
use crate::counters::io_uring::typed as c;

pub struct UringRules;

pub const RULES: UringRules = UringRules;

pub fn combine(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; c::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    op::sum(a, b, &mut t, c::words(c::READS, c::BYTES_WRITTEN));
    op::max(a, b, &mut t, c::words(c::MAX_BYTE_READ, c::MAX_BYTE_WRITTEN));
    op::sum(a, b, &mut t, c::words(c::CONSEC_READS, c::SHORT_WRITES));
    op::max(a, b, &mut t, [c::word(c::MAX_INFLIGHT)]);
    op::sum(a, b, &mut t, c::words(c::COMPLETIONS_SEEN, c::IOPOLL_RINGS));
    op::max(a, b, &mut t, [c::word(c::RING_ENTRIES_MAX)]);
    op::sum(a, b, &mut t, c::words(c::REGISTERED_FILES, c::REGISTERED_BUFFERS));
    op::max(a, b, &mut t, [c::word(c::RING_MAX_INFLIGHT)]);
    op::sum(a, b, &mut t, [c::word(c::SUBMIT_CALLS)]);
    op::min_nonzero_f(a, b, &mut t, [c::fword(c::F_START_TIMESTAMP)]);
    op::max_f(a, b, &mut t, [c::fword(c::F_END_TIMESTAMP)]);
    op::sum_f(a, b, &mut t, [c::fword(c::F_READ_TIME), c::fword(c::F_WRITE_TIME)]);
    op::max_f(a, b, &mut t, [c::fword(c::F_MAX_READ_TIME), c::fword(c::F_MAX_WRITE_TIME)]);
    b.copy_from_slice(&t);
}

impl Reducer for UringRules {
    fn prepare(&self, _rec: &mut [u64]) {}
    fn combine(&self, input: &[u64], inout: &mut [u64]) {
        combine(input, inout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every word of the record is taken by one rule.
    #[test]
    fn every_word_has_a_rule() {
        assert_eq!(op::words_no_rule_takes(combine, c::RECORD_WORDS), Vec::<usize>::new());
    }

    #[test]
    fn two_ranks_add_their_counts_and_keep_the_largest_extremes() {
        let mut a = [0u64; c::RECORD_WORDS];
        let mut b = [0u64; c::RECORD_WORDS];
        a[c::word(c::WRITES)] = 3;
        b[c::word(c::WRITES)] = 4;
        a[c::word(c::MAX_INFLIGHT)] = 32;
        b[c::word(c::MAX_INFLIGHT)] = 8;
        a[c::word(c::RINGS)] = 2;
        b[c::word(c::RINGS)] = 1;
        a[c::word(c::RING_ENTRIES_MAX)] = 64;
        b[c::word(c::RING_ENTRIES_MAX)] = 256;
        a[c::fword(c::F_START_TIMESTAMP)] = 2.0f64.to_bits();
        b[c::fword(c::F_START_TIMESTAMP)] = 1.5f64.to_bits();
        combine(&a, &mut b);
        assert_eq!(b[c::word(c::WRITES)], 7);
        assert_eq!(b[c::word(c::MAX_INFLIGHT)], 32);
        assert_eq!([b[c::word(c::RINGS)], b[c::word(c::RING_ENTRIES_MAX)]], [3, 256]);
        assert_eq!(f64::from_bits(b[c::fword(c::F_START_TIMESTAMP)]), 1.5);
        assert_eq!(b[1] as i64, -1);
    }
}
