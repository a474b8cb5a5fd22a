//! Each module's `log_agg_records` (darshan-util's combiner, which C
//! Darshan's darshan-merge.c calls for `--shared-redux`): a record added
//! into an aggregate record, both in darshan-util's layout, by the rules
//! of `darshan_util::accum` (those our darshan-merge uses). LUSTRE's
//! aggregate is its first record, as darshan-util keeps it.

use std::ffi::c_void;

use darshan_log::modules::LUSTRE;

use crate::records::{lay_out, record_at, record_size};

/// darshan-util's room for an aggregate record: its callers' buffers
/// are `DEF_MOD_BUF_SIZE` bytes.
const AGG_ROOM: usize = crate::records::DEF_MOD_BUF_SIZE;

/// Whether module `id` has a combiner here.
pub const fn combines(id: usize) -> bool {
    id == LUSTRE || darshan_util::accum::combines(id)
}

/// `rec` added into `agg` (`init`: the first record; `agg` starts from
/// it, or from zeros).
///
/// # Safety
/// `rec` is a record of module `id` in darshan-util's layout; `agg` a
/// writable buffer holding one (zeros, with `init`) of at least the
/// module's size, and AGG_ROOM bytes for LUSTRE.
pub unsafe fn agg_into(id: usize, rec: *const c_void, agg: *mut c_void, init: bool) {
    // SAFETY: the caller's.
    let Ok(r) = (unsafe { record_at(id, rec.cast()) }) else { return };
    if id == LUSTRE {
        if init {
            // SAFETY: the caller's: AGG_ROOM writable bytes at `agg`.
            unsafe { crate::records::place(&r, agg.cast(), AGG_ROOM) };
        }
        return;
    }
    // SAFETY: the caller's: a record of the module's fixed size at `agg`.
    let Ok(mut a) = (unsafe { record_at(id, agg.cast::<u8>()) }) else { return };
    if !darshan_util::accum::agg_records(&r, &mut a, init) {
        return;
    }
    let Ok(laid) = lay_out(&a) else { return };
    let n = record_size(id).min(laid.bytes.len());
    // SAFETY: the caller's: `n` (the module's size) writable bytes.
    unsafe { std::ptr::copy_nonoverlapping(laid.bytes.as_ptr(), agg.cast::<u8>(), n) };
}
