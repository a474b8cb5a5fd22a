//! mpiio's reduction rules are the log format's: darshan_log::reduce::mpiio.

pub use darshan_log::reduce::mpiio::*;
