//! Command-line tools that read Darshan logs: darshan-parser,
//! darshan-dxt-parser and darshan-convert, byte-compatible with the C
//! darshan-util 3.5.0 output.
#![forbid(unsafe_code)]

pub mod accum;
pub mod cfmt;
pub mod describe;
pub mod dxt;
pub mod jobhdr;
pub mod merge;
pub mod out;
pub mod parser;
pub mod printrec;
