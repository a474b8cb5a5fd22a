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
pub mod timing;

use std::sync::atomic::{AtomicBool, Ordering};

/// Set when the log is written from a signal handler (by `_exit` or
/// `exit`), on a thread whose interrupted frame may hold the C library's heap (the
/// runtime's own allocations then come from a mapping: ffi's alloc.rs).
/// What would still reach that heap is left out: no thread is spawned
/// (the C library allocates its descriptor), and the log is named in UTC
/// (the local time zone's first use on a thread registers a thread-local
/// destructor, which the C library allocates).
static FROM_A_HANDLER: AtomicBool = AtomicBool::new(false);

/// The log is written from a signal handler (see [`FROM_A_HANDLER`]).
pub fn written_from_a_signal_handler() {
    FROM_A_HANDLER.store(true, Ordering::Relaxed);
}

pub(crate) fn from_a_handler() -> bool {
    FROM_A_HANDLER.load(Ordering::Relaxed)
}

/// Whether the shutdown may start helper threads: not from a signal
/// handler (see [`FROM_A_HANDLER`]), nor under a seccomp filter that
/// would kill a thread's calls or one the runtime could not judge.
pub(crate) fn may_start_threads() -> bool {
    !from_a_handler() && crate::seccomp::threads_allowed() && !crate::seccomp::unjudged_filter()
}
