//! The configuration given at install, as C Darshan's configure options
//! compile in its defaults: the lines after
//! darshan_log::defaults::INSTALLED_CONFIG_MARKER in this library, zero as
//! built and written by scripts/install.sh in the installed copies. A
//! site's every process then has them without a variable or a file in the
//! job's environment (a statically linked program run without the site's
//! module included).

use darshan_log::defaults::{INSTALLED_CONFIG_CAPACITY, INSTALLED_CONFIG_MARKER};

/// The marker and the field after it, in this order (install.sh finds the
/// marker in the file and writes the field).
#[repr(C)]
struct Installed {
    marker: [u8; 32],
    lines: [u8; INSTALLED_CONFIG_CAPACITY],
}

#[used]
static INSTALLED: Installed = Installed { marker: INSTALLED_CONFIG_MARKER, lines: [0; INSTALLED_CONFIG_CAPACITY] };

/// The installed lines, if install.sh wrote any.
pub fn lines() -> Option<&'static str> {
    // Through an opaque reference: the bytes are the installed file's,
    // which the compiler, having seen only zeros, must not assume.
    let installed: &'static Installed = std::hint::black_box(&INSTALLED);
    darshan_log::defaults::installed_config(&installed.lines)
}
