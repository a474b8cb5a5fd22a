//! MPI_Init, MPI_Init_thread, MPI_Finalize and the MPI-IO calls, each
//! exported under its MPI_ and its PMPI_ name (a program or a Fortran
//! binding may call either; rule 16); the real function is always the
//! next `PMPI_` definition, found by dlsym.

use crate::guard::Life;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};

use darshan_core::collective::{all_ok, Comm, Op};
use darshan_core::runtime;
use darshan_core::Platform;
use darshan_mpiio::{Access, MPIIO};
use libc::{c_char, c_int};

use crate::host::say;
use crate::init;
use crate::mpi_abi::{self as m, mpi_err_other, H, MPI_SUCCESS};
use crate::mpi_comm::MpiComm;
use crate::mpi_state::{launcher_rank, MPI_ACTIVE};
use crate::platform::LIBC;
use crate::{clock, guard, paths};
use darshan_core::protocols::{Placement, Started};

/// DXT_MPIIO records each access's byte offset: only with the MPICH
/// family, as Darshan (its Open MPI builds skip MPI_File_get_byte_offset
/// for an Open MPI bug and write -1).
static DXT_OFFSETS: AtomicBool = AtomicBool::new(false);

/// After PMPI_Init(_thread) succeeded: set the runtime up on this rank.
fn mpi_started() {
    guard::set_inside(true);
    if crate::own_stack::on_own_stack(|| std::panic::catch_unwind(mpi_start)).is_err() {
        guard::set_life(Life::Disabled);
    }
    guard::set_inside(false);
}

fn mpi_start() {
    let t_init = std::time::Instant::now();
    let Some(abi) = m::abi() else {
        if guard::life() == Life::Uninit && launcher_rank().unwrap_or(0) == 0 {
            say("unsupported MPI library (Open MPI and the MPICH family are supported); this job is not instrumented");
        }
        return;
    };
    let Some(comm) = MpiComm::new(abi) else { return };
    let rank = comm.rank();
    // Every rank's crash-safe file carries rank 0's random part and job
    // id (rank 0's pid when no job id variable is set).
    let mut job = [0u8; 16];
    if rank == 0 {
        job[..8].copy_from_slice(&crate::host_platform::new_logmod().to_le_bytes());
        job[8..].copy_from_slice(&LIBC.pid().to_le_bytes());
    }
    comm.bcast(&mut job);
    let job = (
        u64::from_le_bytes(job[..8].try_into().unwrap_or([0; 8])),
        i64::from_le_bytes(job[8..].try_into().unwrap_or([0; 8])),
    );
    let at = Placement { rank, nprocs: comm.size(), mpi: true, logmod: job.0, job_pid: job.1, began: t_init };
    let mine = match guard::life() {
        Life::Uninit => match init::take_pending_config() {
            Some(cfg) => init::start(cfg, t_init, at),
            None => Started::No,
        },
        Life::Running => {
            // Recording since the constructor (DARSHAN_ENABLE_NONMPI).
            runtime::core().join_mpi(crate::modules::MODULES, at);
            Started::Yes
        }
        _ => Started::No,
    };
    // DARSHAN_DISABLE and app exclusions are the same on every rank; a
    // rank that could not start (memory) must not leave the others
    // waiting in the shutdown's collectives: then no rank writes a log.
    let configured = runtime::core().config().is_some() && mine != Started::No;
    if all_ok(&comm, configured) {
        let ledger = &runtime::core().ledger;
        let dxt = ledger.enabled(darshan_log::modules::DXT_MPIIO);
        DXT_OFFSETS.store(dxt && abi.name != "Open MPI", Ordering::Relaxed);
        let apmpi_sync = runtime::core().config().is_some_and(|c| c.apmpi_coll_sync);
        crate::apmpi_wrap::mpi_started(ledger.enabled(darshan_log::modules::APMPI), apmpi_sync);
        MPI_ACTIVE.store(true, Ordering::Release);
        crate::mpi_state::watch_exit_status();
        if mine == Started::Yes {
            runtime::make_crash_safe_file(&[darshan_log::modules::POSIX, darshan_log::modules::MPIIO]);
        }
        runtime::core().cost.add_startup(t_init.elapsed());
        say_init_timing(&comm, t_init);
    } else if configured {
        guard::set_life(Life::Disabled);
        if rank == 0 {
            say("the runtime could not start on every rank; this job is not instrumented");
        }
    }
}

