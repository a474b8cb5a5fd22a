//! STDIO's shared-record reduction operator (docs/counter-rules.md §6.3).

use super::ops::{self as op, Rules};
use crate::counters::stdio::typed as c;

use c::word as w;

pub const RULES: Rules = Rules { shape: crate::standard_shape!(c), combine };

// Rules name the counters they take (a list, or a family's first and
// last member, consecutive by the format's definition: histogram bins,
// per-call counters), so a reordered counter table cannot silently move a
// counter to another rule.

pub fn combine(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; c::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    op::sum(
        a,
        b,
        &mut t,
        [c::OPENS, c::FDOPENS, c::READS, c::WRITES, c::SEEKS, c::FLUSHES, c::BYTES_WRITTEN, c::BYTES_READ].map(w),
    );
    op::max(a, b, &mut t, [c::MAX_BYTE_READ, c::MAX_BYTE_WRITTEN].map(w));
    op::standard_times(a, b, &mut t, &RULES.shape);
    op::fastest_slowest(a, b, &mut t, &RULES.shape.ranks);
    b.copy_from_slice(&t);
}
