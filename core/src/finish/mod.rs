//! Turning the records into a log: the phases both shutdowns share
//! (`pipeline`, `compress`, `logname`), a process on its own (`shutdown`)
//! and an MPI job over `counting::collective`'s `Comm` (`shutdown_mpi`);
//! both first ask whether their memory can be had (`memory`).

pub mod compress;
mod gathered;
pub mod logname;
pub mod memory;
pub mod pipeline;
pub mod shutdown;
pub mod shutdown_mpi;
mod step;

use std::sync::atomic::{AtomicBool, Ordering};

/// Set when the log is written from `_exit`, which a signal handler may
/// call on a thread whose interrupted frame holds the C library's heap
/// (the runtime's own allocations then come from a mapping: ffi's
/// alloc.rs). What would still reach that heap is left out: no thread is
/// spawned (the C library allocates its descriptor), and the log is named
/// in UTC (the local time zone's first use on a thread registers a
/// thread-local destructor, which the C library allocates).
static FROM_EXIT_CALL: AtomicBool = AtomicBool::new(false);

/// The log is written from `_exit` (see [`FROM_EXIT_CALL`]).
pub fn written_from_exit_call() {
    FROM_EXIT_CALL.store(true, Ordering::Relaxed);
}

pub(crate) fn from_exit_call() -> bool {
    FROM_EXIT_CALL.load(Ordering::Relaxed)
}
