//! One read or write of a dataset-like record (H5D, PNETCDF_VAR): the
//! counters both modules update by the same Darshan rules (bytes, size
//! histogram, read/write switches, common accesses, timestamps, the
//! slowest access and its size, cumulative time), at the word offsets
//! each module's layout gives. The module counts what is its own (H5D's
//! selection kinds, PNETCDF_VAR's per-API counts) around it.

use crate::counting::access_tuples::{AccessTuples, TUPLE};
use crate::counting::common::{
    add, size_bucket, stamp, timer_inc_no_overlap, update_common_tuple, IoTimers, LastIo, Tick,
};

/// Word offsets of one direction's counters.
pub struct Direction {
    pub bytes: usize,
    pub hist: usize,
    pub start: usize,
    pub end: usize,
    pub max_time: usize,
    pub max_size: usize,
    pub time: usize,
}

/// Word offsets of everything [`count`] updates.
pub struct IoLayout {
    pub read: Direction,
    pub write: Direction,
    pub rw_switches: usize,
    /// ACCESS1_ACCESS and ACCESS1_COUNT.
    pub access1: usize,
    pub count1: usize,
    /// META_TIME (not updated here: the module's opens and closes).
    pub meta_time: usize,
}

/// A record's runtime state for its reads and writes.
#[derive(Default)]
pub struct IoState {
    pub last_io: LastIo,
    pub t: IoTimers,
    /// Distinct access tuples seen (at most 32).
    pub distinct: u8,
}

impl IoState {
    /// The record's three timers with their words (`RecordRt::timers`).
    pub fn timers(&self, l: &IoLayout, f: &mut dyn FnMut(usize, &crate::counting::common::NoOverlap)) {
        self.t.each(f, l.read.time, l.write.time, l.meta_time);
    }
}

/// One read (`write` false) or write of `bytes` by record `rec` (words
/// `w`), `tuple` its common-access tuple, from tick `tm1` to `tm2`.
#[allow(clippy::too_many_arguments)]
pub fn count(
    l: &IoLayout,
    tuples: &mut AccessTuples,
    rec: usize,
    w: &mut [u64],
    st: &mut IoState,
    write: bool,
    bytes: i64,
    tuple: &[i64; TUPLE],
    tm1: Tick,
    tm2: Tick,
) {
    let d = if write { &l.write } else { &l.read };
    add(w, d.bytes, bytes);
    if st.last_io.switches(write) {
        add(w, l.rw_switches, 1);
    }
    add(w, d.hist + size_bucket(bytes), 1);
    if let Some(freq) = tuples.track(rec, &mut st.distinct, tuple) {
        update_common_tuple(w, l.access1, l.count1, tuple, freq, false);
    }
    stamp(w, d.start, d.end, tm1, tm2);
    if (tm2 - tm1) as u64 > w[d.max_time] {
        w[d.max_time] = (tm2 - tm1) as u64;
        w[d.max_size] = bytes as u64;
    }
    let timer = if write { &mut st.t.write } else { &mut st.t.read };
    timer_inc_no_overlap(w, d.time, tm1, tm2, timer);
}

/// The [`IoLayout`] of a record whose counter module `$c` (`darshan_log::
/// counters::h5d`, `pnetcdf_var`) names the fields as H5D does; their
/// words come from the module's layout.
#[macro_export]
macro_rules! dataset_io_layout {
    ($c:ident) => {
        $crate::counting::dataset_io::IoLayout {
            read: $crate::counting::dataset_io::Direction {
                bytes: $c::word($c::BYTES_READ),
                hist: $c::word($c::SIZE_READ_AGG_0_100),
                start: $c::fword($c::F_READ_START_TIMESTAMP),
                end: $c::fword($c::F_READ_END_TIMESTAMP),
                max_time: $c::fword($c::F_MAX_READ_TIME),
                max_size: $c::word($c::MAX_READ_TIME_SIZE),
                time: $c::fword($c::F_READ_TIME),
            },
            write: $crate::counting::dataset_io::Direction {
                bytes: $c::word($c::BYTES_WRITTEN),
                hist: $c::word($c::SIZE_WRITE_AGG_0_100),
                start: $c::fword($c::F_WRITE_START_TIMESTAMP),
                end: $c::fword($c::F_WRITE_END_TIMESTAMP),
                max_time: $c::fword($c::F_MAX_WRITE_TIME),
                max_size: $c::word($c::MAX_WRITE_TIME_SIZE),
                time: $c::fword($c::F_WRITE_TIME),
            },
            rw_switches: $c::word($c::RW_SWITCHES),
            access1: $c::word($c::ACCESS1_ACCESS),
            count1: $c::word($c::ACCESS1_COUNT),
            meta_time: $c::fword($c::F_META_TIME),
        }
    };
}
