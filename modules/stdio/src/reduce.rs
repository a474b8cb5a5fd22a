//! STDIO's shared-record reduction operator (docs/counter-rules.md §6.3).

use darshan_core::reduce_ops::{self as op, Rules};
use darshan_log::counters::stdio as c;

use c::{fword as f, word as w};

pub const RULES: Rules = Rules { shape: darshan_core::standard_shape!(c), combine };

// Rules name the counters they take (a list, or a family's first and
// last member, consecutive by the format's definition: histogram bins,
// per-call counters), so a reordered counter table cannot silently move a
// counter to another rule.

fn combine(a: &[u64], b: &mut [u64]) {
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
    op::sum_f(a, b, &mut t, [c::F_META_TIME, c::F_WRITE_TIME, c::F_READ_TIME].map(f));
    op::min_nonzero_f(
        a,
        b,
        &mut t,
        [c::F_OPEN_START_TIMESTAMP, c::F_CLOSE_START_TIMESTAMP, c::F_WRITE_START_TIMESTAMP, c::F_READ_START_TIMESTAMP]
            .map(f),
    );
    op::max_f(
        a,
        b,
        &mut t,
        [c::F_OPEN_END_TIMESTAMP, c::F_CLOSE_END_TIMESTAMP, c::F_WRITE_END_TIMESTAMP, c::F_READ_END_TIMESTAMP].map(f),
    );
    op::fastest_slowest(a, b, &mut t, &RULES.shape.ranks);
    b.copy_from_slice(&t);
}
