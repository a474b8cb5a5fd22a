//! What darshan-util was given at install, as C darshan-util's configure
//! options compile it in: which of AutoPerf's modules it reads
//! (`--enable-apmpi-mod`, `--enable-apxc-mod`; scripts/install.sh). The lines lie after
//! [`MARKER`] in every installed file that reads logs (the tools,
//! libdarshan-util.so), zero as built: a build tree's tools read what a
//! default C build reads, and so does an install given nothing.

use darshan_log::modules::{is_autoperf, module_name};

/// The marker install.sh finds (once in a file) and writes the field
/// after.
pub const MARKER: [u8; 32] = *b"darshan-rs:installed-util------>";
const CAPACITY: usize = 256;

/// The marker and the field after it, in this order.
#[repr(C)]
struct Installed {
    marker: [u8; 32],
    lines: [u8; CAPACITY],
}

#[used]
static INSTALLED: Installed = Installed { marker: MARKER, lines: [0; CAPACITY] };

/// The installed lines (empty when none).
fn lines() -> &'static str {
    // Through an opaque reference: the bytes are the installed file's,
    // which the compiler, having seen only zeros, must not assume.
    let installed: &'static Installed = std::hint::black_box(&INSTALLED);
    darshan_log::defaults::installed_config(&installed.lines).unwrap_or("")
}

/// Whether AutoPerf's module `m` (APMPI or APXC) is read: only when
/// install said so (its name on a line of its own).
pub fn reads_autoperf(m: usize) -> bool {
    is_autoperf(m) && lines().lines().any(|l| l.trim() == module_name(m))
}
