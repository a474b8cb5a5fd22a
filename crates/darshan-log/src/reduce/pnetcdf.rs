//! The shared-record reductions of PNETCDF_FILE and PNETCDF_VAR
//! (darshan-pnetcdf.c's reduction operators, docs/counter-rules.md §6).

use super::ops::{self as op, Rules};
use super::Reducer;
use crate::counters::{pnetcdf_file::typed as fc, pnetcdf_var::typed as v};

use v::MAX_NDIMS;

// Rules name the counters they take (a list, or a family's first and
// last member, consecutive by the format's definition: histogram bins,
// per-call counters), so a reordered counter table cannot silently move a
// counter to another rule.

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
        op::sum(
            a,
            b,
            &mut t,
            [
                fc::CREATES,
                fc::OPENS,
                fc::REDEFS,
                fc::INDEP_WAITS,
                fc::COLL_WAITS,
                fc::SYNCS,
                fc::BYTES_READ,
                fc::BYTES_WRITTEN,
                fc::WAIT_FAILURES,
            ]
            .map(fc::word),
        );
        op::min_nonzero_f(
            a,
            b,
            &mut t,
            [fc::F_OPEN_START_TIMESTAMP, fc::F_CLOSE_START_TIMESTAMP, fc::F_WAIT_START_TIMESTAMP].map(fc::fword),
        );
        op::max_f(
            a,
            b,
            &mut t,
            [fc::F_OPEN_END_TIMESTAMP, fc::F_CLOSE_END_TIMESTAMP, fc::F_WAIT_END_TIMESTAMP].map(fc::fword),
        );
        op::sum_f(a, b, &mut t, [fc::F_META_TIME, fc::F_WAIT_TIME].map(fc::fword));
        b.copy_from_slice(&t);
    }
}

pub const VAR_RULES: Rules = Rules { shape: crate::standard_shape!(v), combine: combine_vars };

pub fn combine_vars(a: &[u64], b: &mut [u64]) {
    let mut t = [0u64; v::RECORD_WORDS];
    t[0] = a[0];
    t[1] = -1i64 as u64;
    t[2] = a[2];
    op::sum(
        a,
        b,
        &mut t,
        [
            v::OPENS,
            v::INDEP_READS,
            v::INDEP_WRITES,
            v::COLL_READS,
            v::COLL_WRITES,
            v::NB_READS,
            v::NB_WRITES,
            v::BYTES_READ,
            v::BYTES_WRITTEN,
            v::RW_SWITCHES,
        ]
        .map(v::word),
    );
    op::sum(a, b, &mut t, v::words(v::PUT_VAR, v::BPUT_VARN));
    op::sum(a, b, &mut t, v::words(v::SIZE_READ_AGG_0_100, v::SIZE_WRITE_AGG_1G_PLUS));
    op::common_tuples(a, b, &mut t, v::word(v::ACCESS1_ACCESS), v::word(v::ACCESS1_COUNT), 1 + 2 * MAX_NDIMS);
    // The variable's shape as the first operand has it.
    for k in [v::NDIMS, v::NPOINTS, v::DATATYPE_SIZE] {
        op::copy(a, &mut t, v::word(k));
    }
    let k = v::word(v::IS_RECORD_VAR);
    t[k] = (a[k] == 1 || b[k] == 1) as u64;
    op::standard_times(a, b, &mut t, &VAR_RULES.shape);
    op::max_time_with_size(a, b, &mut t, v::fword(v::F_MAX_READ_TIME), v::word(v::MAX_READ_TIME_SIZE));
    op::max_time_with_size(a, b, &mut t, v::fword(v::F_MAX_WRITE_TIME), v::word(v::MAX_WRITE_TIME_SIZE));
    op::fastest_slowest(a, b, &mut t, &VAR_RULES.shape.ranks);
    b.copy_from_slice(&t);
}
