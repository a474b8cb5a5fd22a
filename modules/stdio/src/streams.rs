//! `FILE*` -> record index, open addressing with tombstones, allocated
//! once; a one-entry cache makes the common case (one busy stream) cheap.

/// Room for 512 streams open at once (more go unrecorded).
const SLOTS: usize = 1024;
const EMPTY: usize = 0;
const GONE: usize = 1;

pub struct StreamMap {
    keys: Vec<usize>,
    vals: Vec<u32>,
    live: usize,
    last: (usize, u32),
}

impl StreamMap {
    pub const fn new() -> Self {
        StreamMap { keys: Vec::new(), vals: Vec::new(), live: 0, last: (EMPTY, 0) }
    }

    fn ensure(&mut self) {
        if self.keys.is_empty() {
            self.keys = vec![EMPTY; SLOTS];
            self.vals = vec![0; SLOTS];
        }
    }

    fn start(key: usize) -> usize {
        (key >> 4 ^ key >> 16) & (SLOTS - 1)
    }

    #[inline]
    pub fn get(&mut self, key: usize) -> Option<u32> {
        if key <= GONE || self.keys.is_empty() {
            return None;
        }
        if self.last.0 == key {
            return Some(self.last.1);
        }
        let mut i = Self::start(key);
        for _ in 0..SLOTS {
            match self.keys[i] {
                EMPTY => return None,
                k if k == key => {
                    self.last = (key, self.vals[i]);
                    return Some(self.vals[i]);
                }
                _ => i = (i + 1) & (SLOTS - 1),
            }
        }
        None
    }

    /// Map `key` to `val` (replacing an older mapping). Ignored when the
    /// table is half full: such a stream goes unrecorded.
    pub fn insert(&mut self, key: usize, val: u32) {
        if key <= GONE {
            return;
        }
        self.ensure();
        self.remove(key);
        if self.live * 2 >= SLOTS {
            return;
        }
        let mut i = Self::start(key);
        while self.keys[i] > GONE {
            i = (i + 1) & (SLOTS - 1);
        }
        self.keys[i] = key;
        self.vals[i] = val;
        self.live += 1;
    }

    pub fn remove(&mut self, key: usize) -> Option<u32> {
        if key <= GONE || self.keys.is_empty() {
            return None;
        }
        if self.last.0 == key {
            self.last = (EMPTY, 0);
        }
        let mut i = Self::start(key);
        for _ in 0..SLOTS {
            match self.keys[i] {
                EMPTY => return None,
                k if k == key => {
                    self.keys[i] = GONE;
                    self.live -= 1;
                    return Some(self.vals[i]);
                }
                _ => i = (i + 1) & (SLOTS - 1),
            }
        }
        None
    }

    pub fn clear(&mut self) {
        self.keys.iter_mut().for_each(|k| *k = EMPTY);
        self.live = 0;
        self.last = (EMPTY, 0);
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
}
