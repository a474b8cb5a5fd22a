//! The LUSTRE module's hook (Darshan's `darshan_instrument_fs_data`): when
//! a file with a POSIX or STDIO record is about to be closed, its
//! `lustre.lov` attribute is read from the open descriptor and handed to
//! the module. Asked of every such file, whatever the file system its
//! path names (a symlink can lead into Lustre), where a file can be on
//! Lustre at all (`Lustre::possible`); elsewhere it is one failed
//! `fgetxattr`.
//! Not charged to the close's time, as in C.

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};

use darshan_core::runtime;
use darshan_lustre::LUSTRE;
use libc::c_int;

use crate::guard::record;

const NAME: &std::ffi::CStr = c"lustre.lov";
/// Most layouts fit here (a plain layout of 160 stripes is 3.9 KB).
const STACK_BUF: usize = 4096;
/// The largest attribute Linux returns (XATTR_SIZE_MAX).
const BIG_BUF: usize = 65536;

/// A 64 KiB buffer for larger layouts (thousands of stripes), mapped the
/// first time one is met and kept; one thread at a time uses it (another
/// that finds it busy records nothing for that close, rather than wait).
static BIG: AtomicPtr<u8> = AtomicPtr::new(std::ptr::null_mut());
static BIG_BUSY: AtomicBool = AtomicBool::new(false);

fn enabled() -> bool {
    LUSTRE.possible() && runtime::core().ledger.enabled(darshan_log::modules::LUSTRE)
}

/// `fgetxattr(fd, "lustre.lov")` into `buf`: the bytes read, or the errno.
fn read_attr(fd: c_int, buf: &mut [u8]) -> Result<usize, i32> {
    // The real fgetxattr, not POSIX_META's wrapper: the runtime's own call
    // is no attribute read of the program's (and from inside a recording
    // it would count as a call lost to a signal handler).
    let Some(fgetxattr) = crate::real::fgetxattr() else { return Err(libc::ENOSYS) };
    // SAFETY: `buf` is valid for writes of `buf.len()` bytes; the name is
    // NUL-terminated; fgetxattr writes at most that many bytes.
    let n = unsafe { fgetxattr(fd, NAME.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        // SAFETY: __errno_location is this thread's errno slot.
        Err(unsafe { *libc::__errno_location() })
    } else {
        Ok(n as usize)
    }
}

/// A recorded file is about to be closed through `fd`; `id_of` gives its
/// record id. Everything, the id's lookup under its module's lock
/// included, runs inside the runtime's guard: a signal handler that
/// closes a file meanwhile passes through instead of waiting for that
/// lock. errno is the caller's again afterwards.
pub fn file_closing(fd: c_int, id_of: impl FnOnce() -> Option<u64>) {
    if enabled() {
        read_layout(fd, id_of);
    }
}

/// [`file_closing`]'s work, in a frame of its own: its buffer would
/// otherwise sit in every close's and fclose's frame (paths.rs's
/// `with_fd_name` says why that matters).
#[inline(never)]
fn read_layout(fd: c_int, id_of: impl FnOnce() -> Option<u64>) {
    record(|| {
        let Some(id) = id_of() else { return };
        let mut small = [0u8; STACK_BUF];
        match read_attr(fd, &mut small) {
            Ok(n) => LUSTRE.on_layout(id, &small[..n]),
            Err(libc::ERANGE) => with_big(|big| {
                if let Ok(n) = read_attr(fd, big) {
                    LUSTRE.on_layout(id, &big[..n]);
                }
            }),
            Err(_) => {}
        }
    });
}

/// Run `f` on the big buffer if it can be had now.
fn with_big(f: impl FnOnce(&mut [u8])) {
    if BIG_BUSY.swap(true, Ordering::Acquire) {
        return;
    }
    let mut p = BIG.load(Ordering::Acquire);
    if p.is_null() {
        if let Some(m) = darshan_core::arena::reserve_mapping(BIG_BUF) {
            p = m.as_mut_ptr();
            BIG.store(p, Ordering::Release);
        }
    }
    if !p.is_null() {
        // SAFETY: `p` is our never-unmapped mapping of BIG_BUF bytes, and
        // BIG_BUSY (taken above) gives this thread the only reference.
        f(unsafe { std::slice::from_raw_parts_mut(p, BIG_BUF) });
    }
    BIG_BUSY.store(false, Ordering::Release);
}
