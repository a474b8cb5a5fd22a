//! `libdarshan-util.so`: darshan-util's C API for reading logs, over the
//! format crate. PyDarshan built against darshan-util (Spack's py-darshan,
//! conda-forge's pydarshan) loads this library by that name, from the
//! install tree of the `darshan-parser` on the PATH or the library path,
//! and reads every log through it: the job, command line, mounts, modules,
//! names, each record as darshan-util's structs lay it out, the counter
//! names (`posix_counter_names`, ...) and the derived metrics
//! (`darshan_accumulator_*`). What it returns is the C heap's
//! (`darshan_free`). C programs compiled against darshan-util find its
//! headers in the tree (headers.rs), its per-module function tables
//! (`mod_logutils`: tables.rs; their printing, darshan-diff's and
//! darshan-dxt-parser's among it: printing.rs), its uthash table of names
//! (`darshan_log_get_namehash`: namehash.rs) and a module's bytes as the
//! log holds them (`darshan_log_get_mod`, which a module reader of a
//! site's own builds on: records.rs).
//!
//! Logs are written as darshan-util writes them (`darshan_log_create`,
//! `_put_*`, each module's `log_put_record`: writer.rs), so C Darshan's
//! darshan-convert.c and darshan-merge.c, and a site's C tools, write
//! through it.
//!
//! Like the runtime's `ffi/`, this is a crate that exports C symbols: every
//! `unsafe` block here says why it is sound, and no panic crosses a call.

// Records are handed out as the format crate encodes them, little-endian:
// darshan-util's structs in native order only on a little-endian host.
#[cfg(not(target_endian = "little"))]
compile_error!("libdarshan-util hands out little-endian structs: a big-endian host needs native encoding");

pub mod accum;
mod agg;
mod apmpi;
mod apxc;
mod autoperf;
mod fd;
mod funcs;
pub mod get;
pub mod handle;
pub mod headers;
mod mem;
mod metrics;
#[cfg(uthash)]
mod namehash;
mod names;
pub mod printing;
pub mod reading;
pub mod records;
pub mod tables;
mod writer;
mod writing;

/// darshan-util's version, which PyDarshan checks against its own.
static LIB_VERSION: &std::ffi::CStr = c"3.5.0";

/// The darshan-util version this library answers for.
#[no_mangle]
pub extern "C" fn darshan_log_get_lib_version() -> *const std::ffi::c_char {
    LIB_VERSION.as_ptr()
}

/// `f()`, or `failed` if it panicked: no unwind leaves a C call (the
/// format crate does not panic on a log's bytes; this is for the rest).
fn guarded<T>(failed: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(failed)
}
