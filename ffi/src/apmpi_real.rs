//! The real MPI functions behind the APMPI wrappers (apmpi_wrap.rs),
//! each found at its first call (not at MPI_Init: a job without APMPI
//! never looks them up), and C's rules for the bytes a call moved.

use std::ffi::c_void;
use std::sync::atomic::AtomicPtr;

use darshan_apmpi::c_bytes;
use libc::c_int;

use crate::mpi_abi::{abi_ready, H, MPI_SUCCESS};
use crate::real::lookup;

pub type CBuf = *const c_void;
pub type Buf = *mut c_void;
pub type Status = *mut c_void;
/// MPI_Request* (never read here: its element is a pointer or an int).
pub type Req = *mut c_void;
pub type Ints = *const c_int;
pub type Aint = isize;
/// An array of MPI_Datatype (pointers or ints, by library).
pub type Types = *const c_void;

reals! {
    PMPI_Send: fn(CBuf, c_int, H, c_int, c_int, H) -> c_int;
    PMPI_Ssend: fn(CBuf, c_int, H, c_int, c_int, H) -> c_int;
    PMPI_Rsend: fn(CBuf, c_int, H, c_int, c_int, H) -> c_int;
    PMPI_Bsend: fn(CBuf, c_int, H, c_int, c_int, H) -> c_int;
    PMPI_Recv: fn(Buf, c_int, H, c_int, c_int, H, Status) -> c_int;
    PMPI_Sendrecv: fn(CBuf, c_int, H, c_int, c_int, Buf, c_int, H, c_int, c_int, H, Status) -> c_int;
    PMPI_Sendrecv_replace: fn(Buf, c_int, H, c_int, c_int, c_int, c_int, H, Status) -> c_int;
    PMPI_Isend: fn(CBuf, c_int, H, c_int, c_int, H, Req) -> c_int;
    PMPI_Issend: fn(CBuf, c_int, H, c_int, c_int, H, Req) -> c_int;
    PMPI_Irsend: fn(CBuf, c_int, H, c_int, c_int, H, Req) -> c_int;
    PMPI_Ibsend: fn(CBuf, c_int, H, c_int, c_int, H, Req) -> c_int;
    PMPI_Irecv: fn(Buf, c_int, H, c_int, c_int, H, Req) -> c_int;
    PMPI_Probe: fn(c_int, c_int, H, Status) -> c_int;
    PMPI_Iprobe: fn(c_int, c_int, H, *mut c_int, Status) -> c_int;
    PMPI_Test: fn(Req, *mut c_int, Status) -> c_int;
    PMPI_Testany: fn(c_int, Req, *mut c_int, *mut c_int, Status) -> c_int;
    PMPI_Testall: fn(c_int, Req, *mut c_int, Status) -> c_int;
    PMPI_Testsome: fn(c_int, Req, *mut c_int, *mut c_int, Status) -> c_int;
    PMPI_Wait: fn(Req, Status) -> c_int;
    PMPI_Waitany: fn(c_int, Req, *mut c_int, Status) -> c_int;
    PMPI_Waitall: fn(c_int, Req, Status) -> c_int;
    PMPI_Waitsome: fn(c_int, Req, *mut c_int, *mut c_int, Status) -> c_int;
    PMPI_Barrier: fn(H) -> c_int;
    PMPI_Ibarrier: fn(H, Req) -> c_int;
    PMPI_Bcast: fn(Buf, c_int, H, c_int, H) -> c_int;
    PMPI_Reduce: fn(CBuf, Buf, c_int, H, H, c_int, H) -> c_int;
    PMPI_Allreduce: fn(CBuf, Buf, c_int, H, H, H) -> c_int;
    PMPI_Alltoall: fn(CBuf, c_int, H, Buf, c_int, H, H) -> c_int;
    PMPI_Alltoallv: fn(CBuf, Ints, Ints, H, Buf, Ints, Ints, H, H) -> c_int;
    PMPI_Alltoallw: fn(CBuf, Ints, Ints, Types, Buf, Ints, Ints, Types, H) -> c_int;
    PMPI_Allgather: fn(CBuf, c_int, H, Buf, c_int, H, H) -> c_int;
    PMPI_Allgatherv: fn(CBuf, c_int, H, Buf, Ints, Ints, H, H) -> c_int;
    PMPI_Gather: fn(CBuf, c_int, H, Buf, c_int, H, c_int, H) -> c_int;
    PMPI_Gatherv: fn(CBuf, c_int, H, Buf, Ints, Ints, H, c_int, H) -> c_int;
    PMPI_Scatter: fn(CBuf, c_int, H, Buf, c_int, H, c_int, H) -> c_int;
    PMPI_Scatterv: fn(CBuf, Ints, Ints, H, Buf, c_int, H, c_int, H) -> c_int;
    PMPI_Reduce_scatter: fn(CBuf, Buf, Ints, H, H, H) -> c_int;
    PMPI_Scan: fn(CBuf, Buf, c_int, H, H, H) -> c_int;
    PMPI_Exscan: fn(CBuf, Buf, c_int, H, H, H) -> c_int;
    PMPI_Ibcast: fn(Buf, c_int, H, c_int, H, Req) -> c_int;
    PMPI_Ireduce: fn(CBuf, Buf, c_int, H, H, c_int, H, Req) -> c_int;
    PMPI_Iallreduce: fn(CBuf, Buf, c_int, H, H, H, Req) -> c_int;
    PMPI_Ialltoall: fn(CBuf, c_int, H, Buf, c_int, H, H, Req) -> c_int;
    PMPI_Ialltoallv: fn(CBuf, Ints, Ints, H, Buf, Ints, Ints, H, H, Req) -> c_int;
    PMPI_Ialltoallw: fn(CBuf, Ints, Ints, Types, Buf, Ints, Ints, Types, H, Req) -> c_int;
    PMPI_Iallgather: fn(CBuf, c_int, H, Buf, c_int, H, H, Req) -> c_int;
    PMPI_Iallgatherv: fn(CBuf, c_int, H, Buf, Ints, Ints, H, H, Req) -> c_int;
    PMPI_Igather: fn(CBuf, c_int, H, Buf, c_int, H, c_int, H, Req) -> c_int;
    PMPI_Igatherv: fn(CBuf, c_int, H, Buf, Ints, Ints, H, c_int, H, Req) -> c_int;
    PMPI_Iscatter: fn(CBuf, c_int, H, Buf, c_int, H, c_int, H, Req) -> c_int;
    PMPI_Iscatterv: fn(CBuf, Ints, Ints, H, Buf, c_int, H, c_int, H, Req) -> c_int;
    PMPI_Ireduce_scatter: fn(CBuf, Buf, Ints, H, H, H, Req) -> c_int;
    PMPI_Iscan: fn(CBuf, Buf, c_int, H, H, H, Req) -> c_int;
    PMPI_Iexscan: fn(CBuf, Buf, c_int, H, H, H, Req) -> c_int;
    PMPI_Put: fn(CBuf, c_int, H, c_int, Aint, c_int, H, H) -> c_int;
    PMPI_Get: fn(Buf, c_int, H, c_int, Aint, c_int, H, H) -> c_int;
    PMPI_Accumulate: fn(CBuf, c_int, H, c_int, Aint, c_int, H, H, H) -> c_int;
    PMPI_Get_accumulate: fn(CBuf, c_int, H, Buf, c_int, H, c_int, Aint, c_int, H, H, H) -> c_int;
    PMPI_Fetch_and_op: fn(CBuf, Buf, H, c_int, Aint, H, H) -> c_int;
    PMPI_Compare_and_swap: fn(CBuf, CBuf, Buf, H, c_int, Aint, H) -> c_int;
    PMPI_Win_fence: fn(c_int, H) -> c_int;
    PMPI_Win_start: fn(H, c_int, H) -> c_int;
    PMPI_Win_complete: fn(H) -> c_int;
    PMPI_Win_post: fn(H, c_int, H) -> c_int;
    PMPI_Win_wait: fn(H) -> c_int;
    PMPI_Win_test: fn(H, *mut c_int) -> c_int;
    PMPI_Win_lock: fn(c_int, c_int, c_int, H) -> c_int;
    PMPI_Win_unlock: fn(c_int, H) -> c_int;
    PMPI_Win_unlock_all: fn(H) -> c_int;
    PMPI_Win_flush: fn(c_int, H) -> c_int;
    PMPI_Win_flush_all: fn(H) -> c_int;
    PMPI_Win_flush_local: fn(c_int, H) -> c_int;
    PMPI_Win_flush_local_all: fn(H) -> c_int;
    PMPI_Win_sync: fn(H) -> c_int;
    PMPI_Get_count: fn(Status, H, *mut c_int) -> c_int;
    PMPI_Comm_test_inter: fn(H, *mut c_int) -> c_int;
    PMPI_Comm_remote_size: fn(H, *mut c_int) -> c_int;
    PMPI_Get_processor_name: fn(*mut libc::c_char, *mut c_int) -> c_int;
}

