//! Module ids (3.41 numbering), names, and the format versions this library
//! reads and writes.

use crate::counters;

pub const MAX_MODS: usize = 64;
/// Ids 0..KNOWN_MODULE_COUNT have names; later ids are "unknown".
pub const KNOWN_MODULE_COUNT: usize = 18;

pub const NULL: usize = 0;
pub const POSIX: usize = 1;
pub const MPIIO: usize = 2;
pub const H5F: usize = 3;
pub const H5D: usize = 4;
pub const PNETCDF_FILE: usize = 5;
pub const PNETCDF_VAR: usize = 6;
pub const BGQ: usize = 7;
pub const LUSTRE: usize = 8;
pub const STDIO: usize = 9;
pub const DXT_POSIX: usize = 10;
pub const DXT_MPIIO: usize = 11;
pub const MDHIM: usize = 12;
pub const APXC: usize = 13;
pub const APMPI: usize = 14;
pub const HEATMAP: usize = 15;
pub const DFS: usize = 16;
pub const DAOS: usize = 17;

/// Our own module (not in C Darshan): namespace, attribute and mapping
/// operations per path. Its id is the last of the range C Darshan leaves
/// unused (18-63: `DARSHAN_KNOWN_MODULE_COUNT` is 18 of `DARSHAN_MAX_MODS`
/// 64), so that a future C module is unlikely to take it. C's
/// darshan-parser prints `# <UNKNOWN> module (id 63)` for it, warns, and
/// reads every other module; PyDarshan 3.5.0 cannot open a log that has
/// it (a NULL module name from darshan_log_get_modules), which is why the
/// runtime records it only when asked for.
pub const POSIX_META: usize = 63;

/// Our own module (not in C Darshan): the requests a process submits
/// through io_uring rings, per file (docs/io-uring.md). Below POSIX_META
/// and PROCESSES at the top of the unused range; in the extension map, so
/// C's tools and PyDarshan read the rest of the log unchanged.
pub const IO_URING: usize = 61;

/// Our own module (not in C Darshan): DXT_POSIX's trace for the io_uring
/// requests (docs/io-uring.md), laid out as DXT_POSIX's records are
/// (version 1: 32-byte segments, 2: with thread ids).
pub const DXT_IO_URING: usize = 60;

/// Our own region (not in C Darshan, not a runtime module): the processes
/// of a job log, written by `darshan-merge --job` (counters::processes).
pub const PROCESSES: usize = 62;

/// The modules of ours beyond C's numbering: id, name, version written.
pub const EXTENSION_MODULES: [(usize, &str, u32); 4] = [
    (DXT_IO_URING, "DXT_IO_URING", 1),
    (IO_URING, "IO_URING", 2),
    (PROCESSES, "PROCESSES", 1),
    (POSIX_META, "POSIX_META", 1),
];

/// The DXT modules: their records are traces (darshan_log::record::Extra::Dxt).
pub fn is_dxt(id: usize) -> bool {
    matches!(id, DXT_POSIX | DXT_MPIIO | DXT_IO_URING)
}

/// Whether a DXT module's records at `version` have 40-byte segments
/// (with thread ids): DXT_POSIX and DXT_IO_URING from 2, DXT_MPIIO from 3.
pub fn dxt_thread_ids_at(id: usize, version: u32) -> bool {
    match id {
        DXT_POSIX | DXT_IO_URING => version >= 2,
        DXT_MPIIO => version >= 3,
        _ => false,
    }
}

/// `$name`s as [`MODULE_NAMES`] and, the same names, as C strings.
macro_rules! module_names {
    ($($name:literal,)*) => {
        /// `darshan_module_names`: the names darshan-parser prints.
        pub const MODULE_NAMES: [&str; KNOWN_MODULE_COUNT] = [$($name,)*];
        /// The same names as C strings (what darshan-util's
        /// `darshan_log_get_modules` hands out: ffi/util).
        pub const MODULE_C_NAMES: [&core::ffi::CStr; KNOWN_MODULE_COUNT] =
            [$(crate::counters::c_str(concat!($name, "\0")),)*];
    };
}

module_names!(
    "NULL",
    "POSIX",
    "MPI-IO",
    "H5F",
    "H5D",
    "PNETCDF_FILE",
    "PNETCDF_VAR",
    "BG/Q",
    "LUSTRE",
    "STDIO",
    "DXT_POSIX",
    "DXT_MPIIO",
    "MDHIM",
    "APXC",
    "APMPI",
    "HEATMAP",
    "DFS",
    "DAOS",
);

/// Newest version of each module this library reads (0 = cannot decode).
pub const READ_VERSIONS: [u32; KNOWN_MODULE_COUNT] = [1, 4, 3, 3, 2, 3, 1, 2, 2, 2, 2, 3, 1, 0, 0, 1, 1, 1];

