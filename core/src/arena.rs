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

impl RecordArena {
    /// A zeroed block of `bytes` (rounded down to whole words). Leaked on
    /// purpose: records live as long as the process.
    pub fn new(bytes: usize) -> RecordArena {
        let v: Vec<u64> = vec![0u64; bytes / 8];
        RecordArena { free: v.leak() }
    }

    pub fn from_static(block: &'static mut [u64]) -> RecordArena {
        RecordArena { free: block }
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
        let mut a = RecordArena::new(10_000);
        let p = a.reserve(88, 10); // 7040 bytes
        assert_eq!(p.capacity, 10);
        let s = a.reserve(31, 1024); // 2960 bytes left -> 11 records
        assert_eq!(s.capacity, 2960 / 248);
        let none = a.reserve(88, 5);
        assert_eq!(none.capacity, 0);
    }
}