/// MPI_UNDEFINED (the same in Open MPI and MPICH).
const MPI_UNDEFINED: c_int = -32766;

/// C's BYTECOUNT: `count` elements of `dt`, in int arithmetic; 0 for a
/// count that is not positive or MPI_DATATYPE_NULL.
pub fn sized(dt: H, count: c_int) -> i64 {
    let Some(abi) = abi_ready() else { return 0 };
    if count <= 0 || abi.is_datatype_null(dt) {
        return 0;
    }
    crate::mpi_abi::type_size(dt).map_or(0, |size| c_bytes(count, size))
}

/// The elements a receive got, as C's wrappers take them: MPI_Get_count
/// of the status when there is one (`count` when it is MPI_UNDEFINED),
/// else the count asked for.
///
/// # Safety
/// `status` is MPI_STATUS_IGNORE or the status a real call just filled.
pub unsafe fn received(status: Status, dt: H, count: c_int) -> c_int {
    let ignored = abi_ready().is_none_or(|a| status as usize == a.status_ignore);
    let Some(f) = PMPI_Get_count().filter(|_| !ignored) else { return count };
    let mut n: c_int = count;
    // SAFETY: `status` is the status the real call just filled; `n` is
    // writable.
    unsafe { f(status, dt, &mut n) };
    if n == MPI_UNDEFINED {
        count
    } else {
        n
    }
}

