//! posix_meta's reduction rules are the log format's: darshan_log::reduce::posix_meta.

pub use darshan_log::reduce::posix_meta::*;
