//! The PnetCDF modules: PNETCDF_FILE (record version 3), one record per
//! file `ncmpi_create` or `ncmpi_open` opened, and PNETCDF_VAR (version 1,
//! `var.rs`), one per variable, named `<file path>:<variable name>` and
//! linked to its file's record by `file_rec_id`.
//!
//! Everything that needs the library (the file's path, dimensions,
//! the size of an access from its start/count/stride arguments) is asked
//! by the wrappers in `ffi/src/pnetcdf_wrap.rs`, from the library the
//! program called; the `on_*` functions here only count. Open files are
//! found again by their ncid, variables by their varid alone (as Darshan
//! does: see `var.rs`).
#![forbid(unsafe_code)]

pub mod file;
pub mod reduce;
pub mod var;
mod varid_chains;

pub use file::{Meta, PNETCDF_FILE};
pub use var::{Access, Api, Kind, Op, VarInfo, VarShape, PNETCDF_VAR};

#[cfg(test)]
mod tests;
