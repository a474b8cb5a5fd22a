//! One record of a module as `darshan_log_get_record` (get.rs) hands it
//! out: laid out as darshan-util's structs are (`struct
//! darshan_posix_file`, ...), old versions up-converted and byte order
//! made native by the format crate. Variable-length records hold their
//! arrays in the same block, after the struct, and their pointers point
//! there (LUSTRE's components and OSTs, HEATMAP's bins), as darshan-util's
//! do; DXT's segments follow its file record, writes first.

use std::ffi::c_void;

use darshan_log::modules;
use darshan_log::{encode, Extra, Record};

use crate::reading::State;

/// darshan-util's buffer size for a record read into the caller's buffer.
pub const DEF_MOD_BUF_SIZE: usize = 81920;

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

/// Bytes of one record of `module` as darshan-util lays it out: the
/// format crate's encoding of an empty one (0 for a module it cannot
/// encode).
pub fn record_size(module: usize) -> usize {
    let mut b = Vec::new();
    encode::encode_record(&Record::zeroed(module, 0, 0), &mut b).map_or(0, |_| b.len())
}

/// Most entries of an array a record may say it holds (LUSTRE's
/// components and OSTs, HEATMAP's bins, DXT's segments, MDHIM's servers):
/// no caller's count makes the library read further.
const MOST_ENTRIES: i64 = 1 << 24;

/// `n` bytes at `p`, copied.
///
/// # Safety
/// `p` points to `n` readable bytes.
unsafe fn bytes_at(p: *const u8, n: usize) -> Vec<u8> {
    // SAFETY: the caller's.
    unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
}

/// The 8-byte word at byte `at` of `p`.
///
/// # Safety
/// `p` points to at least `at + 8` readable bytes.
unsafe fn word(p: *const u8, at: usize) -> i64 {
    // SAFETY: the caller's.
    unsafe { p.add(at).cast::<i64>().read_unaligned() }
}

/// The pointer the record holds at byte `at`, unless it is null.
///
/// # Safety
/// As [`word`].
unsafe fn pointer(p: *const u8, at: usize) -> Option<*const u8> {
    // SAFETY: the caller's.
    let q = unsafe { word(p, at) } as *const u8;
    (!q.is_null()).then_some(q)
}

/// A count the record holds at byte `at`, if it is one to follow.
///
/// # Safety
/// As [`word`].
unsafe fn count(p: *const u8, at: usize) -> Option<usize> {
    // SAFETY: the caller's.
    let n = unsafe { word(p, at) };
    (0..=MOST_ENTRIES).contains(&n).then_some(n as usize)
}

/// The file's bytes of the record darshan-util's struct at `rec` holds:
/// the struct for a module of counters alone; LUSTRE's and HEATMAP's
/// arrays fetched through their pointers; DXT's segments and MDHIM's
/// servers from after the struct, where darshan-util puts them.
///
/// # Safety
/// `rec` is a record of module `id` in darshan-util's layout, its arrays
/// as long as its counts say.
pub(crate) unsafe fn file_bytes(id: usize, rec: *const u8) -> Option<Vec<u8>> {
    Some(match id {
        // SAFETY: the caller's: the struct, its counts, and the arrays its
        // two pointers point to, as long as the counts say.
        modules::LUSTRE => unsafe {
            let (comps, osts) = (count(rec, 16)?, count(rec, 24)?);
            let mut b = bytes_at(rec, POINTERS_AT);
            b.extend(bytes_at(pointer(rec, POINTERS_AT)?, 72 * comps));
            b.extend(bytes_at(pointer(rec, POINTERS_AT + 8)?, 8 * osts));
            b
        },
        // SAFETY: as LUSTRE's: the struct, its bin count, both bin arrays.
        modules::HEATMAP => unsafe {
            let bins = count(rec, 24)?;
            let mut b = bytes_at(rec, POINTERS_AT);
            b.extend([0; 16]);
            b.extend(bytes_at(pointer(rec, POINTERS_AT)?, 8 * bins));
            b.extend(bytes_at(pointer(rec, POINTERS_AT + 8)?, 8 * bins));
            b
        },
        // SAFETY: the caller's: the struct (104 bytes), then its writes and
        // reads, 32 bytes each, in the same block.
        modules::DXT_POSIX | modules::DXT_MPIIO => unsafe {
            let segments = count(rec, 88)?.checked_add(count(rec, 96)?)?;
            bytes_at(rec, 104 + 32 * segments.min(MOST_ENTRIES as usize))
        },
        // SAFETY: the caller's: 88 bytes of counters, then one word per
        // server (counter 4; at least one).
        modules::MDHIM => unsafe { bytes_at(rec, 88 + 8 * count(rec, 16 + 8 * 4)?.max(1)) },
        // SAFETY: the caller's: a struct of the module's fixed size.
        _ => unsafe { bytes_at(rec, record_size(id)) },
    })
}

