//! hdf5's reduction rules are the log format's: darshan_log::reduce::hdf5.

pub use darshan_log::reduce::hdf5::*;
