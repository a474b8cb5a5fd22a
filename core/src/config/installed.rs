//! The log directory given at install, as C Darshan's `configure
//! --with-log-path` compiles one in: the bytes after
//! darshan_log::defaults::INSTALLED_LOG_PATH_MARKER in this library,
//! zero as built and written by scripts/install.sh in the installed
//! copies. A site's every process then writes its log to the dated tree
//! without a variable or a config file in the job's environment (a
//! statically linked program run without the site's module included).

use darshan_log::defaults::{INSTALLED_LOG_PATH_CAPACITY, INSTALLED_LOG_PATH_MARKER};

/// The marker and the field after it, in this order (install.sh finds the
/// marker in the file and writes the field).
#[repr(C)]
struct Installed {
    marker: [u8; 32],
    path: [u8; INSTALLED_LOG_PATH_CAPACITY],
}

#[used]
static INSTALLED: Installed = Installed { marker: INSTALLED_LOG_PATH_MARKER, path: [0; INSTALLED_LOG_PATH_CAPACITY] };

/// The installed directory, if install.sh wrote one.
pub fn log_path() -> Option<String> {
    // Through an opaque reference: the bytes are the installed file's,
    // which the compiler, having seen only zeros, must not assume.
    let installed: &Installed = std::hint::black_box(&INSTALLED);
    darshan_log::defaults::installed_log_path(&installed.path).map(String::from)
}
