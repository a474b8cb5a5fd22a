//! A file selection known without asking HDF5. After every H5Dread and
//! H5Dwrite, Darshan asks HDF5 four questions of the file dataspace (its
//! selection's type, point count, regularity and shape): 30-80 ns each
//! inside HDF5, most of what the wrapper costs. A selection made by
//! `H5Sselect_hyperslab(H5S_SELECT_SET)` is given entirely by the call's
//! arguments: a regular hyperslab of those stride, count and block, with
//! count × block points in each dimension (checked on random selections
//! against HDF5 1.10.8 and 2.0: ffi/tests/hdf5_selection.rs). So the SET
//! wrapper keeps that description in a slot of its thread, and the next
//! access through that dataspace on that thread takes it instead of
//! asking, once.
//!
//! Exact only if every change to a dataspace is seen. Every HDF5 function
//! that changes one (its selection, offset or extent, or closes it) is
//! wrapped and moves a process-wide epoch before the real call. A slot
//! holds while the epoch is the one it was stored at, except that this
//! thread's own change of *another* dataspace carries it forward (select
//! the file space, then the memory space, then write: still known). Any
//! other change (another thread's, a signal handler's, this dataspace's
//! own, an unknown one) leaves it stale, and the access asks HDF5 as
//! before. Combined selections (OR, AND, ...) are never kept: HDF5 may
//! describe their regular result differently from any one call.
//!
//! Each slot also keeps its dataspace's rank (how many values the call's
//! arrays hold), asked of HDF5 once and valid while no extent changed.

use std::sync::atomic::{compiler_fence, AtomicI64, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};

use darshan_hdf5::dataset::MAX_NDIMS;
use darshan_hdf5::Selection;

use crate::facts::H5_SELECTION_WORDS;
use crate::guard;
use crate::hdf5_lib::{Hdf5, Hid, Hsize, H5S_MAX_RANK};

/// Moved before every call that may change a dataspace's selection.
static SELECTIONS: AtomicU64 = AtomicU64::new(1);
/// Moved before every call that may change a dataspace's extent or free
/// its id (and so its selection too).
static EXTENTS: AtomicU64 = AtomicU64::new(1);

/// H5S_UNLIMITED: a count or block of an unlimited selection (virtual
/// datasets), whose point count HDF5 clips to the extent.
const UNLIMITED: Hsize = Hsize::MAX;

/// One dataspace's selection as the SET call gave it. Atomics only: a
/// signal handler on this thread may use the same slot mid-update, and
/// every interleaving must leave it either right or stale.
#[repr(C)]
struct Entry {
    /// The dataspace (`Hdf5::key`), 0 for none.
    key: AtomicI64,
    /// SELECTIONS when stored; 0 once taken.
    epoch: AtomicU64,
    /// EXTENTS when `rank` was asked.
    rank_epoch: AtomicU64,
    rank: AtomicI64,
    npoints: AtomicI64,
    lengths: [AtomicI64; MAX_NDIMS],
    strides: [AtomicI64; MAX_NDIMS],
}

#[repr(C)]
struct Slot {
    entries: [Entry; 2],
    /// The entry stored last (the other is replaced first).
    last: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Slot>() == H5_SELECTION_WORDS * 8);

extern "C" {
    /// This thread's H5_SELECTION_WORDS words (shim.c, initial-exec TLS).
    fn darshan_h5_selection() -> *const Slot;
}

fn slot() -> &'static Slot {
    // SAFETY: this thread's aligned words, zero (every entry empty) when
    // the thread starts, live while it runs; the reference is used only
    // within the calling wrapper. All fields are atomics, so a signal
    // handler's use of the same words is defined.
    unsafe { &*darshan_h5_selection() }
}

/// What a call may change in a dataspace.
#[derive(Clone, Copy, PartialEq)]
pub enum Change {
    Selection,
    /// Its extent, or its id (closed): its selection too.
    Extent,
}

/// Before a call that may change dataspace `key` (0: any of them): the
/// epochs moved, and this thread's other entries carried forward when
/// nothing else changed since they were stored. Returns the selection
/// epoch this call's change is at.
pub fn changing(key: i64, change: Change) -> u64 {
    let old = SELECTIONS.fetch_add(1, SeqCst);
    let old_extent = (change == Change::Extent).then(|| EXTENTS.fetch_add(1, SeqCst));
    // Inside the runtime (a signal handler that interrupted it): the
    // moves alone, which leave every entry stale.
    if key != 0 && guard::level() == guard::OUTSIDE {
        for e in &slot().entries {
            if e.key.load(Relaxed) == key || e.key.load(Relaxed) == 0 {
                continue;
            }
            // A load and a store, not a compare-exchange: only this thread
            // and its signal handlers write the entry, and a handler's
            // change in between moved the epoch, so this store is stale.
            if e.epoch.load(Relaxed) == old {
                e.epoch.store(old + 1, Relaxed);
            }
            match old_extent {
                Some(x) if e.rank_epoch.load(Relaxed) == x => e.rank_epoch.store(x + 1, Relaxed),
                _ => {}
            }
        }
    }
    old + 1
}

