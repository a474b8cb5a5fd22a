//! The live view's reader (docs/live.md): it finds the crash-safe files of
//! running processes, copies each module's records between two equal even
//! readings of the module's sequence word (`darshan_core::sync`: odd while
//! a writer holds the module's lock), so a record is never seen half
//! updated, and turns successive snapshots into per-interval deltas per
//! module, process and job. Nothing here waits on the program: it only
//! reads files, and a module whose records stay busy is skipped for the
//! interval (counted), never read torn.
#![forbid(unsafe_code)]

pub mod final_log;
pub mod find;
pub mod snapshot;
pub mod stream;
pub mod totals;
pub mod track;
pub mod view;

pub use find::find_files;
pub use snapshot::{LiveError, Snapshot};
pub use track::{Interval, JobView, ProcessView, Totals, Tracker};
