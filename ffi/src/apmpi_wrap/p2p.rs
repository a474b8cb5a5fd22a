//! Point-to-point: sends count what they send, receives what the status
//! says arrived (the count asked for without one), Sendrecv both; probes,
//! tests and waits only their calls and time.

use super::*;

apmpi!(MPI_Send, PMPI_Send, "MPI_SEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H), bytes = sized(dt, count));
apmpi!(MPI_Ssend, PMPI_Ssend, "MPI_SSEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H), bytes = sized(dt, count));
apmpi!(MPI_Rsend, PMPI_Rsend, "MPI_RSEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H), bytes = sized(dt, count));
apmpi!(MPI_Bsend, PMPI_Bsend, "MPI_BSEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H), bytes = sized(dt, count));
apmpi!(MPI_Isend, PMPI_Isend, "MPI_ISEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H, rq: Req), bytes = sized(dt, count));
apmpi!(MPI_Issend, PMPI_Issend, "MPI_ISSEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H, rq: Req), bytes = sized(dt, count));
apmpi!(MPI_Irsend, PMPI_Irsend, "MPI_IRSEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H, rq: Req), bytes = sized(dt, count));
apmpi!(MPI_Ibsend, PMPI_Ibsend, "MPI_IBSEND", (buf: CBuf, count: c_int, dt: H, dest: c_int, tag: c_int, comm: H, rq: Req), bytes = sized(dt, count));
apmpi!(MPI_Irecv, PMPI_Irecv, "MPI_IRECV", (buf: Buf, count: c_int, dt: H, src: c_int, tag: c_int, comm: H, rq: Req), bytes = sized(dt, count));
apmpi!(MPI_Recv, PMPI_Recv, "MPI_RECV", (buf: Buf, count: c_int, dt: H, src: c_int, tag: c_int, comm: H, st: Status),
    bytes = sized(dt, received(st, dt, count)));
apmpi!(MPI_Sendrecv, PMPI_Sendrecv, "MPI_SENDRECV",
    (sbuf: CBuf, scount: c_int, stype: H, dest: c_int, stag: c_int, rbuf: Buf, rcount: c_int, rtype: H, src: c_int, rtag: c_int, comm: H, st: Status),
    bytes = sized(stype, scount) + sized(rtype, received(st, rtype, rcount)));
apmpi!(MPI_Sendrecv_replace, PMPI_Sendrecv_replace, "MPI_SENDRECV_REPLACE",
    (buf: Buf, count: c_int, dt: H, dest: c_int, stag: c_int, src: c_int, rtag: c_int, comm: H, st: Status),
    bytes = sized(dt, count.wrapping_add(received(st, dt, count))));

apmpi!(MPI_Probe, PMPI_Probe, "MPI_PROBE", (src: c_int, tag: c_int, comm: H, st: Status));
apmpi!(MPI_Iprobe, PMPI_Iprobe, "MPI_IPROBE", (src: c_int, tag: c_int, comm: H, flag: *mut c_int, st: Status));
apmpi!(MPI_Test, PMPI_Test, "MPI_TEST", (rq: Req, flag: *mut c_int, st: Status));
apmpi!(MPI_Testany, PMPI_Testany, "MPI_TESTANY", (n: c_int, rqs: Req, idx: *mut c_int, flag: *mut c_int, st: Status));
apmpi!(MPI_Testall, PMPI_Testall, "MPI_TESTALL", (n: c_int, rqs: Req, flag: *mut c_int, sts: Status));
apmpi!(MPI_Testsome, PMPI_Testsome, "MPI_TESTSOME", (n: c_int, rqs: Req, out: *mut c_int, idx: *mut c_int, sts: Status));
apmpi!(MPI_Wait, PMPI_Wait, "MPI_WAIT", (rq: Req, st: Status));
apmpi!(MPI_Waitany, PMPI_Waitany, "MPI_WAITANY", (n: c_int, rqs: Req, idx: *mut c_int, st: Status));
apmpi!(MPI_Waitall, PMPI_Waitall, "MPI_WAITALL", (n: c_int, rqs: Req, sts: Status));
apmpi!(MPI_Waitsome, PMPI_Waitsome, "MPI_WAITSOME", (n: c_int, rqs: Req, out: *mut c_int, idx: *mut c_int, sts: Status));
