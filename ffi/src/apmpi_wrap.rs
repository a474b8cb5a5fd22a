//! AutoPerf's MPI profile (the APMPI module): the 74 MPI operations
//! autoperf's darshan-apmpi.c wraps, each exported under its MPI_ and
//! PMPI_ name as C's aliases do. Off unless the module is on
//! (`DARSHAN_MOD_ENABLE=APMPI`, or installed so): then a call costs one
//! load and the real call. On, a call that returned MPI_SUCCESS is
//! timed and counted with the bytes C's wrapper gives it (its rules,
//! int arithmetic and all, in [`crate::apmpi_real`]); a blocking
//! collective is first synchronised with a barrier on its communicator
//! when the site asked for sync times (APMPI_COLL_SYNC).

use std::sync::atomic::{AtomicBool, Ordering};

use darshan_apmpi::{OpId, APMPI};
use libc::c_int;

use crate::apmpi_real::{self as r, at, peers, per_type, rank_in, received, size_of, sized, summed};
use crate::apmpi_real::{Aint, Buf, CBuf, Ints, Req, Status, Types};
use crate::mpi_abi::{abi_ready, mpi_err_other, H, MPI_SUCCESS};
use crate::{clock, guard};

/// The module is on in this process (set once MPI_Init set it up).
static ON: AtomicBool = AtomicBool::new(false);

/// After the runtime started on this rank: the module's processor name
/// and sync setting, and its wrappers switched on if it is.
pub fn mpi_started(enabled: bool, sync: bool) {
    if enabled {
        APMPI.start(&r::processor_name(), sync);
    }
    ON.store(enabled, Ordering::Release);
}

/// The wrappers' one path: pass through unless recording; else time the
/// real call (after a barrier, for a synchronised collective) and count
/// it if it succeeded.
#[inline(always)]
fn counted(
    op: OpId,
    sync: Option<H>,
    call: impl FnOnce() -> Option<c_int>,
    bytes: impl FnOnce() -> Option<i64>,
) -> c_int {
    if !ON.load(Ordering::Relaxed) || !guard::recording() {
        return call().unwrap_or_else(mpi_err_other);
    }
    let waited = sync.filter(|_| APMPI.sync_collectives()).map(barrier);
    let t1 = clock::now();
    let Some(ret) = call() else { return mpi_err_other() };
    let t2 = clock::now();
    if ret == MPI_SUCCESS {
        // errno kept: the first call makes the module's records, which
        // may extend the crash-safe file.
        guard::record(|| APMPI.on_call(op, bytes(), t2 - t1, waited));
    }
    ret
}

/// C's TIME_SYNC: a barrier on the collective's communicator first; the
/// ticks it took.
fn barrier(comm: H) -> i64 {
    let t0 = clock::now();
    if let Some(f) = r::PMPI_Barrier() {
        // SAFETY: the communicator the program's collective was given.
        unsafe { f(comm) };
    }
    clock::now() - t0
}

/// Whether `p` is MPI_IN_PLACE.
fn in_place<T>(p: *const T) -> bool {
    abi_ready().is_some_and(|a| p as usize == a.in_place)
}

/// C's rule for a rooted count: none when the root is MPI_PROC_NULL.
fn rooted(root: c_int, dt: H, count: c_int) -> i64 {
    if abi_ready().is_some_and(|a| root == a.proc_null) {
        0
    } else {
        sized(dt, count)
    }
}

/// Gather's and Igather's: the root of an intercommunicator counts what
/// it receives, MPI_IN_PLACE the receive count, others what they send.
fn gathered(root: c_int, sbuf: CBuf, (scount, stype): (c_int, H), (rcount, rtype): (c_int, H)) -> i64 {
    match abi_ready() {
        Some(a) if root == a.proc_null => 0,
        Some(a) if root == a.root || in_place(sbuf) => sized(rtype, rcount),
        _ => sized(stype, scount),
    }
}

/// C's bytes of `counts[root]` elements of `dt`.
///
/// # Safety
/// `counts` has an element for `root`.
unsafe fn roots_count(counts: Ints, root: c_int, dt: H) -> i64 {
    // SAFETY: by the contract.
    let n = usize::try_from(root).ok().and_then(|k| unsafe { at(counts, k) });
    n.map_or(0, |n| sized(dt, n))
}

/// Gatherv's: nothing at an intercommunicator's root, the root's own
/// receive count in place.
///
/// # Safety
/// `rcounts` as the real call read it.
unsafe fn gathered_v(root: c_int, sbuf: CBuf, (scount, stype): (c_int, H), rcounts: Ints, rtype: H) -> i64 {
    match abi_ready() {
        Some(a) if root == a.proc_null || root == a.root => 0,
        // SAFETY: at the root, rcounts has an element per rank.
        _ if in_place(sbuf) => unsafe { roots_count(rcounts, root, rtype) },
        _ => sized(stype, scount),
    }
}

/// Scatter's: as Gather's with the receive side's MPI_IN_PLACE.
fn scattered(root: c_int, rbuf: Buf, (scount, stype): (c_int, H), (rcount, rtype): (c_int, H)) -> i64 {
    match abi_ready() {
        Some(a) if root == a.proc_null => 0,
        Some(a) if root == a.root => sized(rtype, rcount),
        _ if in_place(rbuf) => sized(stype, scount),
        _ => sized(rtype, rcount),
    }
}

/// Scatterv's.
///
/// # Safety
/// `scounts` as the real call read it.
unsafe fn scattered_v(root: c_int, rbuf: Buf, scounts: Ints, stype: H, (rcount, rtype): (c_int, H)) -> i64 {
    match abi_ready() {
        Some(a) if root == a.proc_null || root == a.root => 0,
        // SAFETY: at the root, scounts has an element per rank.
        _ if in_place(rbuf) => unsafe { roots_count(scounts, root, stype) },
        _ => sized(rtype, rcount),
    }
}

/// Allgatherv's: the send count, or in place this rank's receive count.
///
/// # Safety
/// `rcounts` as the real call read it.
unsafe fn gathered_all_v(sbuf: CBuf, (scount, stype): (c_int, H), rcounts: Ints, rtype: H, comm: H) -> i64 {
    if !in_place(sbuf) {
        return sized(stype, scount);
    }
    // SAFETY: rcounts has an element per rank of the group.
    rank_in(comm).and_then(|k| unsafe { at(rcounts, k) }).map_or(0, |n| sized(rtype, n))
}

/// Exports `$name` and `$pname`; the body counts operation `$op`, after
/// a barrier on `$comm` for a synchronised collective, with `$bytes`.
macro_rules! apmpi {
    (@sync $comm:ident) => { Some($comm) };
    (@sync) => { None };
    (@bytes $bytes:expr) => {{
        // SAFETY: the arrays and statuses the real call just read or
        // filled, read where C's wrapper reads them.
        #[allow(unused_unsafe)]
        let bytes = unsafe { $bytes };
        Some(bytes)
    }};
    (@bytes) => { None };
    ($name:ident, $pname:ident, $op:literal $(, sync = $comm:ident)?, ($($a:ident : $t:ty),*) $(, bytes = $bytes:expr)?) => {
        mpi_pair!($name, $pname, ($($a: $t),*), {
            const OP: OpId = OpId::named($op);
            counted(
                OP,
                apmpi!(@sync $($comm)?),
                // SAFETY: the program's arguments, passed on unchanged.
                || pmpi_or_plain!(r::$pname(), $name).map(|f| unsafe { f($($a),*) }),
                || apmpi!(@bytes $($bytes)?),
            )
        });
    };
}

mod collectives;
mod one_sided;
mod p2p;
