//! Turning the records into a log: the phases both shutdowns share
//! (`pipeline`, `compress`, `logname`), a process on its own (`shutdown`)
//! and an MPI job over `counting::collective`'s `Comm` (`shutdown_mpi`);
//! both first ask whether their memory can be had (`memory`).

pub mod compress;
mod gathered;
pub mod logname;
mod memory;
pub mod pipeline;
pub mod shutdown;
pub mod shutdown_mpi;
mod step;
