//! AutoPerf's MPI module (APMPI, module id 14, version 1): what a C
//! Darshan built with `--enable-apmpi-mod` records of a rank's MPI calls
//! (argonne-lcf/autoperf's `apmpi/darshan-apmpi-log-format.h`, the
//! submodule commit 8623a06 that Darshan 3.5.0 pins). The region holds
//! one header record (id, rank, magic, sync flag, the variance of the
//! ranks' communication and sync times), then one record per rank: the
//! calls of every MPI operation, their bytes and a histogram of message
//! sizes, the time per operation (total, least, most), the collectives'
//! sync time, the rank's totals and its processor's name.
//!
//! Every name here is made from the operation lists below, in C's order:
//! an operation that moves data (`X` in C) has eight counters, one that
//! does not (`V`) has its call count alone; every operation has three
//! times; the blocking collectives and the barrier (`sync`) have a sync
//! time.

use super::{c_names, flatten};

/// The module version this layout is.
pub const VERSION: u32 = 1;
/// The header record's magic: "APMPI" as C builds it.
pub const MAGIC: i64 =
    (b'A' as i64) << 32 | (b'P' as i64) << 24 | (b'M' as i64) << 16 | (b'P' as i64) << 8 | b'I' as i64;
/// Bytes of a processor name (`AP_PROCESSOR_NAME_MAX`).
pub const NAME_MAX: usize = 128;

pub const NUM_INDICES: usize = 396;
pub const F_TIME_NUM_INDICES: usize = 222;
pub const F_SYNC_NUM_INDICES: usize = 16;
pub const F_GLOBAL_NUM_INDICES: usize = 2;

/// `struct darshan_apmpi_header_record` (48 bytes): id, rank, magic, sync flag
/// (padded to 8), two variances.
pub const HEADER_SIZE: usize = 48;
/// `struct darshan_apmpi_perf_record`.
pub const PERF_SIZE: usize =
    16 + 8 * (NUM_INDICES + F_TIME_NUM_INDICES + F_SYNC_NUM_INDICES + F_GLOBAL_NUM_INDICES) + NAME_MAX;

/// One operation's counter names (`$end` after each: "" or "\0").
macro_rules! op_counters {
    (X $op:ident $end:literal) => {
        &[
            concat!(stringify!($op), "_CALL_COUNT", $end),
            concat!(stringify!($op), "_TOTAL_BYTES", $end),
            concat!(stringify!($op), "_MSG_SIZE_AGG_0_256", $end),
            concat!(stringify!($op), "_MSG_SIZE_AGG_256_1K", $end),
            concat!(stringify!($op), "_MSG_SIZE_AGG_1K_8K", $end),
            concat!(stringify!($op), "_MSG_SIZE_AGG_8K_256K", $end),
            concat!(stringify!($op), "_MSG_SIZE_AGG_256K_1M", $end),
            concat!(stringify!($op), "_MSG_SIZE_AGG_1M_PLUS", $end),
        ]
    };
    (V $op:ident $end:literal) => {
        &[concat!(stringify!($op), "_CALL_COUNT", $end)]
    };
}

/// One operation's three time names.
macro_rules! op_times {
    ($op:ident $end:literal) => {
        &[
            concat!(stringify!($op), "_TOTAL_TIME", $end),
            concat!(stringify!($op), "_MIN_TIME", $end),
            concat!(stringify!($op), "_MAX_TIME", $end),
        ]
    };
}

/// One operation's sync time name, if it has one.
macro_rules! op_sync {
    ($op:ident sync $end:literal) => {
        &[concat!(stringify!($op), "_TOTAL_SYNC_TIME", $end)]
    };
    ($op:ident $end:literal) => {
        &[]
    };
}

