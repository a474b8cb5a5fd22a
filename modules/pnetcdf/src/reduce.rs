//! pnetcdf's reduction rules are the log format's: darshan_log::reduce::pnetcdf.

pub use darshan_log::reduce::pnetcdf::*;
