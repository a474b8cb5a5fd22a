//! The MPI hand-off between the life cycle (init.rs) and the MPI wrappers
//! (mpi_wrap.rs): whether MPI_Init made this process an MPI rank whose
//! log MPI_Finalize writes, and what the launcher says about the rank
//! when MPI cannot be asked. Below both, so that neither reaches up.

use std::sync::atomic::{AtomicBool, Ordering};

use darshan_core::runtime;

use crate::guard;
use crate::host::say;

/// Set after MPI_Init set the runtime up on this rank; taken (false) by
/// MPI_Finalize, or at exit by a rank that never finalized.
pub(crate) static MPI_ACTIVE: AtomicBool = AtomicBool::new(false);

pub fn mpi_active() -> bool {
    MPI_ACTIVE.load(Ordering::Acquire)
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
    guard::set_state(runtime::FINALIZED);
    let first_here = launcher_rank() == Some(0) || launcher_local_rank() == Some(0);
    if !first_here {
        return;
    }
    match darshan_core::shutdown::recovery_hint_mpi() {
        Some(hint) => say(&format!("this process ended without MPI_Finalize, so the job's log was not written; {hint}")),
        None => say("this process ended without MPI_Finalize, so the job's log was not written (crash-safe files are off: the records are lost)"),
    }
}
