//! STDIO's shared-record reduction operator (docs/counter-rules.md §6.3).

use darshan_core::reduce_ops::{self as op, Rules};
use darshan_log::counters::stdio as c;

use crate::F;

const C: usize = c::COUNTERS_AT;

pub const RULES: Rules = Rules { shape: darshan_core::standard_shape!(c, F), combine };

fn combine(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; c::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    op::sum(a, b, &mut t, C + c::OPENS..=C + c::BYTES_READ);
    op::max(a, b, &mut t, C + c::MAX_BYTE_READ..=C + c::MAX_BYTE_WRITTEN);
    op::sum_f(a, b, &mut t, F + c::F_META_TIME..=F + c::F_READ_TIME);
    op::min_nonzero_f(a, b, &mut t, F + c::F_OPEN_START_TIMESTAMP..=F + c::F_READ_START_TIMESTAMP);
    op::max_f(a, b, &mut t, F + c::F_OPEN_END_TIMESTAMP..=F + c::F_READ_END_TIMESTAMP);
    op::fastest_slowest(a, b, &mut t, &RULES.shape.ranks);
    b.copy_from_slice(&t);
}
