//! posix's reduction rules are the log format's: darshan_log::reduce::posix.

pub use darshan_log::reduce::posix::*;
