//! POSIX's shared-record reduction operator (docs/counter-rules.md §6.3).

use darshan_core::reduce_ops::{self as op, Rules};
use darshan_log::counters::posix as c;

use crate::record::F;

const C: usize = c::COUNTERS_AT;

pub const RULES: Rules = Rules { shape: darshan_core::standard_shape!(c, F), combine };

fn combine(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; c::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    op::sum_or_minus_one(a, b, &mut t, C + c::OPENS..=C + c::RENAME_TARGETS);
    op::copy(a, &mut t, C + c::RENAMED_FROM);
    op::copy(a, &mut t, C + c::MODE);
    op::sum(a, b, &mut t, C + c::BYTES_READ..=C + c::BYTES_WRITTEN);
    op::max(a, b, &mut t, C + c::MAX_BYTE_READ..=C + c::MAX_BYTE_WRITTEN);
    op::sum(a, b, &mut t, C + c::CONSEC_READS..=C + c::MEM_NOT_ALIGNED);
    op::copy(a, &mut t, C + c::MEM_ALIGNMENT);
    op::sum(a, b, &mut t, C + c::FILE_NOT_ALIGNED..=C + c::FILE_NOT_ALIGNED);
    op::copy(a, &mut t, C + c::FILE_ALIGNMENT);
    op::sum(a, b, &mut t, C + c::SIZE_READ_0_100..=C + c::SIZE_WRITE_1G_PLUS);
    op::common(a, b, &mut t, C + c::STRIDE1_STRIDE, C + c::STRIDE1_COUNT);
    op::common(a, b, &mut t, C + c::ACCESS1_ACCESS, C + c::ACCESS1_COUNT);
    op::min_nonzero_f(a, b, &mut t, F + c::F_OPEN_START_TIMESTAMP..=F + c::F_CLOSE_START_TIMESTAMP);
    op::max_f(a, b, &mut t, F + c::F_OPEN_END_TIMESTAMP..=F + c::F_CLOSE_END_TIMESTAMP);
    op::sum_f(a, b, &mut t, F + c::F_READ_TIME..=F + c::F_META_TIME);
    op::max_time_with_size(a, b, &mut t, F + c::F_MAX_READ_TIME, C + c::MAX_READ_TIME_SIZE);
    op::max_time_with_size(a, b, &mut t, F + c::F_MAX_WRITE_TIME, C + c::MAX_WRITE_TIME_SIZE);
    op::fastest_slowest(a, b, &mut t, &RULES.shape.ranks);
    b.copy_from_slice(&t);
}
