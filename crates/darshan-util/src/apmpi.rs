//! AutoPerf's APMPI records printed as darshan-util built with
//! `--enable-apmpi-mod` prints them (autoperf's
//! `darshan-apmpi-logutils.c`): the header's variances, then each rank's
//! processor name, counters and times, with empty name, mount and file
//! system columns. The sync times, and the rank's total sync time, are
//! printed only when the header says they were measured. Used by
//! darshan-parser and libdarshan-util's `log_print_record`.

use darshan_log::autoperf::{Apmpi, Header, Perf};
use darshan_log::counters::apmpi as c;

use crate::printrec::Lines;

/// darshan-util's description of the module's counters.
pub const DESCRIPTION: &str = "\n# description of APMPI counters:\n\
#   global summary stats showing the variance across all MPI processes:\n\
#     MPI_TOTAL_COMM_TIME_VARIANCE: variance in total communication time across all the processes.\n\
#     MPI_TOTAL_COMM_SYNC_TIME_VARIANCE: variance in total sync time across all the processes, if enabled.\n\
#   per-process detailed stats on the usage of various MPI routines:\n\
#     MPI_PROCESSOR_NAME: name of the processor used by the MPI process.\n\
#     MPI_*_CALL_COUNT: total call count for an MPI op.\n\
#     MPI_*_TOTAL_BYTES: total bytes (i.e., cumulative across all calls) moved with an MPI op.\n\
#     MPI_*_MSG_SIZE_AGG_*: histogram of total bytes moved for all the calls of an MPI op.\n\
#     MPI_*_TOTAL_TIME: total time (i.e, cumulative across all calls) of an MPI op.\n\
#     MPI_*_MIN_TIME: minimum time across all calls of an MPI op.\n\
#     MPI_*_MAX_TIME: maximum time across all calls of an MPI op.\n\
#     MPI_*_TOTAL_SYNC_TIME: total sync time (cumulative across all calls of an op) of an MPI op, if enabled.\n\
#     MPI_TOTAL_COMM_TIME: total communication (MPI) time of a process across all the MPI ops.\n\
#     MPI_TOTAL_COMM_SYNC_TIME: total sync time of a process across all the MPI ops, if enabled.\n";

/// What printing one log's records carries from the header to the ranks'
/// records: whether sync times were measured.
#[derive(Default)]
pub struct Printer {
    sync: bool,
}

impl Printer {
    /// A printer that goes on after a header said whether sync times were
    /// measured (libdarshan-util prints one record per call).
    pub fn with_sync(sync: bool) -> Self {
        Printer { sync }
    }

    /// Whether the last header printed said sync times were measured.
    pub fn sync(&self) -> bool {
        self.sync
    }

    /// `rec`'s lines into `buf`.
    pub fn print(&mut self, buf: &mut Vec<u8>, rec: &Apmpi) {
        match rec {
            Apmpi::Header(h) => self.header(buf, h),
            Apmpi::Perf(p) => self.perf(buf, p),
        }
    }

    fn header(&mut self, buf: &mut Vec<u8>, h: &Header) {
        let l = Lines::of("APMPI", (h.rank, h.id), b"", b"", b"");
        l.f(buf, "MPI_TOTAL_COMM_TIME_VARIANCE", h.variance_total_mpitime);
        if h.sync_flag != 0 {
            l.f(buf, "MPI_TOTAL_COMM_SYNC_TIME_VARIANCE", h.variance_total_mpisynctime);
        }
        self.sync = h.sync_flag != 0;
    }

    fn perf(&self, buf: &mut Vec<u8>, p: &Perf) {
        let l = Lines::of("APMPI", (p.rank, p.id), b"", b"", b"");
        l.s(buf, "MPI_PROCESSOR_NAME", p.node_name());
        for (name, &v) in c::NAMES.iter().zip(&p.counters) {
            l.u(buf, name, v);
        }
        for (name, &v) in c::F_TIME_NAMES.iter().zip(&p.time) {
            l.f(buf, name, v);
        }
        if self.sync {
            for (name, &v) in c::F_SYNC_NAMES.iter().zip(&p.sync) {
                l.f(buf, name, v);
            }
        }
        l.f(buf, c::F_GLOBAL_NAMES[0], p.global[0]);
        if self.sync {
            l.f(buf, c::F_GLOBAL_NAMES[1], p.global[1]);
        }
    }
}
