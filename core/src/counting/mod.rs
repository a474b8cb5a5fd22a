//! Darshan's counting rules, shared by the modules: timers, stamps,
//! buckets, common values (`common`), access tuples, one dataset access
//! (`dataset_io`), path cleaning and exclusions (`paths`) and the mount
//! table's alignments (`mounts`), and the collectives and variances the
//! reductions across ranks count with (`collective`).

pub mod access_tuples;
pub mod collective;
pub mod common;
pub mod dataset_io;
pub mod mounts;
pub mod paths;
