//! The crash-safe (uncompressed, memory-mapped) file's fixed layout
//! (docs/log-format.md §10): where the names start, the module sequence
//! words of the live view at the end of the job area, and the extension
//! map just before them.

use crate::error::Result;
use crate::extension::{ENTRY_SIZE, FOOTER_SIZE, MAX_TRAILER_SIZE};
use crate::header::{Compression, Header, HEADER_SIZE};
use crate::job::JOB_RECORD_SIZE;
use crate::modules::MAX_MODS;

/// Where the name table starts.
pub const NAMES_OFF: usize = HEADER_SIZE + JOB_RECORD_SIZE;
/// Module `id`'s sequence word is at `LIVE_OFF + 8 * id` (u64, odd while
/// the module's lock is held).
pub const LIVE_OFF: usize = NAMES_OFF - 8 * MAX_MODS;
/// Entries the crash-safe file's extension map has room for: one per
/// module of ours with an id Darshan does not know (the runtime's
/// POSIX_META, IO_URING and DXT_IO_URING; PROCESSES is darshan-merge's),
/// and DXT_POSIX's and DXT_MPIIO's traces, which the file keeps in a
/// layout of ours (crate::dxt_mapped) that darshan-util refuses:
/// darshan-merge 3.5.0 then gave up the whole file.
pub const EXT_MAP_ENTRIES: usize = crate::modules::EXTENSION_MODULES.len() + 2;
/// The extension map (crate::extension's trailer layout, filled from its
/// end as modules register: entries, then the footer) ends where the
/// sequence words start, inside the job area after the exe/mount string's
/// NUL, where Darshan's readers never look: a map in the header would
/// name ids they do not know, and PyDarshan 3.5.0 cannot open such a
/// file; or regions in a layout they cannot read ([`in_map`]).
pub const EXT_MAP_OFF: usize = LIVE_OFF - EXT_MAP_SIZE;
/// The bytes the job record (struct and exe/mount string) may take in a
/// crash-safe file: from the header's end to the extension map.
pub const JOB_AREA_LEN: usize = EXT_MAP_OFF - crate::header::HEADER_SIZE;
pub const EXT_MAP_SIZE: usize = FOOTER_SIZE + EXT_MAP_ENTRIES * ENTRY_SIZE;

/// Whether module `id`, its records laid out as `version`, is named by
/// the extension map rather than the header: an id Darshan does not
/// know, or DXT's traces as the crash-safe file keeps them.
pub fn in_map(id: usize, version: u32) -> bool {
    crate::extension::is_extension(id) || version == crate::dxt_mapped::VERSION
}

/// Whether `header` is laid out as a crash-safe file's (uncompressed, the
/// names where this layout puts them), so that its extension map is at
/// [`EXT_MAP_OFF`].
pub fn is_crash_safe(header: &Header) -> bool {
    header.compression == Compression::None && header.name_map.off == NAMES_OFF as u64
}

/// Fold a crash-safe file's extension map (`block`: its bytes from
/// [`EXT_MAP_OFF`] to [`LIVE_OFF`]) into `header`. A block without the
/// magic holds no map (no module of such an id registered, or a file C
/// Darshan made): nothing changes.
pub fn apply_ext_map(header: &mut Header, block: &[u8], file_size: u64) -> Result<()> {
    crate::extension::apply_map(header, block, file_size, &in_map)
}

/// Fold every extension map of a file held whole in `file` into
/// `header`: the trailer at its end (crate::extension), and a crash-safe
/// file's map before its live words.
pub fn apply_all_maps(header: &mut Header, file: &[u8]) -> Result<()> {
    let size = file.len() as u64;
    crate::extension::apply_trailer(header, &file[file.len().saturating_sub(MAX_TRAILER_SIZE)..], size)?;
    match file.get(EXT_MAP_OFF..LIVE_OFF) {
        Some(block) if is_crash_safe(header) => apply_ext_map(header, block, size),
        _ => Ok(()),
    }
}

/// Job metadata lines only a crash-safe file has (how long a clock tick
/// is while records hold ticks; the process, for a live reader): a log
/// made from such files leaves them out.
pub const FILE_ONLY_METADATA: [&str; 2] = ["ticks=", "pid="];
