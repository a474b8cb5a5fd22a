//! `darshan_log_get_record`: one record of a module, laid out as
//! darshan-util's structs are (`struct darshan_posix_file`, ...), old
//! versions up-converted and byte order made native by the format crate.
//! Variable-length records hold their arrays in the same block, after the
//! struct, and their pointers point there (LUSTRE's components and OSTs,
//! HEATMAP's bins), as darshan-util's do; DXT's segments follow its file
//! record, writes first.

use std::ffi::{c_int, c_void};

use darshan_log::modules::{self, KNOWN_MODULE_COUNT};
use darshan_log::{encode, Extra, Record};

use crate::handle::{state, DarshanFd, State};

/// darshan-util's buffer size for a record read into the caller's buffer.
const DEF_MOD_BUF_SIZE: usize = 81920;

/// A record laid out, and where in it a pointer to another place of the
/// same block goes: (pointer's offset, target's offset).
pub struct Laid {
    pub bytes: Vec<u8>,
    pub pointers: Vec<(usize, usize)>,
}

/// Where the pointers of LUSTRE's and HEATMAP's structs lie (after id,
/// rank and two counts), and where the arrays after the struct start.
const POINTERS_AT: usize = 32;
const ARRAYS_AT: usize = 48;

/// `rec` as darshan-util's struct for its module: the format crate's
/// encoding of it (the on-disk layout is the struct's, little-endian, DXT
/// segments without thread ids as 3.5.0's), with LUSTRE's two pointers
/// put in (the file has none: its arrays follow the counts) and
/// HEATMAP's set (the file holds them as zeros).
pub fn lay_out(rec: &Record) -> darshan_log::Result<Laid> {
    let mut bytes = Vec::new();
    encode::encode_record_dxt(rec, &mut bytes, false)?;
    let pointers = match &rec.extra {
        Extra::Lustre { components, .. } => {
            bytes.splice(POINTERS_AT..POINTERS_AT, [0; 16]);
            vec![(POINTERS_AT, ARRAYS_AT), (POINTERS_AT + 8, ARRAYS_AT + 72 * components.len())]
        }
        Extra::Heatmap { write_bins, .. } => {
            vec![(POINTERS_AT, ARRAYS_AT), (POINTERS_AT + 8, ARRAYS_AT + 8 * write_bins.len())]
        }
        _ => Vec::new(),
    };
    Ok(Laid { bytes, pointers })
}

/// The next record of module `id`, laid out: Ok(None) past the last
/// (and the call after starts again at the first, as darshan-util's).
fn next(st: &mut State, id: usize) -> Result<Option<Laid>, String> {
    let failed = |e| format!("failed to read {} records: {e}", modules::module_name(id));
    let rd = st.reader(id).map_err(failed)?;
    let mut rec = Record::new(id);
    if !rd.next_into(&mut rec).map_err(failed)? {
        st.ended(id);
        return Ok(None);
    }
    lay_out(&rec).map(Some).map_err(failed)
}

/// `laid` into the caller's buffer at `*buf` (darshan-util's size for one)
/// or a fresh `malloc` block put there; false when it does not fit or
/// there is no memory.
///
/// # Safety
/// `buf` is writable; `*buf` null or a buffer of DEF_MOD_BUF_SIZE bytes.
unsafe fn hand_out(laid: &Laid, buf: *mut *mut c_void) -> bool {
    // SAFETY: the caller's.
    let mut dst = unsafe { *buf }.cast::<u8>();
    if dst.is_null() {
        // SAFETY: malloc has no precondition.
        dst = unsafe { libc::malloc(laid.bytes.len().max(1)) }.cast();
        if dst.is_null() {
            return false;
        }
        // SAFETY: the caller's: writable.
        unsafe { buf.write(dst.cast()) };
    } else if laid.bytes.len() > DEF_MOD_BUF_SIZE {
        eprintln!("Error: a record is {} bytes, but DEF_MOD_BUF_SIZE is only {DEF_MOD_BUF_SIZE}", laid.bytes.len());
        return false;
    }
    // SAFETY: dst holds laid.bytes.len() bytes (sized above), apart from
    // ours; each pointer's slot lies within the struct's first 48 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(laid.bytes.as_ptr(), dst, laid.bytes.len());
        for &(at, to) in &laid.pointers {
            dst.add(at).cast::<*mut u8>().write_unaligned(dst.add(to));
        }
    }
    true
}

/// The next record of module `mod_idx` into `*buf` (a fresh `malloc`
/// block the caller frees, when `*buf` is null): 1, 0 past the last
/// record, -1 on an error (one line on stderr).
///
/// # Safety
/// `fd` is null or a live handle; `buf` is writable, `*buf` null or a
/// buffer of 81,920 bytes.
#[no_mangle]
pub unsafe extern "C" fn darshan_log_get_record(fd: *mut DarshanFd, mod_idx: c_int, buf: *mut *mut c_void) -> c_int {
    // SAFETY: the caller's.
    let Some(st) = (unsafe { state(fd) }) else { return -1 };
    let Some(id) = usize::try_from(mod_idx).ok().filter(|&i| i < KNOWN_MODULE_COUNT) else {
        eprintln!("Error: no module {mod_idx} in darshan-util");
        return -1;
    };
    if buf.is_null() {
        return -1;
    }
    if modules::READ_VERSIONS[id] == 0 {
        // APXC and APMPI (AutoPerf): their layouts are not the format
        // crate's (docs/deployment.md).
        eprintln!("Error: this libdarshan-util does not decode {} records.", modules::module_name(id));
        return -1;
    }
    crate::guarded(-1, || match next(st, id) {
        Ok(None) => 0,
        // SAFETY: the caller's.
        Ok(Some(laid)) => match unsafe { hand_out(&laid, buf) } {
            true => 1,
            false => -1,
        },
        Err(e) => {
            eprintln!("Error: {e}.");
            -1
        }
    })
}
