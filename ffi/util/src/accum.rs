//! darshan-util's accumulator (`darshan_accumulator_*`): the derived
//! metrics and the summation record of a set of records, which PyDarshan's
//! report asks for per module. The rules are darshan-parser's own
//! (`darshan_util::accum`, checked against C's `--total` and `--perf`).

use std::ffi::{c_int, c_void};

use darshan_util::accum::{Accumulator, Category, Metrics};

use crate::guarded;
use crate::records::{decode_each, lay_out, record_size};

/// darshan-util's `struct darshan_file_category_counters`.
#[repr(C)]
#[derive(Default)]
pub struct CategoryCounters {
    pub count: i64,
    pub total_read_volume_bytes: i64,
    pub total_write_volume_bytes: i64,
    pub max_read_volume_bytes: i64,
    pub max_write_volume_bytes: i64,
    pub total_max_offset_bytes: i64,
    pub max_offset_bytes: i64,
    pub nprocs: i64,
}

/// darshan-util's `struct darshan_derived_metrics`.
#[repr(C)]
#[derive(Default)]
pub struct DerivedMetrics {
    pub total_bytes: i64,
    pub unique_io_total_time_by_slowest: f64,
    pub unique_rw_only_time_by_slowest: f64,
    pub unique_md_only_time_by_slowest: f64,
    pub unique_io_slowest_rank: c_int,
    pub shared_io_total_time_by_slowest: f64,
    pub agg_perf_by_slowest: f64,
    pub agg_time_by_slowest: f64,
    pub category_counters: [CategoryCounters; 7],
}

/// The opaque `darshan_accumulator`.
pub struct Acc {
    module: usize,
    inner: Accumulator,
}

/// A new accumulator for module `id` of a job of `nprocs` processes; -1
/// (and a null accumulator) for a module without derived metrics.
///
/// # Safety
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn darshan_accumulator_create(id: c_int, nprocs: i64, out: *mut *mut Acc) -> c_int {
    let made = usize::try_from(id).ok().and_then(|m| Accumulator::new(m, nprocs).map(|inner| Acc { module: m, inner }));
    let p = made.map_or(std::ptr::null_mut(), |a| Box::into_raw(Box::new(a)));
    // SAFETY: the caller's: writable.
    unsafe { out.write(p) };
    if p.is_null() {
        -1
    } else {
        0
    }
}

/// `count` records of the accumulator's module at `records`, laid out one
/// after another as darshan-util's structs.
///
/// # Safety
/// `acc` is live; `records` holds `count` records of its module.
#[no_mangle]
pub unsafe extern "C" fn darshan_accumulator_inject(acc: *mut Acc, records: *const c_void, count: c_int) -> c_int {
    // SAFETY: the caller's: a live accumulator or null.
    let Some(acc) = (unsafe { acc.as_mut() }) else { return -1 };
    let size = record_size(acc.module);
    let n = usize::try_from(count).unwrap_or(0);
    if n == 0 {
        return 0;
    }
    if records.is_null() {
        return -1;
    }
    // SAFETY: the caller's: `count` records of `size` bytes.
    let bytes = unsafe { std::slice::from_raw_parts(records.cast::<u8>(), n * size) };
    guarded(-1, || match decode_each(acc.module, bytes, |r| acc.inner.inject(r)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}.");
            -1
        }
    })
}

fn category(c: &Category) -> CategoryCounters {
    CategoryCounters {
        count: c.count,
        total_read_volume_bytes: c.total_read,
        total_write_volume_bytes: c.total_write,
        max_read_volume_bytes: c.max_read,
        max_write_volume_bytes: c.max_write,
        total_max_offset_bytes: c.total_max_offset,
        max_offset_bytes: c.max_offset,
        nprocs: c.nprocs,
    }
}

fn derived(m: &Metrics) -> DerivedMetrics {
    DerivedMetrics {
        total_bytes: m.total_bytes,
        unique_io_total_time_by_slowest: m.unique_io_total_time_by_slowest,
        unique_rw_only_time_by_slowest: m.unique_rw_only_time_by_slowest,
        unique_md_only_time_by_slowest: m.unique_md_only_time_by_slowest,
        unique_io_slowest_rank: m.unique_io_slowest_rank as c_int,
        shared_io_total_time_by_slowest: m.shared_io_total_time_by_slowest,
        agg_perf_by_slowest: m.agg_perf_by_slowest,
        agg_time_by_slowest: m.agg_time_by_slowest,
        category_counters: std::array::from_fn(|k| category(&m.categories[k])),
    }
}

/// The derived metrics into `metrics`, the summation record into
/// `summation` (room for one record of the module).
///
/// # Safety
/// `acc` is live; `metrics` and `summation` are writable.
#[no_mangle]
pub unsafe extern "C" fn darshan_accumulator_emit(
    acc: *mut Acc,
    metrics: *mut DerivedMetrics,
    summation: *mut c_void,
) -> c_int {
    // SAFETY: the caller's: a live accumulator or null.
    let Some(acc) = (unsafe { acc.as_ref() }) else { return -1 };
    let emitted = guarded(None, || Some((derived(&acc.inner.metrics()), lay_out(acc.inner.total()).ok()?.bytes)));
    let Some((m, total)) = emitted else { return -1 };
    // SAFETY: the caller's: room for the metrics and for one record.
    unsafe {
        metrics.write_unaligned(m);
        std::ptr::copy_nonoverlapping(total.as_ptr(), summation.cast::<u8>(), total.len());
    }
    0
}

/// The accumulator freed.
///
/// # Safety
/// `acc` is null or live, and not used again.
#[no_mangle]
pub unsafe extern "C" fn darshan_accumulator_destroy(acc: *mut Acc) -> c_int {
    if !acc.is_null() {
        // SAFETY: the caller's: made by Box::into_raw in create, given
        // back once.
        drop(unsafe { Box::from_raw(acc) });
    }
    0
}
