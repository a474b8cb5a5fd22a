//! darshan-util's `log_record_metrics` for the modules with an
//! accumulator (POSIX, MPI-IO, STDIO, DFS, DAOS): one record's figures by
//! the accumulator's own rules (`darshan_util::accum::figures`).

use std::ffi::{c_int, c_void};

use darshan_util::accum::figures;

use crate::records::record_at;

/// Module `ID`'s record at `rec`: its id, bytes read and written, max
/// offset, I/O, metadata and read/write time, rank and process count; -1
/// when it is not a record the accumulator takes.
///
/// # Safety
/// `rec` is a record of module `ID` in darshan-util's layout; every other
/// pointer is writable.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn record_metrics<const ID: usize>(
    rec: *mut c_void,
    rec_id: *mut u64,
    r_bytes: *mut i64,
    w_bytes: *mut i64,
    max_offset: *mut i64,
    io_total_time: *mut f64,
    md_only_time: *mut f64,
    rw_only_time: *mut f64,
    rank: *mut i64,
    nprocs: *mut i64,
) -> c_int {
    // SAFETY: the caller's: a record of this module.
    let found =
        crate::guarded(None, || unsafe { record_at(ID, rec.cast()) }.ok().and_then(|r| Some((figures(ID, &r)?, r))));
    let Some((f, r)) = found else { return -1 };
    // SAFETY: the caller's: every pointer writable.
    unsafe {
        rec_id.write(r.id);
        r_bytes.write(f.read);
        w_bytes.write(f.written);
        max_offset.write(f.max_offset);
        io_total_time.write(f.io_time);
        md_only_time.write(f.md_time);
        rw_only_time.write(f.rw_time);
        rank.write(r.rank);
        nprocs.write(f.nprocs);
    }
    0
}