/// The record darshan-util's struct at `rec` holds, decoded by the format
/// crate.
///
/// # Safety
/// As [`file_bytes`].
pub unsafe fn record_at(id: usize, rec: *const u8) -> darshan_log::Result<Record> {
    let bad = || darshan_log::LogError::BadRecord {
        module: modules::module_name(id).to_string(),
        msg: "not a record of the module".into(),
    };
    if rec.is_null() {
        return Err(bad());
    }
    // SAFETY: the caller's.
    let bytes = unsafe { file_bytes(id, rec) }.ok_or_else(bad)?;
    let mut first = None;
    decode_each(id, &bytes, |r| first = Some(r.clone()))?;
    first.ok_or_else(bad)
}

/// Each record of module `id` in `bytes` (as the file lays them out, one
/// after another: darshan-util's structs of counters alone, or what
/// [`file_bytes`] makes of the others), decoded by the format crate at
/// the module's newest version and handed to `each`.
pub fn decode_each(id: usize, bytes: &[u8], mut each: impl FnMut(&Record)) -> darshan_log::Result<()> {
    let src: &[u8] = bytes;
    let map = darshan_log::RegionMap { off: 0, len: bytes.len() as u64 };
    let region = darshan_log::region::RegionReader::new(&src, map, darshan_log::Compression::None, "records");
    let mut rd = darshan_log::decode::ModuleReader::new(region, id, modules::WRITE_VERSIONS[id], false)?;
    let mut r = Record::new(id);
    while rd.next_into(&mut r)? {
        each(&r);
    }
    Ok(())
}

/// The next record of module `id`, laid out: Ok(None) past the last
/// (and the call after starts again at the first, as darshan-util's).
pub(crate) fn next(st: &mut State, id: usize) -> Result<Option<Laid>, String> {
    if st.log().header.mod_map[id].len == 0 {
        // darshan-util's: a module the log has no region of has no
        // records (C's darshan-merge.c asks every module).
        return Ok(None);
    }
    let failed = |e| format!("failed to read {} records: {e}", modules::module_name(id));
    let rd = st.reader(id).map_err(failed)?;
    let mut rec = Record::new(id);
    if !rd.next_into(&mut rec).map_err(failed)? {
        st.ended(id);
        return Ok(None);
    }
    lay_out(&rec).map(Some).map_err(failed)
}

/// `rec` laid out into the `room` bytes at `dst`, its pointers pointing
/// into them; false when it does not fit.
///
/// # Safety
/// `dst` holds `room` writable bytes.
pub unsafe fn place(rec: &Record, dst: *mut u8, room: usize) -> bool {
    // SAFETY: the caller's.
    lay_out(rec).is_ok_and(|laid| unsafe { place_laid(&laid, dst, room) })
}

/// `laid` into the `room` bytes at `dst`, its pointers pointing into
/// them; false when it does not fit.
///
/// # Safety
/// `dst` holds `room` writable bytes, apart from `laid`'s.
unsafe fn place_laid(laid: &Laid, dst: *mut u8, room: usize) -> bool {
    if laid.bytes.len() > room {
        return false;
    }
    // SAFETY: the caller's: room for laid.bytes; each pointer's slot lies
    // within the struct's first 48 bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(laid.bytes.as_ptr(), dst, laid.bytes.len());
        for &(at, to) in &laid.pointers {
            dst.add(at).cast::<*mut u8>().write_unaligned(dst.add(to));
        }
    }
    true
}

/// `laid` into the caller's buffer at `*buf` (darshan-util's size for one)
/// or a fresh `malloc` block put there; false when it does not fit or
/// there is no memory.
///
/// # Safety
/// `buf` is writable; `*buf` null or a buffer of DEF_MOD_BUF_SIZE bytes.
pub(crate) unsafe fn hand_out(laid: &Laid, buf: *mut *mut c_void) -> bool {
    // SAFETY: the caller's.
    let mut dst = unsafe { *buf }.cast::<u8>();
    let mut room = DEF_MOD_BUF_SIZE;
    if dst.is_null() {
        room = laid.bytes.len().max(1);
        // SAFETY: malloc has no precondition.
        dst = unsafe { libc::malloc(room) }.cast();
        if dst.is_null() {
            return false;
        }
        // SAFETY: the caller's: writable.
        unsafe { buf.write(dst.cast()) };
    } else if laid.bytes.len() > room {
        eprintln!("Error: a record is {} bytes, but DEF_MOD_BUF_SIZE is only {DEF_MOD_BUF_SIZE}", laid.bytes.len());
        return false;
    }
    // SAFETY: dst holds `room` bytes (sized above), apart from ours.
    unsafe { place_laid(laid, dst, room) }
}
