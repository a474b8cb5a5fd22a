//! `FILE*` -> record index: the core's handle table (open addressing in
//! pages of its own, doubled when three quarters full), taken at the
//! first stream recorded; a one-entry cache makes the common case (one
//! busy stream) cheap.

use darshan_core::handles::HandleTable;

/// Slots of the table at first (16 KiB, in pages: never the heap, as the
/// first stream is recorded inside a wrapper).
const FIRST_SLOTS: usize = 1024;

pub struct StreamMap {
    table: HandleTable,
    /// The stream last looked up and its record (key 0: none).
    last: (usize, u32),
}

impl StreamMap {
    pub const fn new() -> Self {
        StreamMap { table: HandleTable::new(), last: (0, 0) }
    }

    #[inline]
    pub fn get(&mut self, key: usize) -> Option<u32> {
        if key == 0 {
            return None;
        }
        if self.last.0 == key {
            return Some(self.last.1);
        }
        let i = self.table.get(key as u64)? as u32;
        self.last = (key, i);
        Some(i)
    }

    /// Map `key` to `val` (replacing an older mapping). A stream the
    /// table has no room for (its memory not to be had) goes unrecorded.
    pub fn insert(&mut self, key: usize, val: u32) {
        if key == 0 {
            return;
        }
        if !self.table.has_slots() {
            self.table = HandleTable::with_slots(FIRST_SLOTS);
        }
        if self.last.0 == key {
            self.last = (0, 0);
        }
        self.table.insert(key as u64, val as usize);
    }

    pub fn remove(&mut self, key: usize) -> Option<u32> {
        if self.last.0 == key {
            self.last = (0, 0);
        }
        let i = self.table.get(key as u64)? as u32;
        self.table.remove(key as u64);
        Some(i)
    }

    pub fn clear(&mut self) {
        self.table.clear();
        self.last = (0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_remove_reuse() {
        let mut m = StreamMap::new();
        for k in (0x1000..0x1000 + 500 * 16).step_by(16) {
            m.insert(k, k as u32);
        }
        assert_eq!(m.get(0x1000 + 16 * 7), Some(0x1000 + 16 * 7));
        assert_eq!(m.remove(0x1000 + 16 * 7), Some(0x1000 + 16 * 7));
        assert_eq!(m.get(0x1000 + 16 * 7), None);
        assert_eq!(m.get(0x1000 + 16 * 8), Some(0x1000 + 16 * 8));
        m.insert(0x1000 + 16 * 7, 5);
        assert_eq!(m.get(0x1000 + 16 * 7), Some(5));
    }

    /// The map held 512 streams open at once and ignored the rest: a
    /// program with 1,500 files open by fopen had 991 of their writes
    /// unrecorded (C 3.5.0 recorded all 1,500).
    #[test]
    fn streams_open_past_the_512th_went_unrecorded() {
        let mut m = StreamMap::new();
        let stream = |i: usize| 0x55d0_0000_0000 + 480 * i;
        for i in 0..5_000 {
            m.insert(stream(i), i as u32);
        }
        for i in 0..5_000 {
            assert_eq!(m.get(stream(i)), Some(i as u32), "stream {i}");
        }
        m.clear();
        assert_eq!(m.get(stream(7)), None);
    }
}
