//! The shared-record reductions of PNETCDF_FILE and PNETCDF_VAR
//! (darshan-pnetcdf.c's reduction operators, docs/counter-rules.md §6).

use darshan_core::records::Reducer;
use darshan_core::reduce_ops::{self as op, Rules};
use darshan_log::counters::{pnetcdf_file as fc, pnetcdf_var as v};

use fc::{COUNTERS_AT as FC, FCOUNTERS_AT as FF};
use v::{COUNTERS_AT as C, FCOUNTERS_AT as F, MAX_NDIMS};

/// PNETCDF_FILE keeps no fastest/slowest ranks or variances: only the
/// combination.
pub struct FileRules;

pub const FILE_RULES: FileRules = FileRules;

impl Reducer for FileRules {
    fn prepare(&self, _rec: &mut [u64]) {}

    fn combine(&self, a: &[u64], b: &mut [u64]) {
        let mut t = [0u64; fc::RECORD_WORDS];
        t[0] = a[0];
        t[1] = -1i64 as u64;
        // Every counter is summed, the bytes too (so ranks whose size
        // query failed add their -1s, as in Darshan).
        op::sum(a, b, &mut t, FC + fc::CREATES..=FC + fc::WAIT_FAILURES);
        op::min_nonzero_f(a, b, &mut t, FF + fc::F_OPEN_START_TIMESTAMP..=FF + fc::F_WAIT_START_TIMESTAMP);
        op::max_f(a, b, &mut t, FF + fc::F_OPEN_END_TIMESTAMP..=FF + fc::F_WAIT_END_TIMESTAMP);
        op::sum_f(a, b, &mut t, FF + fc::F_META_TIME..=FF + fc::F_WAIT_TIME);
        b.copy_from_slice(&t);
    }
}

pub const VAR_RULES: Rules = Rules { shape: darshan_core::standard_shape!(v, C, F), combine: combine_vars };

fn combine_vars(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; v::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    t[2] = a[2];
    op::sum(a, b, &mut t, C + v::OPENS..=C + v::BPUT_VARN);
    op::sum(a, b, &mut t, C + v::SIZE_READ_AGG_0_100..=C + v::SIZE_WRITE_AGG_1G_PLUS);
    op::common_tuples(a, b, &mut t, C + v::ACCESS1_ACCESS, C + v::ACCESS1_COUNT, 1 + 2 * MAX_NDIMS);
    // The variable's shape as the first operand has it.
    for k in [v::NDIMS, v::NPOINTS, v::DATATYPE_SIZE] {
        op::copy(a, &mut t, C + k);
    }
    t[C + v::IS_RECORD_VAR] = (a[C + v::IS_RECORD_VAR] == 1 || b[C + v::IS_RECORD_VAR] == 1) as u64;
    op::min_nonzero_f(a, b, &mut t, F + v::F_OPEN_START_TIMESTAMP..=F + v::F_CLOSE_START_TIMESTAMP);
    op::max_f(a, b, &mut t, F + v::F_OPEN_END_TIMESTAMP..=F + v::F_CLOSE_END_TIMESTAMP);
    op::sum_f(a, b, &mut t, F + v::F_READ_TIME..=F + v::F_META_TIME);
    op::max_time_with_size(a, b, &mut t, F + v::F_MAX_READ_TIME, C + v::MAX_READ_TIME_SIZE);
    op::max_time_with_size(a, b, &mut t, F + v::F_MAX_WRITE_TIME, C + v::MAX_WRITE_TIME_SIZE);
    op::fastest_slowest(a, b, &mut t, &VAR_RULES.shape.ranks);
    b.copy_from_slice(&t);
}
