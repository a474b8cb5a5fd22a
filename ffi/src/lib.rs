//! `libdarshan.so`: the runtime's only crate that exports C symbols (ffi/util,
//! the log-reading library, is the other one under ffi/). It holds the
//! wrappers of every POSIX and STDIO entry point, the constructor and
//! destructor, fork and `_exit` handling, and the clock. Every `unsafe`
//! block of the runtime is here or in the core's crash-safe store, each
//! with its SAFETY comment (clippy's `undocumented_unsafe_blocks` denies
//! one without); the modules are `#![forbid(unsafe_code)]`, the core
//! `#![deny(unsafe_code)]` but for `arena.rs` and `logmap.rs`.
//!
//! Rules followed (docs/interposition.md): real functions through
//! cached `dlsym(RTLD_NEXT)`; a const thread-local guard so the runtime's
//! own I/O passes through; nothing allocates or prints in a wrapper's path;
//! recording runs under `catch_unwind`, the real call outside it.

#![deny(unsafe_op_in_unsafe_fn)]

#[macro_use]
mod real;
mod alloc;
// Before the wrappers: its pmpi_or_plain! macro.
#[macro_use]
mod mpi_abi;
mod apmpi_real;
mod apmpi_wrap;
mod bgq_wrap;
mod c_api;
mod clock;
mod cwd;
mod exec_wrap;
mod facts;
mod guard;
mod hdf5_find;
mod hdf5_layout;
mod hdf5_lib;
mod hdf5_select;
mod hdf5_wrap;
mod host;
mod host_platform;
mod identity_wrap;
mod init;
mod loaded;
mod lustre_wrap;
mod meta_wrap;
mod modules;
mod mpi_comm;
mod mpi_state;
mod mpi_wrap;
mod next_symbol;
mod null_wrap;
mod own_stack;
mod paths;
mod platform;
mod pnetcdf_api;
mod pnetcdf_lib;
mod pnetcdf_wrap;
mod posix_wrap;
mod seccomp_wrap;
mod shim;
mod signal_frame;
mod stat_wrap;
mod stdio_wrap;
mod uring_ring;
mod uring_wrap;