/// The name arrays, as `&str` (darshan-parser's) and as the C strings
/// darshan-util exports (each ending in its `NUM_INDICES` name, where
/// PyDarshan stops reading).
macro_rules! apmpi_ops {
    ($($kind:ident $op:ident $($sync:ident)?,)*) => {
        pub const NAMES: [&str; NUM_INDICES] = flatten(&[$(op_counters!($kind $op "")),*], "");
        pub const F_TIME_NAMES: [&str; F_TIME_NUM_INDICES] = flatten(&[$(op_times!($op "")),*], "");
        pub const F_SYNC_NAMES: [&str; F_SYNC_NUM_INDICES] = flatten(&[$(op_sync!($op $($sync)? "")),*], "");
        const C_TEXT: [&str; NUM_INDICES + 1] =
            flatten(&[$(op_counters!($kind $op "\0"),)* &["APMPI_NUM_INDICES\0"]], "");
        const F_TIME_C_TEXT: [&str; F_TIME_NUM_INDICES + 1] =
            flatten(&[$(op_times!($op "\0"),)* &["APMPI_F_MPIOP_TOTALTIME_NUM_INDICES\0"]], "");
        const F_SYNC_C_TEXT: [&str; F_SYNC_NUM_INDICES + 1] =
            flatten(&[$(op_sync!($op $($sync)? "\0"),)* &["APMPI_F_MPIOP_SYNCTIME_NUM_INDICES\0"]], "");
        /// The operations, in the format's order (an operation's three
        /// times are `F_TIME_NAMES[3 * k..3 * k + 3]`).
        pub const OPS: [Op; NUM_OPS] = ops(&[$((stringify!($op), op_counters!($kind $op "").len() > 1)),*]);
    };
}

apmpi_ops! {
    // Blocking point-to-point.
    X MPI_SEND, X MPI_SSEND, X MPI_RSEND, X MPI_BSEND, X MPI_RECV, X MPI_SENDRECV, X MPI_SENDRECV_REPLACE,
    // Non-blocking point-to-point.
    X MPI_ISEND, X MPI_ISSEND, X MPI_IRSEND, X MPI_IBSEND, X MPI_IRECV,
    // Probes, tests and waits.
    V MPI_PROBE, V MPI_IPROBE, V MPI_TEST, V MPI_TESTANY, V MPI_TESTALL, V MPI_TESTSOME,
    V MPI_WAIT, V MPI_WAITANY, V MPI_WAITALL, V MPI_WAITSOME,
    // Barriers.
    V MPI_BARRIER sync, V MPI_IBARRIER,
    // Blocking collectives.
    X MPI_BCAST sync, X MPI_GATHER sync, X MPI_GATHERV sync, X MPI_SCATTER sync, X MPI_SCATTERV sync,
    X MPI_SCAN sync, X MPI_EXSCAN sync, X MPI_ALLGATHER sync, X MPI_ALLGATHERV sync, X MPI_REDUCE sync,
    X MPI_ALLREDUCE sync, X MPI_REDUCE_SCATTER sync, X MPI_ALLTOALL sync, X MPI_ALLTOALLV sync,
    X MPI_ALLTOALLW sync,
    // Non-blocking collectives.
    X MPI_IBCAST, X MPI_IGATHER, X MPI_IGATHERV, X MPI_ISCATTER, X MPI_ISCATTERV, X MPI_ISCAN,
    X MPI_IEXSCAN, X MPI_IALLGATHER, X MPI_IALLGATHERV, X MPI_IREDUCE, X MPI_IALLREDUCE,
    X MPI_IREDUCE_SCATTER, X MPI_IALLTOALL, X MPI_IALLTOALLV, X MPI_IALLTOALLW,
    // One-sided.
    X MPI_PUT, X MPI_GET, X MPI_ACCUMULATE, X MPI_GET_ACCUMULATE, V MPI_FETCH_AND_OP,
    V MPI_COMPARE_AND_SWAP, V MPI_WIN_FENCE, V MPI_WIN_START, V MPI_WIN_COMPLETE, V MPI_WIN_POST,
    V MPI_WIN_WAIT, V MPI_WIN_TEST, V MPI_WIN_LOCK, V MPI_WIN_UNLOCK, V MPI_WIN_UNLOCK_ALL,
    V MPI_WIN_FLUSH, V MPI_WIN_FLUSH_ALL, V MPI_WIN_FLUSH_LOCAL, V MPI_WIN_FLUSH_LOCAL_ALL, V MPI_WIN_SYNC,
}

pub const NUM_OPS: usize = F_TIME_NUM_INDICES / 3;

/// A rank's communication and sync seconds, added as C's
/// `apmpi_mpi_redux` adds them at shutdown: onto `comm` (the record's
/// MPI_TOTAL_COMM_TIME so far), every operation's total time
/// (`time(3 * k)`) in order, then the sum of the sync times
/// (`sync(i)`), which is the sync total. The runtime's shutdown and
/// darshan-merge of a killed job's files both add them so.
pub fn rank_totals(comm: f64, time: impl Fn(usize) -> f64, sync: impl Fn(usize) -> f64) -> (f64, f64) {
    let synced: f64 = (0..F_SYNC_NUM_INDICES).map(sync).fold(0.0, |a, b| a + b);
    let comm = (0..F_TIME_NUM_INDICES).step_by(3).map(time).fold(comm, |a, b| a + b);
    (comm + synced, synced)
}

