//! The runtime core that the instrumentation modules plug into.
//!
//! It owns what every module shares: the configuration (environment and
//! config file, Darshan's names and meanings), the record memory that
//! modules reserve their slices from, the name table, the partial flags,
//! the registry of modules, and the shutdown pipeline that turns all of it
//! into one Darshan 3.41 log.  It does no I/O of its own while the program
//! runs; everything platform-specific (clock, statfs, stderr) comes
//! through [`platform::Platform`], which the `ffi` crate implements.
//!
//! No unsafe code except in the store's `arena.rs` (one fallible zeroed
//! allocation: the record memory) and `logmap.rs` (the MAP_SHARED file of
//! the crash-safe mode), each block with its SAFETY comment.
#![deny(unsafe_code)]

// Grouped by what the pieces are; each is also reachable at the crate's
// root (`darshan_core::arena`), as modules and ffi name them.
pub mod config;
pub mod contract;
pub mod cost;
pub mod counting;
pub mod ere;
pub mod finish;
pub mod launcher;
pub mod protocols;
pub mod runtime;
pub mod seccomp;
pub mod store;

pub use contract::{env, handles, heatmap, module, records, var_records};
pub use counting::{access_tuples, collective, common, dataset_io, mounts, paths};
pub use finish::{compress, logname, pipeline, shutdown, shutdown_mpi};
pub use store::{arena, id_index, lazy_words, ledger, logmap, names, platform, shift, sync};

pub use module::{Env, FinalizeCtx, LockedState, LongRecord, Module, ModuleSpec, ModuleState, Run};
pub use platform::Platform;
