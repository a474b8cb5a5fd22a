//! Collectives: the blocking ones synchronised first when the site asked
//! for sync times, the non-blocking ones (each its own operation) never;
//! each counts bytes by C's rule for it.

use super::*;

apmpi!(MPI_Barrier, PMPI_Barrier, "MPI_BARRIER", sync = comm, (comm: H));
apmpi!(MPI_Bcast, PMPI_Bcast, "MPI_BCAST", sync = comm, (buf: Buf, count: c_int, dt: H, root: c_int, comm: H), bytes = rooted(root, dt, count));
apmpi!(MPI_Reduce, PMPI_Reduce, "MPI_REDUCE", sync = comm, (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, root: c_int, comm: H),
    bytes = rooted(root, dt, count));
apmpi!(MPI_Allreduce, PMPI_Allreduce, "MPI_ALLREDUCE", sync = comm, (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, comm: H),
    bytes = sized(dt, count));
apmpi!(MPI_Alltoall, PMPI_Alltoall, "MPI_ALLTOALL", sync = comm,
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, comm: H),
    bytes = sized(rtype, rcount).wrapping_mul(size_of(comm) as i64));
apmpi!(MPI_Alltoallv, PMPI_Alltoallv, "MPI_ALLTOALLV", sync = comm,
    (sbuf: CBuf, scounts: Ints, sdispls: Ints, stype: H, rbuf: Buf, rcounts: Ints, rdispls: Ints, rtype: H, comm: H),
    bytes = sized(rtype, summed(rcounts, peers(comm))));
apmpi!(MPI_Alltoallw, PMPI_Alltoallw, "MPI_ALLTOALLW", sync = comm,
    (sbuf: CBuf, scounts: Ints, sdispls: Ints, stypes: Types, rbuf: Buf, rcounts: Ints, rdispls: Ints, rtypes: Types, comm: H),
    bytes = per_type(rcounts, rtypes, comm));
apmpi!(MPI_Allgather, PMPI_Allgather, "MPI_ALLGATHER", sync = comm,
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, comm: H),
    bytes = if in_place(sbuf) { sized(rtype, rcount) } else { sized(stype, scount) });
apmpi!(MPI_Allgatherv, PMPI_Allgatherv, "MPI_ALLGATHERV", sync = comm,
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcounts: Ints, displs: Ints, rtype: H, comm: H),
    bytes = gathered_all_v(sbuf, (scount, stype), rcounts, rtype, comm));
apmpi!(MPI_Gather, PMPI_Gather, "MPI_GATHER", sync = comm,
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, root: c_int, comm: H),
    bytes = gathered(root, sbuf, (scount, stype), (rcount, rtype)));
apmpi!(MPI_Gatherv, PMPI_Gatherv, "MPI_GATHERV", sync = comm,
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcounts: Ints, displs: Ints, rtype: H, root: c_int, comm: H),
    bytes = gathered_v(root, sbuf, (scount, stype), rcounts, rtype));
apmpi!(MPI_Scatter, PMPI_Scatter, "MPI_SCATTER", sync = comm,
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, root: c_int, comm: H),
    bytes = scattered(root, rbuf, (scount, stype), (rcount, rtype)));
apmpi!(MPI_Scatterv, PMPI_Scatterv, "MPI_SCATTERV", sync = comm,
    (sbuf: CBuf, scounts: Ints, displs: Ints, stype: H, rbuf: Buf, rcount: c_int, rtype: H, root: c_int, comm: H),
    bytes = scattered_v(root, rbuf, scounts, stype, (rcount, rtype)));
apmpi!(MPI_Reduce_scatter, PMPI_Reduce_scatter, "MPI_REDUCE_SCATTER", sync = comm,
    (sbuf: CBuf, rbuf: Buf, rcounts: Ints, dt: H, op: H, comm: H),
    bytes = sized(dt, summed(rcounts, size_of(comm))));
apmpi!(MPI_Scan, PMPI_Scan, "MPI_SCAN", sync = comm, (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, comm: H),
    bytes = sized(dt, count));
apmpi!(MPI_Exscan, PMPI_Exscan, "MPI_EXSCAN", sync = comm, (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, comm: H),
    bytes = sized(dt, count));