/// DARSHAN_INTERNAL_TIMING's start-up block: the slowest rank's time, as
/// C Darshan prints it (its reduction too waits for every rank: the
/// setting must be every rank's).
fn say_init_timing(comm: &MpiComm, t_init: std::time::Instant) {
    if runtime::core().config().is_some_and(|c| c.internal_timing) {
        let mut secs = [t_init.elapsed().as_secs_f64()];
        comm.allreduce_f64(&mut secs, Op::Max);
        if comm.rank() == 0 {
            LIBC.stderr(darshan_core::finish::timing::init_lines(comm.size(), secs[0]).as_bytes());
        }
    }
}

/// In MPI_Finalize, before PMPI_Finalize: every rank writes the log.
fn mpi_shutdown() {
    if !MPI_ACTIVE.swap(false, Ordering::AcqRel) {
        return;
    }
    let Some(comm) = m::abi_ready().and_then(MpiComm::new) else { return };
    crate::own_stack::on_own_stack(|| {
        crate::uring_wrap::rings_at_exit();
        // Excluded ranks are already ShuttingDown; recording ranks stop now.
        guard::transition(Life::Running, Life::ShuttingDown);
        guard::set_inside(true);
        runtime::core().finish_mpi(&comm, clock::end());
        guard::set_life(Life::Finalized);
        guard::set_inside(false);
    });
}

mpi_pair!(MPI_Init, PMPI_Init, (argc: *mut c_int, argv: *mut *mut *mut c_char), {
    let Some(real) = pmpi_or_plain!(m::PMPI_Init(), MPI_Init) else { return mpi_err_other() };
    // SAFETY: the program's own arguments, passed on unchanged.
    let ret = unsafe { real(argc, argv) };
    if ret == MPI_SUCCESS {
        // SAFETY: MPI_Init's arguments, as the program passed them.
        unsafe { init::save_mpi_argv(argc, argv as *const *const *const c_char) };
        mpi_started();
    }
    ret
});

mpi_pair!(
    MPI_Init_thread,
    PMPI_Init_thread,
    (argc: *mut c_int, argv: *mut *mut *mut c_char, required: c_int, provided: *mut c_int),
    {
        let Some(real) = pmpi_or_plain!(m::PMPI_Init_thread(), MPI_Init_thread) else { return mpi_err_other() };
        // SAFETY: the program's own arguments, passed on unchanged.
        let ret = unsafe { real(argc, argv, required, provided) };
        if ret == MPI_SUCCESS {
            // SAFETY: MPI_Init_thread's arguments, as the program passed them.
            unsafe { init::save_mpi_argv(argc, argv as *const *const *const c_char) };
            mpi_started();
        }
        ret
    }
);

mpi_pair!(MPI_Finalize, PMPI_Finalize, (), {
    mpi_shutdown();
    let Some(real) = pmpi_or_plain!(m::PMPI_Finalize(), MPI_Finalize) else { return mpi_err_other() };
    // SAFETY: no arguments.
    unsafe { real() }
});

/// Time the real call and, if it succeeded and this thread records, hand
/// the elapsed ticks to `rec`.
#[inline(always)]
fn timed(call: impl FnOnce() -> Option<c_int>, rec: impl FnOnce(i64, i64)) -> c_int {
    let on = guard::recording();
    let tm1 = if on { clock::now() } else { 0 };
    let Some(ret) = call() else { return mpi_err_other() };
    if on && ret == MPI_SUCCESS {
        let tm2 = clock::now();
        guard::record(|| rec(tm1, tm2));
    }
    ret
}

/// Where an access starts, for DXT: an explicit offset, or the
/// individual or shared file pointer as it was before the call.
enum Pos {
    At(i64),
    Individual,
    Shared,
}

/// Before the real call: the access's offset in etypes when DXT records
/// offsets (MPICH family), else None.
#[inline]
fn before(fh: H, pos: Pos) -> Option<i64> {
    if !DXT_OFFSETS.load(Ordering::Relaxed) || !guard::recording() {
        return None;
    }
    let f = match pos {
        Pos::At(off) => return Some(off),
        Pos::Individual => m::PMPI_File_get_position()?,
        Pos::Shared => m::PMPI_File_get_position_shared()?,
    };
    let mut off = 0i64;
    // SAFETY: `fh` is the program's file handle, passed on as it came;
    // `off` is writable.
    (unsafe { f(fh, &mut off) } == MPI_SUCCESS).then_some(off)
}

/// The byte offset of etype offset `at` in `fh`'s view (-1 if unknown).
fn byte_offset(fh: H, at: Option<i64>) -> i64 {
    let Some((at, f)) = at.zip(m::PMPI_File_get_byte_offset()) else { return -1 };
    let mut disp = -1i64;
    // SAFETY: as in `before`; `disp` is writable.
    if unsafe { f(fh, at, &mut disp) } != MPI_SUCCESS {
        return -1;
    }
    disp
}