/// Ranks in `comm`'s group, and this rank there.
pub fn size_of(comm: H) -> usize {
    usize::try_from(crate::mpi_abi::comm_size(comm)).unwrap_or(0)
}

pub fn rank_in(comm: H) -> Option<usize> {
    let f = crate::mpi_abi::PMPI_Comm_rank()?;
    let mut r: c_int = -1;
    // SAFETY: `r` is writable; `comm` was just accepted by the real call.
    unsafe { f(comm, &mut r) };
    usize::try_from(r).ok()
}

/// `a[k]` of a program's array the real call just read (None for a null
/// array).
///
/// # Safety
/// `a` is null or an array of at least `k + 1` elements.
pub unsafe fn at<T: Copy>(a: *const T, k: usize) -> Option<T> {
    // SAFETY: by the contract, k is within the array.
    (!a.is_null()).then(|| unsafe { *a.add(k) })
}

/// The ranks an all-to-all's arrays have an element for: `comm`'s group,
/// or on an intercommunicator the remote group. C's wrappers take the
/// local group's size there too and read past a shorter array (a fault
/// that could stop the program); ours reads the array MPI read.
pub fn peers(comm: H) -> usize {
    let remote = || -> Option<usize> {
        let (test, size) = (PMPI_Comm_test_inter()?, PMPI_Comm_remote_size()?);
        let (mut inter, mut n): (c_int, c_int) = (0, 0);
        // SAFETY: the communicator the real call just accepted; both
        // results writable.
        let ok = unsafe { test(comm, &mut inter) == MPI_SUCCESS && inter != 0 && size(comm, &mut n) == MPI_SUCCESS };
        ok.then(|| usize::try_from(n).unwrap_or(0))
    };
    remote().unwrap_or_else(|| size_of(comm))
}

/// The sum of `counts`' first `n` elements (C adds them as ints).
///
/// # Safety
/// `counts` is null or has at least `n` elements.
pub unsafe fn summed(counts: Ints, n: usize) -> c_int {
    // SAFETY: i < n, as the contract allows.
    (0..n).filter_map(|i| unsafe { at(counts, i) }).fold(0, c_int::wrapping_add)
}

/// Alltoallw's bytes: each peer's count of its own type.
///
/// # Safety
/// `counts` and `types` (an array of MPI_Datatype: pointers in Open MPI,
/// ints in the MPICH family) are null or have an element for each of
/// `comm`'s [`peers`].
pub unsafe fn per_type(counts: Ints, types: *const c_void, comm: H) -> i64 {
    let ints = abi_ready().is_some_and(|a| a.handle_mask == 0xffff_ffff);
    // SAFETY: i ranges over the peers, as the contract allows; each
    // element read at the handle's size in this library.
    let one = |i| unsafe {
        let t = if ints { at(types.cast::<u32>(), i).map(|t| t as H) } else { at(types.cast::<H>(), i) };
        t.zip(at(counts, i))
    };
    (0..peers(comm)).map(|i| one(i).map_or(0, |(t, n)| sized(t, n))).sum()
}

/// This rank's processor name (MPI_Get_processor_name), empty if MPI
/// cannot say.
pub fn processor_name() -> Vec<u8> {
    let Some(f) = PMPI_Get_processor_name() else { return Vec::new() };
    // MPI_MAX_PROCESSOR_NAME: 256 in Open MPI, 128 in MPICH.
    let mut buf = [0u8; 257];
    let mut len: c_int = 0;
    // SAFETY: `buf` holds the longest name either library writes, with
    // its NUL; `len` is writable.
    if unsafe { f(buf.as_mut_ptr().cast(), &mut len) } != MPI_SUCCESS {
        return Vec::new();
    }
    buf[..usize::try_from(len).unwrap_or(0).min(256)].to_vec()
}
