//! darshan-ingest: every Darshan log of a tree into one SQLite database
//! (per-job, per-module and per-file-record tables) and, on request, a
//! partitioned Parquet dataset with the same tables, for the facility
//! study (`darshan-study`) or Spark. docs/facility.md describes the tables.
#![forbid(unsafe_code)]

pub mod error;
pub mod extract;
pub mod facts;
pub mod job_groups;
pub mod mpi_rows;
pub mod parquet_out;
pub mod rows;
pub mod run;
pub mod schema;
pub mod store;
pub mod stored;
pub mod synth;

pub use error::IngestError;
