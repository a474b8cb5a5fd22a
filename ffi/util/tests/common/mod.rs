//! What the library's tests share.

use std::ffi::CString;
use std::path::Path;

use darshan_logutils::handle::{self as h, DarshanFd};

/// imbalanced-io, a corpus log with thousands of POSIX records and 1,030
/// names, STDIO's records and no HDF5, opened through the C API.
pub fn open_imbalanced_io() -> *mut DarshanFd {
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/logs/imbalanced_io__imbalanced-io.darshan");
    let name = CString::new(log.to_str().unwrap()).unwrap();
    // SAFETY: a C string.
    let fd = unsafe { h::darshan_log_open(name.as_ptr()) };
    assert!(!fd.is_null(), "{} does not open", log.display());
    fd
}
