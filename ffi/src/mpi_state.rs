//! The MPI hand-off between the life cycle (init.rs) and the MPI wrappers
//! (mpi_wrap.rs): whether MPI_Init made this process an MPI rank whose
//! log MPI_Finalize writes, and what the launcher says about the rank
//! when MPI cannot be asked. Below both, so that neither reaches up.

use crate::guard::Life;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use crate::guard;
use crate::host::say;

/// Set after MPI_Init set the runtime up on this rank; taken (false) by
/// MPI_Finalize, or at exit by a rank that never finalized.
pub(crate) static MPI_ACTIVE: AtomicBool = AtomicBool::new(false);

pub fn mpi_active() -> bool {
    MPI_ACTIVE.load(Ordering::Acquire)
}

/// The status this process passed to exit(), once it has (as glibc's
/// on_exit hands it over, before the destructors run); NO_STATUS before.
static EXIT_STATUS: AtomicI32 = AtomicI32::new(NO_STATUS);
const NO_STATUS: i32 = i32::MIN;

extern "C" {
    /// glibc's on_exit(3) (not in the libc crate): like atexit, with the
    /// status exit() was given.
    fn on_exit(function: extern "C" fn(c_int, *mut c_void), arg: *mut c_void) -> c_int;
}

extern "C" fn note_exit_status(status: c_int, _arg: *mut c_void) {
    EXIT_STATUS.store(status, Ordering::Relaxed);
}

/// Has exit() tell this process's status to [`ended_without_finalize`]:
/// a rank that fails (exit(1) before MPI_Finalize, the common failure)
/// is the one that must say where its records are, since the launcher
/// then kills the others before their exit handlers run. Called once,
/// when MPI_Init made this process a rank.
pub(crate) fn watch_exit_status() {
    // SAFETY: on_exit registers a plain function taking (status, arg)
    // that glibc calls from exit(); the function touches one atomic and
    // the argument is unused (null).
    unsafe { on_exit(note_exit_status, std::ptr::null_mut()) };
}

/// The rank the launcher gave this process, from the variables mpirun,
/// mpiexec (Hydra, PMIx) and srun set, for an MPI we cannot ask: so that
/// one line, not one per rank, says it is unsupported.
pub(crate) fn launcher_rank() -> Option<i64> {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID", "ALPS_APP_PE"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
}

/// The rank on this node the launcher gave this process (Open MPI's,
/// Hydra's, Slurm's), for saying something once per node.
pub(crate) fn launcher_local_rank() -> Option<i64> {
    ["OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK", "MV2_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"]
        .iter()
        .find_map(|k| std::env::var(k).ok()?.trim().parse().ok())
}

/// The process exits with MPI initialized but not finalized (exit(1),
/// abort paths that run exit handlers, no MPI_Finalize at all): the job's
/// log cannot be written (that takes every rank), but the records are in
/// the crash-safe files. Rank 0 and the first rank of every node say so,
/// with the command that makes the log, once.
pub(crate) fn ended_without_finalize() {
    if !MPI_ACTIVE.swap(false, Ordering::AcqRel) {
        return;
    }
    guard::set_life(Life::Finalized);
    let first_here = launcher_rank() == Some(0) || launcher_local_rank() == Some(0);
    let status = EXIT_STATUS.load(Ordering::Relaxed);
    let failed = status != NO_STATUS && status != 0;
    if !first_here && !failed {
        return;
    }
    let how = if failed {
        format!(
            "this process (rank {}) exited with status {status} without MPI_Finalize",
            launcher_rank().unwrap_or(-1)
        )
    } else {
        "this process ended without MPI_Finalize".to_string()
    };
    match darshan_core::shutdown::recovery_hint_mpi() {
        Some(hint) => say(&format!("{how}, so the job's log was not written; {hint}")),
        None => {
            say(&format!("{how}, so the job's log was not written (crash-safe files are off: the records are lost)"))
        }
    }
}
