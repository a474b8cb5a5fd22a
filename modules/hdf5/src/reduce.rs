//! The shared-record reductions of H5F and H5D (darshan-hdf5.c's
//! reduction operators, docs/counter-rules.md §6).

use darshan_core::records::Reducer;
use darshan_core::reduce_ops::{self as op, Rules};
use darshan_log::counters::{h5d as d, h5f as fc};

use d::{COUNTERS_AT as C, FCOUNTERS_AT as DF, MAX_NDIMS};

const FF: usize = fc::FCOUNTERS_AT;

/// H5F keeps no fastest/slowest ranks or variances: only the combination.
pub struct FileRules;

pub const FILE_RULES: FileRules = FileRules;

impl Reducer for FileRules {
    fn prepare(&self, _rec: &mut [u64]) {}

    fn combine(&self, a: &[u64], b: &mut [u64]) {
        let mut t = [0u64; fc::RECORD_WORDS];
        t[0] = a[0];
        t[1] = -1i64 as u64;
        op::sum(a, b, &mut t, 2 + fc::OPENS..=2 + fc::FLUSHES);
        t[2 + fc::USE_MPIIO] = (a[2 + fc::USE_MPIIO] == 1 || b[2 + fc::USE_MPIIO] == 1) as u64;
        op::min_nonzero_f(a, b, &mut t, FF + fc::F_OPEN_START_TIMESTAMP..=FF + fc::F_CLOSE_START_TIMESTAMP);
        op::max_f(a, b, &mut t, FF + fc::F_OPEN_END_TIMESTAMP..=FF + fc::F_CLOSE_END_TIMESTAMP);
        op::sum_f(a, b, &mut t, FF + fc::F_META_TIME..=FF + fc::F_META_TIME);
        b.copy_from_slice(&t);
    }
}

pub const DATASET_RULES: Rules = Rules { shape: darshan_core::standard_shape!(d, C, DF), combine: combine_datasets };

fn combine_datasets(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; d::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    t[2] = a[2];
    op::sum(a, b, &mut t, C + d::OPENS..=C + d::POINT_SELECTS);
    op::sum(a, b, &mut t, C + d::SIZE_READ_AGG_0_100..=C + d::SIZE_WRITE_AGG_1G_PLUS);
    op::common_tuples(a, b, &mut t, C + d::ACCESS1_ACCESS, C + d::ACCESS1_COUNT, 1 + 2 * MAX_NDIMS);
    // The dataset's shape as the first operand has it.
    for k in [d::DATASPACE_NDIMS, d::DATASPACE_NPOINTS, d::DATATYPE_SIZE] {
        op::copy(a, &mut t, C + k);
    }
    for k in d::CHUNK_SIZE_D1..=d::CHUNK_SIZE_D5 {
        op::copy(a, &mut t, C + k);
    }
    for k in [d::USE_MPIIO_COLLECTIVE, d::USE_DEPRECATED] {
        t[C + k] = (a[C + k] == 1 || b[C + k] == 1) as u64;
    }
    op::min_nonzero_f(a, b, &mut t, DF + d::F_OPEN_START_TIMESTAMP..=DF + d::F_CLOSE_START_TIMESTAMP);
    op::max_f(a, b, &mut t, DF + d::F_OPEN_END_TIMESTAMP..=DF + d::F_CLOSE_END_TIMESTAMP);
    op::sum_f(a, b, &mut t, DF + d::F_READ_TIME..=DF + d::F_META_TIME);
    op::max_time_with_size(a, b, &mut t, DF + d::F_MAX_READ_TIME, C + d::MAX_READ_TIME_SIZE);
    op::max_time_with_size(a, b, &mut t, DF + d::F_MAX_WRITE_TIME, C + d::MAX_WRITE_TIME_SIZE);
    op::fastest_slowest(a, b, &mut t, &DATASET_RULES.shape.ranks);
    b.copy_from_slice(&t);
}