#[allow(clippy::too_many_arguments)]
fn io(fh: H, count: c_int, dt: H, write: bool, how: Access, at: Option<i64>, tm1: i64, tm2: i64) {
    MPIIO.on_io(fh, write, how, m::type_bytes(dt, count), byte_offset(fh, at), tm1, tm2);
}

/// `io` for the large-count calls: the count is an MPI_Count.
#[allow(clippy::too_many_arguments)]
fn io_c(fh: H, count: i64, dt: H, write: bool, how: Access, at: Option<i64>, tm1: i64, tm2: i64) {
    MPIIO.on_io(fh, write, how, m::type_bytes_c(dt, count), byte_offset(fh, at), tm1, tm2);
}

/// Exports `$name` and `$pname` with the given parameters; the body runs
/// the real `$pname` and records with `$rec(tm1, tm2)`.
macro_rules! mpi_export {
    // The two exported functions; `$real` calls the real function
    // (None if there is none).
    (@fns $name:ident, $pname:ident, ($($a:ident : $t:ty),*), $at:ident = $pos:expr, $real:expr, |$t1:ident, $t2:ident| $rec:expr) => {
        mpi_pair!($name, $pname, ($($a: $t),*), {
            let $at = $pos;
            timed(|| $real, |$t1, $t2| $rec)
        });
    };
    ($name:ident, $pname:ident, ($($a:ident : $t:ty),*), $at:ident = $pos:expr, |$t1:ident, $t2:ident| $rec:expr) => {
        mpi_export!(@fns $name, $pname, ($($a: $t),*), $at = $pos,
            // SAFETY: the program's arguments, passed on unchanged.
            pmpi_or_plain!(m::$pname(), $name).map(|f| unsafe { f($($a),*) }),
            |$t1, $t2| $rec);
    };
    ($name:ident, $pname:ident, ($($a:ident : $t:ty),*), |$t1:ident, $t2:ident| $rec:expr) => {
        mpi_export!($name, $pname, ($($a: $t),*), _at = (), |$t1, $t2| $rec);
    };
    // A large-count call (MPI 4.0), `$count` its MPI_Count, `$plain` the
    // same call with an int count. An MPI-3 library (Open MPI 4) has no
    // large-count calls, yet a program that asks whether it has them
    // (mpi4py's weak symbols) finds ours: the plain call then serves a
    // count that fits an int, and a larger one gets MPI_ERR_ARG, as
    // mpi4py's own fallback gives it.
    ($name:ident, $pname:ident, plain = $plain:ident, count = $count:ident, ($($a:ident : $t:ty),*), $at:ident = $pos:expr, |$t1:ident, $t2:ident| $rec:expr) => {
        mpi_export!(@fns $name, $pname, ($($a: $t),*), $at = $pos,
            match m::$pname() {
                // SAFETY: the program's arguments, passed on unchanged.
                Some(f) => Some(unsafe { f($($a),*) }),
                None => m::$plain().map(|f| match c_int::try_from($count) {
                    // SAFETY: the program's arguments, its count as the
                    // int it fits in.
                    Ok($count) => unsafe { f($($a),*) },
                    Err(_) => m::mpi_err_arg(),
                }),
            },
            |$t1, $t2| $rec);
    };
}

type Buf = *mut c_void;
type Status = *mut c_void;
type Req = *mut H;

