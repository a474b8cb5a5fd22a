//! STDIO's shared-record reduction operator (semantics §6.3).

use darshan_core::reduce_ops::{self as op, RankFields, Rules, Shape};
use darshan_log::counters::stdio as c;

use crate::F;

const C: usize = 2;

pub const RULES: Rules = Rules {
    shape: Shape {
        ranks: RankFields {
            fastest: C + c::FASTEST_RANK,
            fastest_bytes: C + c::FASTEST_RANK_BYTES,
            slowest: C + c::SLOWEST_RANK,
            slowest_bytes: C + c::SLOWEST_RANK_BYTES,
            fastest_time: F + c::F_FASTEST_RANK_TIME,
            slowest_time: F + c::F_SLOWEST_RANK_TIME,
        },
        times: [F + c::F_READ_TIME, F + c::F_WRITE_TIME, F + c::F_META_TIME],
        bytes: [C + c::BYTES_READ, C + c::BYTES_WRITTEN],
        var_time: F + c::F_VARIANCE_RANK_TIME,
        var_bytes: F + c::F_VARIANCE_RANK_BYTES,
    },
    combine,
};

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
