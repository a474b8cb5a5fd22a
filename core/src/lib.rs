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
//! No unsafe code except in `arena.rs` (one fallible zeroed allocation:
//! the record memory) and `logmap.rs` (the MAP_SHARED file of the
//! crash-safe mode), each block with its SAFETY comment.
#![deny(unsafe_code)]

pub mod access_tuples;
pub mod arena;
pub mod collective;
pub mod common;
pub mod compress;
pub mod config;
pub mod dataset_io;
pub mod env;
pub mod handles;
pub mod heatmap;
pub mod id_index;
pub mod launcher;
pub mod ledger;
pub mod logmap;
pub mod logname;
pub mod module;
pub mod mounts;
pub mod names;
pub mod paths;
pub mod pipeline;
pub mod platform;
pub mod protocols;
pub mod records;
pub mod runtime;
pub mod shutdown;
pub mod shutdown_mpi;
pub mod sync;
pub mod var_records;

pub use module::{Env, FinalizeCtx, LockedState, Module, ModuleSpec, ModuleState};
pub use platform::Platform;
