//! Open handles (MPI_File, hid_t) to record indices: an open-addressing
//! table of fixed size, allocated at attach, so that looking a handle up
//! in a wrapper's path never allocates.

/// Slot value of a removed entry (lookups go on past it).
const TOMB: usize = usize::MAX;

#[derive(Default)]
pub struct HandleTable {
    /// (handle, record index + 1); 0: free; TOMB: removed.
    slots: Vec<(usize, usize)>,
}

impl HandleTable {
    pub const fn new() -> HandleTable {
        HandleTable { slots: Vec::new() }
    }

    /// A table of `n` slots (a power of two), or an empty one (every
    /// lookup misses) if the memory cannot be had.
    pub fn with_slots(n: usize) -> HandleTable {
        let mut slots = Vec::new();
        if n > 0 && slots.try_reserve_exact(n).is_ok() {
            slots.resize(n.next_power_of_two(), (0, 0));
        }
        HandleTable { slots }
    }

    fn start(&self, h: usize) -> usize {
        (h ^ (h >> 17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52 & (self.slots.len() - 1)
    }

    fn slot_of(&self, h: usize) -> Option<usize> {
        let n = self.slots.len();
        if n == 0 {
            return None;
        }
        let mut s = self.start(h);
        for _ in 0..n {
            let (k, v) = self.slots[s];
            if v == 0 {
                return None;
            }
            if k == h && v != TOMB {
                return Some(s);
            }
            s = (s + 1) & (n - 1);
        }
        None
    }

    /// The record index of handle `h`.
    pub fn get(&self, h: usize) -> Option<usize> {
        Some(self.slots[self.slot_of(h)?].1 - 1)
    }

    /// Map `h` to record `i`; false if the table is full (the caller marks
    /// its data incomplete: calls on this handle go unrecorded).
    pub fn insert(&mut self, h: usize, i: usize) -> bool {
        if let Some(s) = self.slot_of(h) {
            self.slots[s].1 = i + 1;
            return true;
        }
        let n = self.slots.len();
        if n == 0 {
            return false;
        }
        let mut s = self.start(h);
        for _ in 0..n {
            if self.slots[s].1 == 0 || self.slots[s].1 == TOMB {
                self.slots[s] = (h, i + 1);
                return true;
            }
            s = (s + 1) & (n - 1);
        }
        false
    }

    pub fn remove(&mut self, h: usize) {
        if let Some(s) = self.slot_of(h) {
            self.slots[s].1 = TOMB;
        }
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = (0, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_map_unmap_and_reuse_slots() {
        let mut t = HandleTable::with_slots(8);
        for h in 0..8 {
            assert!(t.insert(h * 4096, h));
        }
        assert!(!t.insert(99, 1), "full");
        assert_eq!(t.get(3 * 4096), Some(3));
        t.remove(3 * 4096);
        assert_eq!(t.get(3 * 4096), None);
        assert_eq!(t.get(7 * 4096), Some(7), "found past a removed slot");
        assert!(t.insert(99, 1), "a removed slot is reused");
        assert_eq!(t.get(99), Some(1));
        assert_eq!(HandleTable::with_slots(0).get(1), None);
    }
}
