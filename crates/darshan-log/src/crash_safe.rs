//! The crash-safe (uncompressed, memory-mapped) file's fixed layout
//! (docs/log-format.md §10): where the names start, and the module
//! sequence words of the live view at the end of the job area.

use crate::header::HEADER_SIZE;
use crate::job::JOB_RECORD_SIZE;
use crate::modules::MAX_MODS;

/// Where the name table starts.
pub const NAMES_OFF: usize = HEADER_SIZE + JOB_RECORD_SIZE;
/// Module `id`'s sequence word is at `LIVE_OFF + 8 * id` (u64, odd while
/// the module's lock is held).
pub const LIVE_OFF: usize = NAMES_OFF - 8 * MAX_MODS;
/// Job metadata lines only a crash-safe file has (how long a clock tick
/// is while records hold ticks; the process, for a live reader): a log
/// made from such files leaves them out.
pub const FILE_ONLY_METADATA: [&str; 2] = ["ticks=", "pid="];
