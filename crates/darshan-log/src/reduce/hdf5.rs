//! The shared-record reductions of H5F and H5D (darshan-hdf5.c's
//! reduction operators, docs/counter-rules.md §6).

use super::ops::{self as op, Rules};
use super::Reducer;
use crate::counters::{h5d::typed as d, h5f::typed as fc};

use d::MAX_NDIMS;

// Rules name the counters they take (a list, or a family's first and
// last member, consecutive by the format's definition: histogram bins,
// per-call counters), so a reordered counter table cannot silently move a
// counter to another rule.

/// H5F keeps no fastest/slowest ranks or variances: only the combination.
pub struct FileRules;

pub const FILE_RULES: FileRules = FileRules;

impl Reducer for FileRules {
    fn prepare(&self, _rec: &mut [u64]) {}

    fn combine(&self, a: &[u64], b: &mut [u64]) {
        let mut t = [0u64; fc::RECORD_WORDS];
        t[0] = a[0];
        t[1] = -1i64 as u64;
        op::sum(a, b, &mut t, [fc::OPENS, fc::FLUSHES].map(fc::word));
        let k = fc::word(fc::USE_MPIIO);
        t[k] = (a[k] == 1 || b[k] == 1) as u64;
        op::min_nonzero_f(a, b, &mut t, [fc::F_OPEN_START_TIMESTAMP, fc::F_CLOSE_START_TIMESTAMP].map(fc::fword));
        op::max_f(a, b, &mut t, [fc::F_OPEN_END_TIMESTAMP, fc::F_CLOSE_END_TIMESTAMP].map(fc::fword));
        op::sum_f(a, b, &mut t, [fc::fword(fc::F_META_TIME)]);
        b.copy_from_slice(&t);
    }
}

pub const DATASET_RULES: Rules = Rules { shape: crate::standard_shape!(d), combine: combine_datasets };

pub fn combine_datasets(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; d::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    t[2] = a[2];
    op::sum(
        a,
        b,
        &mut t,
        [
            d::OPENS,
            d::READS,
            d::WRITES,
            d::FLUSHES,
            d::BYTES_READ,
            d::BYTES_WRITTEN,
            d::RW_SWITCHES,
            d::REGULAR_HYPERSLAB_SELECTS,
            d::IRREGULAR_HYPERSLAB_SELECTS,
            d::POINT_SELECTS,
        ]
        .map(d::word),
    );
    op::sum(a, b, &mut t, d::words(d::SIZE_READ_AGG_0_100, d::SIZE_WRITE_AGG_1G_PLUS));
    op::common_tuples(a, b, &mut t, d::word(d::ACCESS1_ACCESS), d::word(d::ACCESS1_COUNT), 1 + 2 * MAX_NDIMS);
    // The dataset's shape as the first operand has it.
    for k in [d::DATASPACE_NDIMS, d::DATASPACE_NPOINTS, d::DATATYPE_SIZE] {
        op::copy(a, &mut t, d::word(k));
    }
    for k in d::words(d::CHUNK_SIZE_D1, d::CHUNK_SIZE_D5) {
        op::copy(a, &mut t, k);
    }
    for k in [d::USE_MPIIO_COLLECTIVE, d::USE_DEPRECATED] {
        let k = d::word(k);
        t[k] = (a[k] == 1 || b[k] == 1) as u64;
    }
    op::standard_times(a, b, &mut t, &DATASET_RULES.shape);
    op::max_time_with_size(a, b, &mut t, d::fword(d::F_MAX_READ_TIME), d::word(d::MAX_READ_TIME_SIZE));
    op::max_time_with_size(a, b, &mut t, d::fword(d::F_MAX_WRITE_TIME), d::word(d::MAX_WRITE_TIME_SIZE));
    op::fastest_slowest(a, b, &mut t, &DATASET_RULES.shape.ranks);
    b.copy_from_slice(&t);
}