/// Every operation's call count's index among the counters.
pub const CALL_COUNTS: [usize; NUM_OPS] = {
    let mut out = [0; NUM_OPS];
    let mut k = 0;
    while k < NUM_OPS {
        out[k] = OPS[k].calls;
        k += 1;
    }
    out
};

/// One MPI operation of the record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Op {
    pub name: &'static str,
    /// Its call count's index among the counters.
    pub calls: usize,
    /// Its bytes' index, for an operation that moves data (its histogram
    /// of message sizes follows).
    pub bytes: Option<usize>,
}

/// The operations with their counters' places: eight counters for one
/// that moves data, its call count alone for another.
const fn ops(list: &[(&'static str, bool)]) -> [Op; NUM_OPS] {
    let mut out = [Op { name: "", calls: 0, bytes: None }; NUM_OPS];
    let (mut k, mut at) = (0, 0);
    while k < list.len() {
        let (name, moves) = list[k];
        out[k] = Op { name, calls: at, bytes: if moves { Some(at + 1) } else { None } };
        at += if moves { 8 } else { 1 };
        k += 1;
    }
    assert!(k == NUM_OPS && at == NUM_INDICES, "the operations do not make the format's counters");
    out
}

/// The rank's totals over every operation.
pub const F_GLOBAL_NAMES: [&str; F_GLOBAL_NUM_INDICES] = ["MPI_TOTAL_COMM_TIME", "MPI_TOTAL_COMM_SYNC_TIME"];
const F_GLOBAL_C_TEXT: [&str; F_GLOBAL_NUM_INDICES + 1] =
    ["MPI_TOTAL_COMM_TIME\0", "MPI_TOTAL_COMM_SYNC_TIME\0", "APMPI_F_MPI_GLOBAL_NUM_INDICES\0"];

/// darshan-util's `apmpi_counter_names`.
pub const C_NAMES: [&core::ffi::CStr; NUM_INDICES + 1] = c_names(C_TEXT);
/// darshan-util's `apmpi_f_mpiop_totaltime_counter_names`.
pub const F_TIME_C_NAMES: [&core::ffi::CStr; F_TIME_NUM_INDICES + 1] = c_names(F_TIME_C_TEXT);
/// darshan-util's `apmpi_f_mpiop_synctime_counter_names`.
pub const F_SYNC_C_NAMES: [&core::ffi::CStr; F_SYNC_NUM_INDICES + 1] = c_names(F_SYNC_C_TEXT);
/// darshan-util's `apmpi_f_mpi_global_counter_names`.
pub const F_GLOBAL_C_NAMES: [&core::ffi::CStr; F_GLOBAL_NUM_INDICES + 1] = c_names(F_GLOBAL_C_TEXT);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_records_are_the_sizes_the_c_structs_are() {
        // PyDarshan's cdef: counters[396], fcounters[222],
        // fsynccounters[16], fglobalcounters[2], node_name[128].
        assert_eq!(PERF_SIZE, 5232);
        // The header PyDarshan read from the corpus's APMPI log.
        assert_eq!(MAGIC, 280_520_118_345);
    }

    #[test]
    fn names_follow_the_operations_in_order() {
        assert_eq!(NAMES[0], "MPI_SEND_CALL_COUNT");
        assert_eq!(NAMES[7], "MPI_SEND_MSG_SIZE_AGG_1M_PLUS");
        assert_eq!(NAMES[NUM_INDICES - 1], "MPI_WIN_SYNC_CALL_COUNT");
        assert_eq!(F_TIME_NAMES[F_TIME_NUM_INDICES - 1], "MPI_WIN_SYNC_MAX_TIME");
        assert_eq!(F_SYNC_NAMES[0], "MPI_BARRIER_TOTAL_SYNC_TIME");
        assert_eq!(F_SYNC_NAMES[15], "MPI_ALLTOALLW_TOTAL_SYNC_TIME");
        assert_eq!(C_NAMES[NUM_INDICES].to_bytes(), b"APMPI_NUM_INDICES");
        assert_eq!(C_NAMES[3].to_bytes(), NAMES[3].as_bytes());
        for (k, op) in OPS.iter().enumerate() {
            assert_eq!(NAMES[op.calls], format!("{}_CALL_COUNT", op.name));
            assert_eq!(op.bytes.map(|b| NAMES[b].to_string()), op.bytes.map(|_| format!("{}_TOTAL_BYTES", op.name)));
            assert_eq!(F_TIME_NAMES[3 * k], format!("{}_TOTAL_TIME", op.name));
        }
    }
}
