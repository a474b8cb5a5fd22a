//! POSIX's shared-record reduction operator (docs/counter-rules.md §6.3).

use super::ops::{self as op, Rules};
use crate::counters::posix::typed as c;

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
    op::sum_or_minus_one(
        a,
        b,
        &mut t,
        [
            c::OPENS,
            c::FILENOS,
            c::DUPS,
            c::READS,
            c::WRITES,
            c::SEEKS,
            c::STATS,
            c::FSYNCS,
            c::FDSYNCS,
            c::RENAME_SOURCES,
            c::RENAME_TARGETS,
        ]
        .map(w),
    );
    op::count_or_minus_one(a, b, &mut t, w(c::MMAPS));
    op::copy(a, &mut t, w(c::RENAMED_FROM));
    op::copy(a, &mut t, w(c::MODE));
    op::sum(a, b, &mut t, [c::BYTES_READ, c::BYTES_WRITTEN].map(w));
    op::max(a, b, &mut t, [c::MAX_BYTE_READ, c::MAX_BYTE_WRITTEN].map(w));
    op::sum(
        a,
        b,
        &mut t,
        [c::CONSEC_READS, c::CONSEC_WRITES, c::SEQ_READS, c::SEQ_WRITES, c::RW_SWITCHES, c::MEM_NOT_ALIGNED].map(w),
    );
    op::copy(a, &mut t, w(c::MEM_ALIGNMENT));
    op::sum(a, b, &mut t, [w(c::FILE_NOT_ALIGNED)]);
    op::copy(a, &mut t, w(c::FILE_ALIGNMENT));
    op::sum(a, b, &mut t, c::words(c::SIZE_READ_0_100, c::SIZE_WRITE_1G_PLUS));
    op::common(a, b, &mut t, w(c::STRIDE1_STRIDE), w(c::STRIDE1_COUNT));
    op::common(a, b, &mut t, w(c::ACCESS1_ACCESS), w(c::ACCESS1_COUNT));
    op::standard_times(a, b, &mut t, &RULES.shape);
    op::max_time_with_size(a, b, &mut t, c::fword(c::F_MAX_READ_TIME), c::word(c::MAX_READ_TIME_SIZE));
    op::max_time_with_size(a, b, &mut t, c::fword(c::F_MAX_WRITE_TIME), c::word(c::MAX_WRITE_TIME_SIZE));
    op::fastest_slowest(a, b, &mut t, &RULES.shape.ranks);
    b.copy_from_slice(&t);
}