/// The version this library writes for each module. DXT stays at the
/// 32-byte-segment layout that released tools (PyDarshan 3.5.0) read.
pub const WRITE_VERSIONS: [u32; KNOWN_MODULE_COUNT] = [1, 4, 3, 3, 2, 3, 1, 2, 2, 2, 1, 2, 1, 0, 0, 1, 1, 1];

/// The HEATMAP record a source module's heat map is written as (C
/// Darshan's POSIX, MPI-IO and STDIO modules register these names, and
/// PyDarshan finds a module's heat map by them); None for a module that
/// feeds none.
pub const fn heat_name(id: usize) -> Option<&'static [u8]> {
    match id {
        POSIX => Some(b"heatmap:POSIX"),
        MPIIO => Some(b"heatmap:MPIIO"),
        STDIO => Some(b"heatmap:STDIO"),
        _ => None,
    }
}

pub fn module_name(id: usize) -> &'static str {
    match extension(id) {
        Some((_, name, _)) => name,
        None => MODULE_NAMES.get(id).copied().unwrap_or("<UNKNOWN>"),
    }
}

/// Our own module or region `id` (not in C Darshan): its id, name and the
/// version written.
pub fn extension(id: usize) -> Option<(usize, &'static str, u32)> {
    EXTENSION_MODULES.iter().copied().find(|e| e.0 == id)
}

/// Whether `id` is one of AutoPerf's modules (APXC, APMPI): regions of
/// raw structs, the header first, read only by tools built for them.
pub fn is_autoperf(id: usize) -> bool {
    matches!(id, APXC | APMPI)
}

/// Whether this library knows module `id`: one of C's (0-17) or one of
/// ours (`EXTENSION_MODULES`).
pub fn is_known(id: usize) -> bool {
    id < KNOWN_MODULE_COUNT || extension(id).is_some()
}

/// Whether `id` is a module of ours that C's tools do not know.
pub fn is_extension(id: usize) -> bool {
    extension(id).is_some()
}

/// The module named `name` (case-insensitive, as Darshan's module
/// variables and config keywords take it), C's or ours.
pub fn module_id(name: &str) -> Option<usize> {
    MODULE_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name))
        .or_else(|| EXTENSION_MODULES.iter().find(|e| e.1.eq_ignore_ascii_case(name)).map(|e| e.0))
}

/// Every module id this library knows, in id order.
pub fn known_ids() -> impl Iterator<Item = usize> {
    (0..KNOWN_MODULE_COUNT).chain(EXTENSION_MODULES.iter().map(|e| e.0))
}

/// The version this library writes for module `id` (0: none).
pub fn write_version(id: usize) -> u32 {
    match extension(id) {
        Some((_, _, v)) => v,
        None => WRITE_VERSIONS.get(id).copied().unwrap_or(0),
    }
}

/// The newest version of module `id` this library reads (0: none).
pub fn read_version(id: usize) -> u32 {
    match extension(id) {
        // Written one higher with thread ids, as DXT_POSIX is.
        Some((DXT_IO_URING, _, v)) => v + 1,
        Some((_, _, v)) => v,
        None => READ_VERSIONS.get(id).copied().unwrap_or(0),
    }
}

/// Counter and fcounter names of a fixed-layout module, in on-disk order
/// (each module's `layout!` makes them).
pub fn counter_names(id: usize) -> (&'static [&'static str], &'static [&'static str]) {
    match id {
        NULL => (&counters::null::NAMES, &counters::null::F_NAMES),
        POSIX => (&counters::posix::NAMES, &counters::posix::F_NAMES),
        MPIIO => (&counters::mpiio::NAMES, &counters::mpiio::F_NAMES),
        H5F => (&counters::h5f::NAMES, &counters::h5f::F_NAMES),
        H5D => (&counters::h5d::NAMES, &counters::h5d::F_NAMES),
        PNETCDF_FILE => (&counters::pnetcdf_file::NAMES, &counters::pnetcdf_file::F_NAMES),
        PNETCDF_VAR => (&counters::pnetcdf_var::NAMES, &counters::pnetcdf_var::F_NAMES),
        BGQ => (&counters::bgq::NAMES, &counters::bgq::F_NAMES),
        STDIO => (&counters::stdio::NAMES, &counters::stdio::F_NAMES),
        MDHIM => (&counters::mdhim::NAMES, &counters::mdhim::F_NAMES),
        DFS => (&counters::dfs::NAMES, &counters::dfs::F_NAMES),
        DAOS => (&counters::daos::NAMES, &counters::daos::F_NAMES),
        POSIX_META => (&counters::posix_meta::NAMES, &counters::posix_meta::F_NAMES),
        IO_URING => (&counters::io_uring::NAMES, &counters::io_uring::F_NAMES),
        PROCESSES => (&counters::processes::NAMES, &counters::processes::F_NAMES),
        _ => (&[], &[]),
    }
}