// Reads and writes: `(fh, [offset,] buf, count, datatype, status|request)`;
// the size is count × the datatype's size.
mpi_export!(MPI_File_read, PMPI_File_read, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, false, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_write, PMPI_File_write, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, true, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_read_at, PMPI_File_read_at, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, false, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_write_at, PMPI_File_write_at, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, true, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_read_shared, PMPI_File_read_shared, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, false, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_write_shared, PMPI_File_write_shared, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, true, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_read_all, PMPI_File_read_all, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, false, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_write_all, PMPI_File_write_all, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, true, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_read_at_all, PMPI_File_read_at_all, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, false, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_write_at_all, PMPI_File_write_at_all, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, true, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_read_ordered, PMPI_File_read_ordered, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, false, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_write_ordered, PMPI_File_write_ordered, (fh: H, buf: Buf, count: c_int, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, true, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_read_all_begin, PMPI_File_read_all_begin, (fh: H, buf: Buf, count: c_int, dt: H), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, false, Access::Split, at, t1, t2));
mpi_export!(MPI_File_write_all_begin, PMPI_File_write_all_begin, (fh: H, buf: Buf, count: c_int, dt: H), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, true, Access::Split, at, t1, t2));
mpi_export!(MPI_File_read_at_all_begin, PMPI_File_read_at_all_begin, (fh: H, off: i64, buf: Buf, count: c_int, dt: H), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, false, Access::Split, at, t1, t2));
mpi_export!(MPI_File_write_at_all_begin, PMPI_File_write_at_all_begin, (fh: H, off: i64, buf: Buf, count: c_int, dt: H), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, true, Access::Split, at, t1, t2));
mpi_export!(MPI_File_read_ordered_begin, PMPI_File_read_ordered_begin, (fh: H, buf: Buf, count: c_int, dt: H), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, false, Access::Split, at, t1, t2));
mpi_export!(MPI_File_write_ordered_begin, PMPI_File_write_ordered_begin, (fh: H, buf: Buf, count: c_int, dt: H), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, true, Access::Split, at, t1, t2));
mpi_export!(MPI_File_iread, PMPI_File_iread, (fh: H, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite, PMPI_File_iwrite, (fh: H, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_at, PMPI_File_iread_at, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_at, PMPI_File_iwrite_at, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_shared, PMPI_File_iread_shared, (fh: H, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_shared, PMPI_File_iwrite_shared, (fh: H, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::Shared), |t1, t2| io(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_all, PMPI_File_iread_all, (fh: H, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_all, PMPI_File_iwrite_all, (fh: H, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_at_all, PMPI_File_iread_at_all, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_at_all, PMPI_File_iwrite_at_all, (fh: H, off: i64, buf: Buf, count: c_int, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io(fh, count, dt, true, Access::Nb, at, t1, t2));

// The MPI-4 large-count forms (MPI_Count counts: i64), counted as the
// plain calls are (spec extensions.md section 2); on a library without
// them (Open MPI 4), served by the plain calls.
mpi_export!(MPI_File_read_c, PMPI_File_read_c, plain = PMPI_File_read, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, false, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_read_all_c, PMPI_File_read_all_c, plain = PMPI_File_read_all, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, false, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_read_at_c, PMPI_File_read_at_c, plain = PMPI_File_read_at, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, false, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_read_at_all_c, PMPI_File_read_at_all_c, plain = PMPI_File_read_at_all, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, false, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_read_shared_c, PMPI_File_read_shared_c, plain = PMPI_File_read_shared, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, false, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_read_ordered_c, PMPI_File_read_ordered_c, plain = PMPI_File_read_ordered, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, false, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_iread_c, PMPI_File_iread_c, plain = PMPI_File_iread, count = count, (fh: H, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_all_c, PMPI_File_iread_all_c, plain = PMPI_File_iread_all, count = count, (fh: H, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_at_c, PMPI_File_iread_at_c, plain = PMPI_File_iread_at, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_at_all_c, PMPI_File_iread_at_all_c, plain = PMPI_File_iread_at_all, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iread_shared_c, PMPI_File_iread_shared_c, plain = PMPI_File_iread_shared, count = count, (fh: H, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, false, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_read_all_begin_c, PMPI_File_read_all_begin_c, plain = PMPI_File_read_all_begin, count = count, (fh: H, buf: Buf, count: i64, dt: H), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, false, Access::Split, at, t1, t2));
mpi_export!(MPI_File_read_at_all_begin_c, PMPI_File_read_at_all_begin_c, plain = PMPI_File_read_at_all_begin, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, false, Access::Split, at, t1, t2));
mpi_export!(MPI_File_read_ordered_begin_c, PMPI_File_read_ordered_begin_c, plain = PMPI_File_read_ordered_begin, count = count, (fh: H, buf: Buf, count: i64, dt: H), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, false, Access::Split, at, t1, t2));
mpi_export!(MPI_File_write_c, PMPI_File_write_c, plain = PMPI_File_write, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, true, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_write_all_c, PMPI_File_write_all_c, plain = PMPI_File_write_all, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, true, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_write_at_c, PMPI_File_write_at_c, plain = PMPI_File_write_at, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, true, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_write_at_all_c, PMPI_File_write_at_all_c, plain = PMPI_File_write_at_all, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, true, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_write_shared_c, PMPI_File_write_shared_c, plain = PMPI_File_write_shared, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, true, Access::Indep, at, t1, t2));
mpi_export!(MPI_File_write_ordered_c, PMPI_File_write_ordered_c, plain = PMPI_File_write_ordered, count = count, (fh: H, buf: Buf, count: i64, dt: H, st: Status), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, true, Access::Coll, at, t1, t2));
mpi_export!(MPI_File_iwrite_c, PMPI_File_iwrite_c, plain = PMPI_File_iwrite, count = count, (fh: H, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_all_c, PMPI_File_iwrite_all_c, plain = PMPI_File_iwrite_all, count = count, (fh: H, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_at_c, PMPI_File_iwrite_at_c, plain = PMPI_File_iwrite_at, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_at_all_c, PMPI_File_iwrite_at_all_c, plain = PMPI_File_iwrite_at_all, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_iwrite_shared_c, PMPI_File_iwrite_shared_c, plain = PMPI_File_iwrite_shared, count = count, (fh: H, buf: Buf, count: i64, dt: H, rq: Req), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, true, Access::Nb, at, t1, t2));
mpi_export!(MPI_File_write_all_begin_c, PMPI_File_write_all_begin_c, plain = PMPI_File_write_all_begin, count = count, (fh: H, buf: Buf, count: i64, dt: H), at = before(fh, Pos::Individual), |t1, t2| io_c(fh, count, dt, true, Access::Split, at, t1, t2));
mpi_export!(MPI_File_write_at_all_begin_c, PMPI_File_write_at_all_begin_c, plain = PMPI_File_write_at_all_begin, count = count, (fh: H, off: i64, buf: Buf, count: i64, dt: H), at = before(fh, Pos::At(off)), |t1, t2| io_c(fh, count, dt, true, Access::Split, at, t1, t2));
mpi_export!(MPI_File_write_ordered_begin_c, PMPI_File_write_ordered_begin_c, plain = PMPI_File_write_ordered_begin, count = count, (fh: H, buf: Buf, count: i64, dt: H), at = before(fh, Pos::Shared), |t1, t2| io_c(fh, count, dt, true, Access::Split, at, t1, t2));

/// The name MPI_File_open records: ROMIO's `fs:` prefix stripped (only
/// a prefix longer than one character, so `c:\...` stays), then cleaned.
///
/// # Safety
/// `filename` is a NUL-terminated string.
pub(crate) unsafe fn open_name(filename: *const c_char) -> *const c_char {
    // SAFETY: MPI_File_open's filename is a NUL-terminated string (the
    // real call just accepted it).
    let b = unsafe { CStr::from_ptr(filename) }.to_bytes();
    match b.iter().position(|&c| c == b':') {
        // SAFETY: `p + 1 <= b.len()`, still inside the same string.
        Some(p) if p > 1 => unsafe { filename.add(p + 1) },
        _ => filename,
    }
}

mpi_export!(MPI_File_open, PMPI_File_open, (comm: H, filename: *const c_char, amode: c_int, info: H, fh: *mut H), |t1, t2| {
    if filename.is_null() || fh.is_null() {
        return;
    }
    let has_info = m::abi_ready().map(|a| !a.is_info_null(info)).unwrap_or(false);
    let size = m::comm_size(comm);
    // SAFETY: the real call succeeded, so it stored the new handle in *fh.
    let handle = unsafe { *fh };
    // SAFETY: the filename MPI_File_open just accepted, NUL-terminated.
    unsafe {
        paths::with_clean(None, open_name(filename), |name| {
            MPIIO.on_open(handle, name, amode as i64, size, has_info, t1, t2)
        })
    };
});

mpi_export!(MPI_File_sync, PMPI_File_sync, (fh: H), |t1, t2| MPIIO.on_sync(fh, t1, t2));
mpi_export!(MPI_File_set_size, PMPI_File_set_size, (fh: H, size: i64), |t1, t2| MPIIO.on_meta(fh, t1, t2));
mpi_export!(MPI_File_set_info, PMPI_File_set_info, (fh: H, info: H), |t1, t2| MPIIO.on_meta(fh, t1, t2));
mpi_export!(
    MPI_File_set_view,
    PMPI_File_set_view,
    (fh: H, disp: i64, etype: H, filetype: H, datarep: *const c_char, info: H),
    |t1, t2| {
        let has_info = m::abi_ready().map(|a| !a.is_info_null(info)).unwrap_or(false);
        MPIIO.on_set_view(fh, has_info, t1, t2)
    }
);

mpi_pair!(MPI_File_close, PMPI_File_close, (fh: *mut H), {
    // The handle is reset by the call: keep it to find the record.
    // SAFETY: MPI requires a valid pointer to the program's handle.
    let handle = if fh.is_null() { 0 } else { unsafe { *fh } };
    timed(
        // SAFETY: the program's argument, passed on unchanged.
        || pmpi_or_plain!(m::PMPI_File_close(), MPI_File_close).map(|f| unsafe { f(fh) }),
        |t1, t2| MPIIO.on_close(handle, t1, t2),
    )
});
