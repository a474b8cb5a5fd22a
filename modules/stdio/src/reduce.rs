//! stdio's reduction rules are the log format's: darshan_log::reduce::stdio.

pub use darshan_log::reduce::stdio::*;
