//! One job's I/O report from its Darshan log: PyDarshan's summary figures,
//! per-file tables, heat maps and timeline, and a diagnosis (Drishti's
//! insights, the seed papers' metrics, Lustre advice), rendered as one
//! self-contained HTML page, terminal text or JSON.
#![forbid(unsafe_code)]

pub mod app_sums;
pub mod categories;
pub mod collect;
pub mod diagnose;
pub mod files;
pub mod heat;
pub mod model;
pub mod modstats;
pub mod namespace;
pub mod processes;
pub mod render;
pub mod timespans;
pub use darshan_util::units;
pub mod mpi_comm;
pub mod uring;

pub use collect::{analyze, Options, UnreadableLog};
pub use model::Report;
