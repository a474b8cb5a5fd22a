//! io_uring's reduction rules are the log format's: darshan_log::reduce::io_uring.

pub use darshan_log::reduce::io_uring::*;
