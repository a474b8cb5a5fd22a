//! Command-line tools that read Darshan logs: darshan-parser,
//! darshan-dxt-parser and darshan-convert, byte-compatible with the C
//! darshan-util 3.5.0 output.
#![forbid(unsafe_code)]

/// The darshan-util release whose output these tools reproduce
/// (`--version`).
pub const DARSHAN_VERSION: &str = "3.5.0";

pub mod accum;
pub mod apmpi;
pub mod apxc;
pub mod cfmt;
pub mod cli;
pub mod combine;
pub mod describe;
pub mod diff;
pub mod diff_apmpi;
pub mod dxt;
pub mod dxt_print;
pub mod getopt;
pub mod installed;
mod job_dxt;
pub mod job_inputs;
pub mod job_merge;
pub mod job_processes;
pub mod job_words;
pub mod jobhdr;
pub mod merge;
mod merge_apmpi;
pub mod mpi_comm;
pub mod notices;
pub mod out;
pub mod parser;
pub mod printrec;
pub mod series;
pub mod trace_json;
pub mod units;
pub mod visible;
