//! One-sided: Put counts the origin's data, Get and the accumulates the
//! target's; atomics and synchronisation only their calls and time.

use super::*;

apmpi!(MPI_Put, PMPI_Put, "MPI_PUT",
    (oaddr: CBuf, ocount: c_int, otype: H, target: c_int, disp: Aint, tcount: c_int, ttype: H, win: H),
    bytes = sized(otype, ocount));
apmpi!(MPI_Get, PMPI_Get, "MPI_GET",
    (oaddr: Buf, ocount: c_int, otype: H, target: c_int, disp: Aint, tcount: c_int, ttype: H, win: H),
    bytes = sized(ttype, tcount));
apmpi!(MPI_Accumulate, PMPI_Accumulate, "MPI_ACCUMULATE",
    (oaddr: CBuf, ocount: c_int, otype: H, target: c_int, disp: Aint, tcount: c_int, ttype: H, op: H, win: H),
    bytes = sized(ttype, tcount));
apmpi!(MPI_Get_accumulate, PMPI_Get_accumulate, "MPI_GET_ACCUMULATE",
    (oaddr: CBuf, ocount: c_int, otype: H, raddr: Buf, rcount: c_int, rtype: H, target: c_int, disp: Aint, tcount: c_int, ttype: H, op: H, win: H),
    bytes = sized(ttype, tcount));
apmpi!(MPI_Fetch_and_op, PMPI_Fetch_and_op, "MPI_FETCH_AND_OP",
    (oaddr: CBuf, raddr: Buf, dt: H, target: c_int, disp: Aint, op: H, win: H));
apmpi!(MPI_Compare_and_swap, PMPI_Compare_and_swap, "MPI_COMPARE_AND_SWAP",
    (oaddr: CBuf, caddr: CBuf, raddr: Buf, dt: H, target: c_int, disp: Aint, win: H));
apmpi!(MPI_Win_fence, PMPI_Win_fence, "MPI_WIN_FENCE", (assert: c_int, win: H));
apmpi!(MPI_Win_start, PMPI_Win_start, "MPI_WIN_START", (group: H, assert: c_int, win: H));
apmpi!(MPI_Win_complete, PMPI_Win_complete, "MPI_WIN_COMPLETE", (win: H));
apmpi!(MPI_Win_post, PMPI_Win_post, "MPI_WIN_POST", (group: H, assert: c_int, win: H));
apmpi!(MPI_Win_wait, PMPI_Win_wait, "MPI_WIN_WAIT", (win: H));
apmpi!(MPI_Win_test, PMPI_Win_test, "MPI_WIN_TEST", (win: H, flag: *mut c_int));
apmpi!(MPI_Win_lock, PMPI_Win_lock, "MPI_WIN_LOCK", (kind: c_int, rank: c_int, assert: c_int, win: H));
apmpi!(MPI_Win_unlock, PMPI_Win_unlock, "MPI_WIN_UNLOCK", (rank: c_int, win: H));
apmpi!(MPI_Win_unlock_all, PMPI_Win_unlock_all, "MPI_WIN_UNLOCK_ALL", (win: H));
apmpi!(MPI_Win_flush, PMPI_Win_flush, "MPI_WIN_FLUSH", (rank: c_int, win: H));
apmpi!(MPI_Win_flush_all, PMPI_Win_flush_all, "MPI_WIN_FLUSH_ALL", (win: H));
apmpi!(MPI_Win_flush_local, PMPI_Win_flush_local, "MPI_WIN_FLUSH_LOCAL", (rank: c_int, win: H));
apmpi!(MPI_Win_flush_local_all, PMPI_Win_flush_local_all, "MPI_WIN_FLUSH_LOCAL_ALL", (win: H));
apmpi!(MPI_Win_sync, PMPI_Win_sync, "MPI_WIN_SYNC", (win: H));
