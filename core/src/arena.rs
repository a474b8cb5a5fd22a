//! Record memory: one block of `DARSHAN_MODMEM` bytes from which modules
//! reserve their slices, first come first served, as Darshan does.
//!
//! Records are kept as 64-bit words in the exact on-disk layout (id, rank,
//! counters, fcounters as f64 bits), so the block can later be backed by a
//! MAP_SHARED file (crash-safe logs) and written out without conversion.
//! The block is allocated zeroed, so pages cost memory only once touched.

pub struct RecordArena {
    free: &'static mut [u64],
}

/// A module's reservation: room for `capacity` records of `rec_words` words.
pub struct Slice {
    pub words: &'static mut [u64],
    pub rec_words: usize,
    pub capacity: usize,
}

impl Slice {
    pub const fn empty(rec_words: usize) -> Slice {
        Slice { words: &mut [], rec_words, capacity: 0 }
    }
    #[inline]
    pub fn record(&self, i: usize) -> &[u64] {
        &self.words[i * self.rec_words..(i + 1) * self.rec_words]
    }
    #[inline]
    pub fn record_mut(&mut self, i: usize) -> &mut [u64] {
        &mut self.words[i * self.rec_words..(i + 1) * self.rec_words]
    }
}

/// A zeroed block of `n` words that lives as long as the process, or None
/// if the allocator refuses (an absurd DARSHAN_MODMEM must not abort the
/// program, which `vec![0; n]` would do). Zeroed allocation of a large
/// block maps fresh pages: memory is used only where records are written.
#[allow(unsafe_code)]
pub(crate) fn zeroed_words(n: usize) -> Option<&'static mut [u64]> {
    if n == 0 {
        return Some(&mut []);
    }
    let layout = std::alloc::Layout::array::<u64>(n).ok()?;
    // SAFETY: the layout has a non-zero size. alloc_zeroed returns null or
    // a block of that layout whose bytes are all zero, which is a valid
    // [u64; n]; it is never freed, so the 'static borrow stays valid.
    let p = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<u64>();
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` is non-null, aligned for u64 and valid for `n` words, and
    // no other reference to the block exists.
    Some(unsafe { std::slice::from_raw_parts_mut(p, n) })
}

/// Create `path` (exclusively, mode 0644), size it to `len` bytes and map
/// it shared: the crash-safe log (log-format §10). The mapping lives as
/// long as the process. An error line if any step fails.
#[allow(unsafe_code)]
pub fn map_new_file(path: &str, len: usize) -> Result<(&'static mut [u8], std::fs::File), String> {
    let file = create_sized(path, len)?;
    use std::os::unix::io::AsRawFd;
    // SAFETY: a fresh shared mapping of a file we just sized to `len`
    // bytes; the kernel picks the address.
    let p = unsafe {
        libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0)
    };
    if p == libc::MAP_FAILED {
        let _ = std::fs::remove_file(path);
        return Err(format!("cannot map {path}: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: `p` maps `len` bytes, readable and writable, zero-filled (a
    // new file), never unmapped; no other reference to it exists.
    Ok((unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) }, file))
}

/// In a forked child: put a new file `path` under the mapping at `base`
/// (`len` bytes), so that the child's records go to its own file and never
/// into its parent's. The old contents are not copied (the child starts
/// afresh). On failure the child keeps a private copy instead.
#[allow(unsafe_code)]
pub fn remap_new_file(base: usize, len: usize, path: &str) -> Result<std::fs::File, String> {
    use std::os::unix::io::AsRawFd;
    let made = create_sized(path, len);
    let (fd, flags) = match &made {
        Ok(f) => (f.as_raw_fd(), libc::MAP_SHARED | libc::MAP_FIXED),
        Err(_) => (-1, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED),
    };
    // SAFETY: `base..base+len` is our own mapping (made by map_new_file);
    // MAP_FIXED replaces it in place, so every slice into it stays valid
    // and now refers to the new pages.
    let p = unsafe { libc::mmap(base as *mut libc::c_void, len, libc::PROT_READ | libc::PROT_WRITE, flags, fd, 0) };
    if p == libc::MAP_FAILED {
        return Err(format!("cannot map {path}: {}", std::io::Error::last_os_error()));
    }
    made
}

/// The words of a byte block that starts 8-byte aligned (a mapping's
/// module area); None if it does not.
#[allow(unsafe_code)]
pub fn as_words(bytes: &'static mut [u8]) -> Option<&'static mut [u64]> {
    // SAFETY: every bit pattern is a valid u64; align_to_mut only
    // reinterprets the aligned middle part.
    let (head, words, _) = unsafe { bytes.align_to_mut::<u64>() };
    head.is_empty().then_some(words)
}

/// Free bytes for unprivileged users on the file system holding `dir`.
#[allow(unsafe_code)]
fn free_bytes(dir: &str) -> Option<u64> {
    let c = std::ffi::CString::new(dir).ok()?;
    // SAFETY: zeroed statvfs is a valid out-parameter; `c` is NUL-terminated.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    (unsafe { libc::statvfs(c.as_ptr(), &mut st) } == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

#[allow(unsafe_code)]
fn create_sized(path: &str, len: usize) -> Result<std::fs::File, String> {
    use std::os::unix::fs::OpenOptionsExt;
    // The file is sparse, but every page a record touches must have room:
    // refuse a size the file system could not hold.
    let dir = std::path::Path::new(path).parent().and_then(|p| p.to_str()).unwrap_or(".");
    if let Some(free) = free_bytes(if dir.is_empty() { "." } else { dir }) {
        if len as u64 > free {
            return Err(format!("cannot create {path}: {len} bytes wanted, {free} free"));
        }
    }
    use std::os::unix::io::AsRawFd;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(path)
        .map_err(|e| format!("cannot create {path}: {e}"))?;
    if let Err(e) = f.set_len(len as u64) {
        let _ = std::fs::remove_file(path);
        return Err(format!("cannot size {path}: {e}"));
    }
    let fd = f.as_raw_fd();
    // Reserve the blocks now: with a sparse file, a record written when
    // the disk is full would raise SIGBUS in the program. Not on tmpfs,
    // where reserving means allocating (and zeroing) all of the memory
    // up front; nor where the file system cannot (EOPNOTSUPP).
    // SAFETY: a zeroed statfs is a valid out-parameter for our descriptor.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let tmpfs = unsafe { libc::fstatfs(fd, &mut st) } == 0 && st.f_type == libc::TMPFS_MAGIC;
    // SAFETY: `fd` is our open descriptor; the range is the file's size.
    let r = if tmpfs { 0 } else { unsafe { libc::fallocate(fd, 0, 0, len as libc::off_t) } };
    let err = std::io::Error::last_os_error();
    if r != 0 && err.raw_os_error() != Some(libc::EOPNOTSUPP) {
        let _ = std::fs::remove_file(path);
        return Err(format!("cannot reserve {len} bytes for {path}: {err}"));
    }
    Ok(f)
}

impl RecordArena {
    /// Records in memory someone else provides (the crash-safe mapping).
    pub fn from_words(words: &'static mut [u64]) -> RecordArena {
        RecordArena { free: words }
    }

    /// A zeroed block of `bytes` (rounded down to whole words), or None if
    /// it cannot be had. Never freed: records live as long as the process.
    pub fn new(bytes: usize) -> Option<RecordArena> {
        Some(RecordArena { free: zeroed_words(bytes / 8)? })
    }

    pub fn remaining_bytes(&self) -> usize {
        self.free.len() * 8
    }

    /// Reserve up to `want` records of `rec_words` words; fewer if less
    /// memory remains (possibly zero).
    pub fn reserve(&mut self, rec_words: usize, want: usize) -> Slice {
        if rec_words == 0 {
            return Slice::empty(rec_words);
        }
        let n = want.min(self.free.len() / rec_words);
        let block = std::mem::take(&mut self.free);
        let (mine, rest) = block.split_at_mut(n * rec_words);
        self.free = rest;
        Slice { words: mine, rec_words, capacity: n }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_are_first_come_first_served_and_bounded() {
        // black_box: an unused allocation may be optimised away as if it succeeded.
        assert!(std::hint::black_box(RecordArena::new(1 << 60)).is_none(), "an absurd size is refused, not fatal");
        let mut a = RecordArena::new(10_000).unwrap();
        let p = a.reserve(88, 10); // 7040 bytes
        assert_eq!(p.capacity, 10);
        let s = a.reserve(31, 1024); // 2960 bytes left -> 11 records
        assert_eq!(s.capacity, 2960 / 248);
        let none = a.reserve(88, 5);
        assert_eq!(none.capacity, 0);
    }
}
