//! Each module's `log_agg_records` (darshan-util's combiner, which C
//! Darshan's darshan-merge.c calls for `--shared-redux`): a record added
//! into an aggregate record, both in darshan-util's layout, by the rules
//! our darshan-merge uses: `darshan_util::accum` for POSIX, MPI-IO,
//! STDIO, DFS and DAOS, `darshan_util::combine` for HDF5, PnetCDF and
//! NULL. LUSTRE's aggregate is its first record, as darshan-util keeps
//! it.

use std::ffi::c_void;
use std::sync::Mutex;

use darshan_log::modules::LUSTRE;
use darshan_util::combine::Variance;

use crate::records::{lay_out, record_at, record_size};

/// darshan-util's room for an aggregate record: its callers' buffers
/// are `DEF_MOD_BUF_SIZE` bytes.
const AGG_ROOM: usize = crate::records::DEF_MOD_BUF_SIZE;

/// Whether module `id` has a combiner here.
pub const fn combines(id: usize) -> bool {
    id == LUSTRE || darshan_util::accum::combines(id) || darshan_util::combine::combines(id)
}

/// `rec` added into `agg` (`init`: the first record; `agg` starts from
/// it, or from zeros).
///
/// # Safety
/// `rec` is a writable record of module `id` in darshan-util's layout;
/// `agg` a writable buffer holding one (zeros, with `init`) of at least
/// the module's size, and AGG_ROOM bytes for LUSTRE.
pub unsafe fn agg_into(id: usize, rec: *mut c_void, agg: *mut c_void, init: bool) {
    // SAFETY: the caller's.
    let Ok(mut r) = (unsafe { record_at(id, rec.cast()) }) else { return };
    if id == LUSTRE {
        if init {
            // SAFETY: the caller's: AGG_ROOM writable bytes at `agg`.
            unsafe { crate::records::place(&r, agg.cast(), AGG_ROOM) };
        }
        return;
    }
    // SAFETY: the caller's: a record of the module's fixed size at `agg`.
    let Ok(mut a) = (unsafe { record_at(id, agg.cast::<u8>()) }) else { return };
    let combined = if darshan_util::combine::combines(id) {
        let combined = with_variance_of(rec as usize, |v| darshan_util::combine::agg_records(&mut r, &mut a, init, v));
        // darshan-util zeroes the incoming tuples the aggregate has.
        // SAFETY: the caller's: `rec` is a writable record of the module.
        combined && unsafe { put_back(&r, rec) }
    } else {
        darshan_util::accum::agg_records(&r, &mut a, init)
    };
    if combined {
        // SAFETY: the caller's: a record of the module's size at `agg`.
        unsafe { put_back(&a, agg) };
    }
}

/// `rec` laid out over the record at `dst`; false if it cannot be.
///
/// # Safety
/// `dst` holds a writable record of `rec`'s module.
unsafe fn put_back(rec: &darshan_log::Record, dst: *mut c_void) -> bool {
    let Ok(laid) = lay_out(rec) else { return false };
    let n = record_size(rec.module).min(laid.bytes.len());
    // SAFETY: the caller's: `n` (the module's size) writable bytes.
    unsafe { std::ptr::copy_nonoverlapping(laid.bytes.as_ptr(), dst.cast::<u8>(), n) };
    true
}

/// The running variance darshan-util keeps in the buffer past the
/// incoming record at `buf` (darshan-merge.c passes every record through
/// one buffer): kept here by the buffer's address instead, for the last
/// few buffers, never written past the caller's record.
fn with_variance_of<T>(buf: usize, f: impl FnOnce(&mut Variance) -> T) -> T {
    const BUFFERS: usize = 16;
    static KEPT: Mutex<Vec<(usize, Variance)>> = Mutex::new(Vec::new());
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    let k = match kept.iter().position(|(b, _)| *b == buf) {
        Some(k) => k,
        None => {
            if kept.len() == BUFFERS {
                kept.remove(0);
            }
            kept.push((buf, Variance::default()));
            kept.len() - 1
        }
    };
    f(&mut kept[k].1)
}