apmpi!(MPI_Ibarrier, PMPI_Ibarrier, "MPI_IBARRIER", (comm: H, rq: Req));
apmpi!(MPI_Ibcast, PMPI_Ibcast, "MPI_IBCAST", (buf: Buf, count: c_int, dt: H, root: c_int, comm: H, rq: Req),
    bytes = rooted(root, dt, count));
apmpi!(MPI_Ireduce, PMPI_Ireduce, "MPI_IREDUCE", (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, root: c_int, comm: H, rq: Req),
    bytes = rooted(root, dt, count));
apmpi!(MPI_Iallreduce, PMPI_Iallreduce, "MPI_IALLREDUCE", (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, comm: H, rq: Req),
    bytes = sized(dt, count));
apmpi!(MPI_Ialltoall, PMPI_Ialltoall, "MPI_IALLTOALL",
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, comm: H, rq: Req),
    bytes = sized(rtype, rcount).wrapping_mul(size_of(comm) as i64));
apmpi!(MPI_Ialltoallv, PMPI_Ialltoallv, "MPI_IALLTOALLV",
    (sbuf: CBuf, scounts: Ints, sdispls: Ints, stype: H, rbuf: Buf, rcounts: Ints, rdispls: Ints, rtype: H, comm: H, rq: Req),
    bytes = sized(rtype, summed(rcounts, peers(comm))));
apmpi!(MPI_Ialltoallw, PMPI_Ialltoallw, "MPI_IALLTOALLW",
    (sbuf: CBuf, scounts: Ints, sdispls: Ints, stypes: Types, rbuf: Buf, rcounts: Ints, rdispls: Ints, rtypes: Types, comm: H, rq: Req),
    bytes = per_type(rcounts, rtypes, comm));
apmpi!(MPI_Iallgather, PMPI_Iallgather, "MPI_IALLGATHER",
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, comm: H, rq: Req),
    bytes = if in_place(sbuf) { sized(rtype, rcount) } else { sized(stype, scount) });
apmpi!(MPI_Iallgatherv, PMPI_Iallgatherv, "MPI_IALLGATHERV",
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcounts: Ints, displs: Ints, rtype: H, comm: H, rq: Req),
    bytes = gathered_all_v(sbuf, (scount, stype), rcounts, rtype, comm));
apmpi!(MPI_Igather, PMPI_Igather, "MPI_IGATHER",
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, root: c_int, comm: H, rq: Req),
    bytes = gathered(root, sbuf, (scount, stype), (rcount, rtype)));
apmpi!(MPI_Igatherv, PMPI_Igatherv, "MPI_IGATHERV",
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcounts: Ints, displs: Ints, rtype: H, root: c_int, comm: H, rq: Req),
    bytes = gathered_v(root, sbuf, (scount, stype), rcounts, rtype));
apmpi!(MPI_Iscatter, PMPI_Iscatter, "MPI_ISCATTER",
    (sbuf: CBuf, scount: c_int, stype: H, rbuf: Buf, rcount: c_int, rtype: H, root: c_int, comm: H, rq: Req),
    bytes = scattered(root, rbuf, (scount, stype), (rcount, rtype)));
apmpi!(MPI_Iscatterv, PMPI_Iscatterv, "MPI_ISCATTERV",
    (sbuf: CBuf, scounts: Ints, displs: Ints, stype: H, rbuf: Buf, rcount: c_int, rtype: H, root: c_int, comm: H, rq: Req),
    bytes = scattered_v(root, rbuf, scounts, stype, (rcount, rtype)));
apmpi!(MPI_Ireduce_scatter, PMPI_Ireduce_scatter, "MPI_IREDUCE_SCATTER",
    (sbuf: CBuf, rbuf: Buf, rcounts: Ints, dt: H, op: H, comm: H, rq: Req),
    bytes = sized(dt, summed(rcounts, size_of(comm))));
apmpi!(MPI_Iscan, PMPI_Iscan, "MPI_ISCAN", (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, comm: H, rq: Req),
    bytes = sized(dt, count));
apmpi!(MPI_Iexscan, PMPI_Iexscan, "MPI_IEXSCAN", (sbuf: CBuf, rbuf: Buf, count: c_int, dt: H, op: H, comm: H, rq: Req),
    bytes = sized(dt, count));
