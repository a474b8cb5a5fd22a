//! The Darshan log format, shared by the runtime and every utility.
//!
//! * reads log versions 3.00, 3.10, 3.20, 3.21 and 3.41 in either byte
//!   order, zlib (multi-stream), bzip2 and uncompressed (mmap) regions;
//! * decodes every module of the 3.5.0 format and up-converts old module
//!   versions; records are read one at a time;
//! * writes 3.41 logs byte-compatible with the C writer's layout;
//! * never panics on bad input: every failure is a [`LogError`].
#![forbid(unsafe_code)]

pub mod apxc;
pub mod autoperf;
pub mod cost;
pub mod counters;
pub mod crash_safe;
pub mod decode;
pub mod defaults;
pub mod dxt_mapped;
pub mod dxt_mapped_read;
pub mod encode;
pub mod error;
pub mod ext_map;
pub mod extension;
pub mod hash;
pub mod header;
pub mod job;
pub mod log;
pub mod modules;
pub mod names;
pub mod record;
pub mod reduce;
pub mod region;
pub mod roles;
pub mod safe_fs;
pub mod software;
pub mod source;
pub mod writer;

pub use error::{LogError, Result};
pub use hash::record_id;
pub use header::{Compression, Header, LogVersion, RegionMap};
pub use job::{Job, Mount};
pub use log::LogFile;
pub use names::NameTable;
pub use record::{DxtSegment, Extra, LustreComponent, Record};
pub use writer::LogWriter;
