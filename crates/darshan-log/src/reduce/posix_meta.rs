//! POSIX_META's shared-record reduction: counts and times add up across
//! ranks, the first start is the earliest, the last end the latest, the
//! slowest call the slowest of any rank (docs/posix-meta.md).

use super::ops as op;
use super::Reducer;
use crate::counters::posix_meta::typed as c;
use crate::counters::posix_meta::Combine;

pub struct MetaRules;

pub const RULES: MetaRules = MetaRules;

pub fn combine(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; c::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    op::sum(a, b, &mut t, c::words(c::UNLINKS, c::MUNMAPS));
    // The fcounters by the format crate's table (darshan-merge uses it too).
    for (k, how) in c::FCounter::all().zip(c::F_COMBINE) {
        let w = [c::fword(k)];
        match how {
            Combine::MinNonzero => op::min_nonzero_f(a, b, &mut t, w),
            Combine::Max => op::max_f(a, b, &mut t, w),
            Combine::Sum => op::sum_f(a, b, &mut t, w),
        }
    }
    b.copy_from_slice(&t);
}

impl Reducer for MetaRules {
    fn prepare(&self, _rec: &mut [u64]) {}
    fn combine(&self, input: &[u64], inout: &mut [u64]) {
        combine(input, inout)
    }
}
