//! The shared-record reduction's building blocks live with the log
//! format (`darshan_log::reduce`): the runtime's MPI reduction and
//! `darshan-merge --job` use the same ones. Re-exported here for the runtime.

pub use darshan_log::reduce::ops::*;
pub use darshan_log::standard_shape;
