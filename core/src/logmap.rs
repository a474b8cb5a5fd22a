//! The crash-safe log (log-format §10): while the program runs, the
//! header, the job record, the name table and every module's records live
//! in one MAP_SHARED file, an uncompressed Darshan log of this process
//! that is complete after every call that returned. A killed job leaves
//! these files; `darshan-merge` turns them into one log.
//!
//! Layout: header (1328 B) | job struct + exe/mount string (4096 B) |
//! names (DARSHAN_NAMEMEM) | module records (DARSHAN_MODMEM), page-rounded.
//! The header is kept current: the name region's length grows with each
//! name, a module's region starts where its reservation starts (modules in
//! registration order) and grows by a record as each is created.
//!
//! Time counters hold clock ticks until shutdown; the job metadata says
//! how long a tick is (`ticks=<seconds>`), so a reader can convert.

use std::sync::Mutex;

use darshan_log::header::HEADER_SIZE;
use darshan_log::job::JOB_RECORD_SIZE;
use darshan_log::modules::{MAX_MODS, WRITE_VERSIONS};

/// Where the name table starts in the file.
pub const NAMES_OFF: usize = HEADER_SIZE + JOB_RECORD_SIZE;
/// comp_type of an uncompressed (mmap) log.
const COMP_NONE: u8 = 2;

pub struct LogMap {
    /// The file, kept open to give pages their blocks with plain writes.
    file: Option<std::fs::File>,
    header: &'static mut [u8],
    job: &'static mut [u8],
    /// Per module (and the names, at MAX_MODS): how far the file's blocks
    /// have been given by writes, and where the area ends.
    ahead: [(usize, usize); MAX_MODS + 1],
    /// Address of the file's first byte, and the mapping's length.
    pub base: usize,
    pub len: usize,
    pub path: String,
}

static MAP: Mutex<Option<LogMap>> = Mutex::new(None);
/// Whether there is a mapping: a process without one (records in memory)
/// never takes the lock when it creates a record or a name.
static ACTIVE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn with<R>(f: impl FnOnce(&mut LogMap) -> R) -> Option<R> {
    if !ACTIVE.load(std::sync::atomic::Ordering::Acquire) {
        return None;
    }
    MAP.lock().unwrap_or_else(|e| e.into_inner()).as_mut().map(f)
}

/// Bytes of the file for these limits (page-rounded).
pub fn file_len(name_mem: usize, mod_mem: usize) -> usize {
    (NAMES_OFF + name_mem.next_multiple_of(8) + mod_mem).next_multiple_of(4096)
}

/// The mapped file split into its parts: (names area, module area).
/// Writes the fixed header fields.
pub fn install(
    mem: &'static mut [u8],
    file: std::fs::File,
    name_mem: usize,
    path: String,
) -> (&'static mut [u8], &'static mut [u8]) {
    let base = mem.as_ptr() as usize;
    let len = mem.len();
    prefault(&file, 0, NAMES_OFF + 4096);
    let (header, rest) = mem.split_at_mut(HEADER_SIZE);
    let (job, rest) = rest.split_at_mut(JOB_RECORD_SIZE);
    let (names, mods) = rest.split_at_mut(name_mem.next_multiple_of(8));
    header[..4].copy_from_slice(b"3.41");
    header[8..16].copy_from_slice(&darshan_log::header::MAGIC.to_le_bytes());
    header[16] = COMP_NONE;
    header[32..40].copy_from_slice(&(NAMES_OFF as u64).to_le_bytes());
    let mut ahead = [(0, 0); MAX_MODS + 1];
    ahead[MAX_MODS] = (NAMES_OFF + 4096, NAMES_OFF + name_mem.next_multiple_of(8));
    *MAP.lock().unwrap_or_else(|e| e.into_inner()) =
        Some(LogMap { file: Some(file), header, job, ahead, base, len, path });
    ACTIVE.store(true, std::sync::atomic::Ordering::Release);
    (names, mods)
}

pub fn active() -> bool {
    with(|_| ()).is_some()
}

pub fn path() -> Option<String> {
    with(|m| m.path.clone())
}

/// Bytes of a module's reservation given their blocks at registration.
const PREFAULT: usize = 12 << 10;
/// Bytes given their blocks at a time as the records grow: one write of
/// 64 KiB costs far less than the 16 page faults it spares.
const AHEAD: usize = 64 << 10;

/// Give the still untouched bytes `off..off+len` of the file their blocks
/// with a plain write of zeros. A first write through the mapping into a
/// file block that has none costs ext4 about a millisecond (once per
/// file); the write path gives the block for a few microseconds, and the
/// pages the runtime touches at start-up (header, job, first names, the
/// first records of each module) are then cheap to fault in.
fn prefault(file: &std::fs::File, off: usize, len: usize) {
    use std::os::unix::fs::FileExt;
    static ZEROS: [u8; AHEAD] = [0; AHEAD];
    let mut done = 0;
    while done < len {
        let n = (len - done).min(ZEROS.len());
        if file.write_at(&ZEROS[..n], (off + done) as u64).is_err() {
            return;
        }
        done += n;
    }
}