/// The arguments of a SET hyperslab call that succeeded at selection
/// epoch `epoch` (`stride` and `block` may be null: ones).
pub struct SetCall {
    pub space: Hid,
    pub epoch: u64,
    pub stride: *const Hsize,
    pub count: *const Hsize,
    pub block: *const Hsize,
}

/// Keeps the selection `call` made, for the next access through its
/// dataspace on this thread.
///
/// # Safety
/// `count`, and `stride`/`block` where not null, hold as many values as
/// the dataspace's rank (the arrays the real call just accepted).
pub unsafe fn remember(lib: &Hdf5, call: &SetCall) {
    let key = lib.key(call.space);
    let s = slot();
    let i = match s.entries.iter().position(|e| e.key.load(Relaxed) == key) {
        Some(i) => i,
        None => 1 - (s.last.load(Relaxed) as usize & 1),
    };
    let e = &s.entries[i];
    s.last.store(i as u64, Relaxed);
    let Some(rank) = rank(lib, e, key, call.space) else { return };
    // SAFETY: the caller's contract, `rank` values each.
    let Some(Selection::Regular { npoints, lengths, strides }) = (unsafe { derive(rank, call) }) else { return };
    e.npoints.store(npoints, Relaxed);
    for d in 0..MAX_NDIMS {
        e.lengths[d].store(lengths[d], Relaxed);
        e.strides[d].store(strides[d], Relaxed);
    }
    // The description is in place before the entry says it holds.
    compiler_fence(SeqCst);
    e.epoch.store(call.epoch, Relaxed);
    // Changed since the call (another thread, a signal handler): stale.
    if SELECTIONS.load(SeqCst) != call.epoch {
        e.epoch.store(0, Relaxed);
    }
}

/// The rank of dataspace `space` (entry `e`'s, or becoming it), asked of
/// HDF5 unless the entry knows it; None for a rank a hyperslab cannot
/// have.
fn rank(lib: &Hdf5, e: &Entry, key: i64, space: Hid) -> Option<usize> {
    let extents = EXTENTS.load(SeqCst);
    if e.key.load(Relaxed) != key || e.rank_epoch.load(Relaxed) != extents {
        e.epoch.store(0, Relaxed);
        compiler_fence(SeqCst);
        e.key.store(key, Relaxed);
        e.rank.store(lib.rank(space) as i64, Relaxed);
        e.rank_epoch.store(extents, Relaxed);
    }
    let r = e.rank.load(Relaxed);
    (1..=H5S_MAX_RANK as i64).contains(&r).then_some(r as usize)
}

/// The selection a SET call made, as H5Sget_select_npoints and
/// H5Sget_regular_hyperslab then describe it; None where HDF5 makes it
/// something else (a zero count or block selects none) or clips it
/// (unlimited).
///
/// # Safety
/// As [`remember`]'s, for `rank` values.
unsafe fn derive(rank: usize, call: &SetCall) -> Option<Selection> {
    // SAFETY: the caller's contract.
    let at = |p: *const Hsize, d: usize| if p.is_null() { 1 } else { unsafe { *p.add(d) } };
    let mut npoints: Hsize = 1;
    let [mut count, mut block, mut stride] = [[0 as Hsize; MAX_NDIMS]; 3];
    for d in 0..rank {
        let (c, b) = (at(call.count, d), at(call.block, d));
        if c == 0 || b == 0 || c == UNLIMITED || b == UNLIMITED {
            return None;
        }
        npoints = npoints.wrapping_mul(c.wrapping_mul(b));
        if d < MAX_NDIMS {
            (count[d], block[d], stride[d]) = (c, b, at(call.stride, d));
        }
    }
    Some(Selection::regular(npoints as i64, &stride, &count, &block))
}

/// The selection of dataspace `key` if a SET call on this thread made it
/// and nothing has changed it since; taken (the next access asks HDF5).
pub fn take(key: i64) -> Option<Selection> {
    let now = SELECTIONS.load(SeqCst);
    let e = slot().entries.iter().find(|e| e.key.load(Relaxed) == key)?;
    if e.epoch.load(Relaxed) != now {
        return None;
    }
    let sel = Selection::Regular {
        npoints: e.npoints.load(Relaxed),
        lengths: std::array::from_fn(|d| e.lengths[d].load(Relaxed)),
        strides: std::array::from_fn(|d| e.strides[d].load(Relaxed)),
    };
    // Taken, then checked again: a signal handler's change in between
    // (its SET of this dataspace rewrote the entry) is not used half-read.
    e.epoch.store(0, Relaxed);
    compiler_fence(SeqCst);
    (SELECTIONS.load(SeqCst) == now).then_some(sel)
}
