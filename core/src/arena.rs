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

impl RecordArena {
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
