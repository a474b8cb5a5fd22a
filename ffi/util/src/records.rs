//! `darshan_log_get_record`: one record of a module, laid out as
//! darshan-util's structs are (`struct darshan_posix_file`, ...), old
//! versions up-converted and byte order made native by the format crate.
//! Variable-length records hold their arrays in the same block, after the
//! struct, and their pointers point there (LUSTRE's components and OSTs,
//! HEATMAP's bins), as darshan-util's do; DXT's segments follow its file
//! record, writes first.

use std::ffi::{c_int, c_void};

use darshan_log::modules::{self, KNOWN_MODULE_COUNT};
use darshan_log::{Extra, Record};

use crate::handle::{state, DarshanFd, State};
use crate::mem::Bytes;

/// darshan-util's buffer size for a record read into the caller's buffer.
const DEF_MOD_BUF_SIZE: usize = 81920;

/// A record laid out, and where in it a pointer to another place of the
/// same block goes: (pointer's offset, target's offset).
pub struct Laid {
    pub bytes: Vec<u8>,
    pub pointers: Vec<(usize, usize)>,
}

/// `rec` as darshan-util's struct for its module.
pub fn lay_out(rec: &Record) -> Laid {
    let mut b = Bytes::default();
    b.u64(rec.id).i64(rec.rank);
    let mut pointers = Vec::new();
    match &rec.extra {
        Extra::Lustre { components, ost_ids } => {
            let comps_at = 48;
            let osts_at = comps_at + 72 * components.len();
            b.i64(components.len() as i64).i64(ost_ids.len() as i64).u64(0).u64(0);
            pointers.extend([(32, comps_at), (40, osts_at)]);
            for c in components {
                b.i64s(&c.counters);
                b.raw(&c.pool_name);
            }
            b.i64s(ost_ids);
        }
        Extra::Heatmap { bin_width, write_bins, read_bins } => {
            b.f64(*bin_width).i64(write_bins.len() as i64).u64(0).u64(0);
            pointers.extend([(32, 48), (40, 48 + 8 * write_bins.len())]);
            b.i64s(write_bins).i64s(read_bins);
        }
        Extra::Dxt { shared_record, hostname, writes, reads } => {
            b.i64(*shared_record).raw(hostname).i64(writes.len() as i64).i64(reads.len() as i64);
            for s in writes.iter().chain(reads) {
                b.i64(s.offset).i64(s.length).f64(s.start_time).f64(s.end_time);
            }
        }
        extra => {
            if let Extra::FileRecId(file) = extra {
                b.u64(*file);
            }
            b.i64s(&rec.counters).f64s(&rec.fcounters);
            match extra {
                Extra::Dfs { pool_uuid, cont_uuid } => {
                    b.raw(pool_uuid).raw(cont_uuid);
                }
                Extra::Daos { pool_uuid, cont_uuid, oid_hi, oid_lo } => {
                    b.raw(pool_uuid).raw(cont_uuid).u64(*oid_hi).u64(*oid_lo);
                }
                Extra::Mdhim { server_histogram } => {
                    b.i64s(server_histogram);
                    if server_histogram.is_empty() {
                        b.i64(0);
                    }
                }
                _ => {}
            }
        }
    }
    Laid { bytes: b.0, pointers }
}

/// The next record of module `id`: Ok(None) past the last.
fn next(st: &mut State, id: usize) -> Result<Option<Record>, String> {
    let failed = |e| format!("failed to read {} records: {e}", modules::module_name(id));
    let rd = st.reader(id).map_err(failed)?;
    let mut rec = Record::new(id);
    Ok(rd.next_into(&mut rec).map_err(failed)?.then_some(rec))
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
    if buf.is_null() || modules::counter_names(id).0.is_empty() && !has_own_layout(id) {
        eprintln!("Error: the {} module's records cannot be read here", modules::module_name(id));
        return -1;
    }
    crate::guarded(-1, || match next(st, id) {
        Ok(None) => 0,
        // SAFETY: the caller's.
        Ok(Some(rec)) => match unsafe { hand_out(&lay_out(&rec), buf) } {
            true => 1,
            false => -1,
        },
        Err(e) => {
            eprintln!("Error: {e}.");
            -1
        }
    })
}

/// The modules whose records are not counters and fcounters alone.
fn has_own_layout(id: usize) -> bool {
    matches!(id, modules::LUSTRE | modules::HEATMAP | modules::DXT_POSIX | modules::DXT_MPIIO)
}