fn put(h: &mut [u8], off: usize, v: u64) {
    h[off..off + 8].copy_from_slice(&v.to_le_bytes());
}

fn get(h: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(h[off..off + 8].try_into().unwrap_or([0; 8]))
}

/// The job record (struct + exe/mount string) as it stands.
pub fn set_job(encoded: &[u8]) {
    with(|m| {
        let n = encoded.len().min(JOB_RECORD_SIZE);
        m.job[..n].copy_from_slice(&encoded[..n]);
        m.job[n..].iter_mut().for_each(|b| *b = 0);
    });
}

/// A module reserved `bytes` of records starting at `addr` (untouched).
pub fn module_registered(id: usize, addr: usize, bytes: usize) {
    with(|m| {
        if id < MAX_MODS && addr >= m.base && addr < m.base + m.len {
            let off = addr - m.base;
            if let Some(f) = &m.file {
                prefault(f, off, bytes.min(PREFAULT));
            }
            m.ahead[id] = (off + bytes.min(PREFAULT), off + bytes);
            put(m.header, 48 + 16 * id, (addr - m.base) as u64);
            let ver = WRITE_VERSIONS.get(id).copied().unwrap_or(0);
            m.header[1072 + 4 * id..1076 + 4 * id].copy_from_slice(&ver.to_le_bytes());
        }
    });
}

/// A module created a record of `bytes`.
pub fn record_added(id: usize, bytes: usize) {
    with(|m| {
        if id < MAX_MODS {
            let off = 56 + 16 * id;
            let v = get(m.header, off) + bytes as u64;
            put(m.header, off, v);
            let end = get(m.header, 48 + 16 * id) as usize + v as usize;
            keep_ahead(m, id, end);
        }
    });
}

/// The bytes past `end` (never written yet) get their blocks before the
/// records reach them.
fn keep_ahead(m: &mut LogMap, slot: usize, end: usize) {
    let (ahead, limit) = m.ahead[slot];
    if end + 8192 > ahead && ahead < limit {
        let n = AHEAD.min(limit - ahead);
        if let Some(f) = &m.file {
            prefault(f, ahead.max(end), n);
        }
        m.ahead[slot].0 = ahead.max(end) + n;
    }
}

pub fn names_len(len: usize) {
    with(|m| {
        put(m.header, 40, len as u64);
        keep_ahead(m, MAX_MODS, NAMES_OFF + len);
    });
}

pub fn partial(flags: u64) {
    with(|m| put(m.header, 24, flags));
}

/// A forked child: its own file under the same addresses. The header is
/// written afresh (module regions where they were, empty); the caller
/// writes the job record again. Without a new file (error returned) the
/// child keeps a private mapping and the parent's file is never touched.
pub fn fork_child(path: String) -> Result<(), String> {
    let (base, len, saved) = with(|m| (m.base, m.len, m.header[48..HEADER_SIZE].to_vec())).ok_or("no mapping")?;
    let r = crate::arena::remap_new_file(base, len, &path);
    if let Ok(f) = &r {
        // As at start-up: the pages the child touches first get blocks.
        prefault(f, 0, NAMES_OFF + 4096);
        for i in 0..MAX_MODS {
            let off = get(&saved, 16 * i) as usize;
            if off != 0 {
                prefault(f, off, PREFAULT.min(len.saturating_sub(off)));
            }
        }
    }
    with(|m| {
        m.path = if r.is_ok() { path } else { String::new() };
        m.file = r.as_ref().ok().and_then(|f| f.try_clone().ok());
        m.header.iter_mut().for_each(|b| *b = 0);
        m.header[..4].copy_from_slice(b"3.41");
        m.header[8..16].copy_from_slice(&darshan_log::header::MAGIC.to_le_bytes());
        m.header[16] = COMP_NONE;
        put(m.header, 32, NAMES_OFF as u64);
        m.header[48..].copy_from_slice(&saved);
        for i in 0..MAX_MODS {
            put(m.header, 56 + 16 * i, 0);
            let off = get(&saved, 16 * i) as usize;
            if off != 0 {
                m.ahead[i].0 = (off + PREFAULT).min(m.ahead[i].1);
            }
        }
        m.ahead[MAX_MODS].0 = NAMES_OFF + 4096;
    });
    r.map(|_| ())
}

/// Shutdown is over and the final log is safe: the file goes.
pub fn remove() {
    if let Some(p) = with(|m| {
        m.file = None;
        std::mem::take(&mut m.path)
    }) {
        if !p.is_empty() {
            let _ = std::fs::remove_file(p);
        }
    }
}
