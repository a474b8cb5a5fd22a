//! darshan-util's `struct darshan_mod_logutil_funcs`, the type of each
//! module's function table (tables.rs, apmpi.rs).

use std::ffi::{c_char, c_int, c_void};

use crate::fd::DarshanFd;

type GetRecord = unsafe extern "C" fn(*mut DarshanFd, *mut *mut c_void) -> c_int;
type PutRecord = unsafe extern "C" fn(*mut DarshanFd, *mut c_void) -> c_int;
type PrintRecord = unsafe extern "C" fn(*mut c_void, *mut c_char, *mut c_char, *mut c_char);
type PrintDescription = unsafe extern "C" fn(c_int);
type PrintDiff = unsafe extern "C" fn(*mut c_void, *mut c_char, *mut c_void, *mut c_char);
type AggRecords = unsafe extern "C" fn(*mut c_void, *mut c_void, c_int);
type SizeofRecord = unsafe extern "C" fn(*mut c_void) -> c_int;
type RecordMetrics = unsafe extern "C" fn(
    *mut c_void,
    *mut u64,
    *mut i64,
    *mut i64,
    *mut i64,
    *mut f64,
    *mut f64,
    *mut f64,
    *mut i64,
    *mut i64,
) -> c_int;

/// darshan-util's `struct darshan_mod_logutil_funcs`.
#[repr(C)]
pub struct Funcs {
    pub log_get_record: Option<GetRecord>,
    pub log_put_record: Option<PutRecord>,
    pub log_print_record: Option<PrintRecord>,
    pub log_print_description: Option<PrintDescription>,
    pub log_print_diff: Option<PrintDiff>,
    pub log_agg_records: Option<AggRecords>,
    pub log_sizeof_record: Option<SizeofRecord>,
    pub log_record_metrics: Option<RecordMetrics>,
}
