//! A ring's registered files: index -> the record of the file the program
//! registered there (`IORING_REGISTER_FILES` and its updates), named when
//! it was registered: the ring holds the file itself, so a program may
//! close the descriptor at once (until 2026-12-05 the slot held the
//! descriptor, and requests on it after its close were unobserved, or
//! counted for whichever file took the number next). The kernel
//! takes up to 2^20 per ring, most of them often sparse (liburing's
//! `io_uring_register_files_sparse`, then updates at high indices), so the
//! table is taken in pages when a file is first named at an index, and
//! doubles to hold the highest one named: never for slots left empty.
//! Until 2026-12-05 a ring followed 256 slots, and a request on a file
//! registered past them counted as unobserved, the module partial.

use darshan_core::arena::ZeroedWords;

/// The kernel's IORING_MAX_FIXED_FILES: indices past it are refused.
pub const MOST_FIXED: usize = 1 << 20;
/// Slots taken at the first file named (one page).
const FIRST_SLOTS: usize = 1024;
/// IORING_REGISTER_FILES_SKIP: an update that leaves the slot as it is.
pub const SKIP: i32 = -2;

/// A slot's value for a descriptor that is not a file (a socket, a pipe):
/// its requests are not counted.
pub const NOT_A_FILE: u32 = u32::MAX;

/// What a registered-file slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Nothing we were told of (a direct descriptor the ring made itself).
    Empty,
    NotAFile,
    Record(usize),
}

/// Two slots per word, each the record + 1, NOT_A_FILE, or 0 (empty).
pub struct FixedFiles {
    words: ZeroedWords,
}

impl FixedFiles {
    pub const NONE: FixedFiles = FixedFiles { words: ZeroedWords::empty() };

    fn slots(&self) -> usize {
        2 * self.words.len()
    }

    /// What slot `idx` holds.
    pub fn get(&self, idx: i32) -> Slot {
        match self.value(idx) {
            0 => Slot::Empty,
            NOT_A_FILE => Slot::NotAFile,
            v => Slot::Record(v as usize - 1),
        }
    }

    /// Slot `idx`'s value: the record + 1, NOT_A_FILE, or 0 (empty).
    pub fn value(&self, idx: i32) -> u32 {
        let Some(&w) = usize::try_from(idx).ok().and_then(|i| self.words.get(i / 2)) else { return 0 };
        (w >> (32 * (idx % 2))) as u32
    }

    /// Slots to hold every file `fds` names from index `first`, if more
    /// than held (None: they fit, or lie past the kernel's limit).
    pub fn wants(&self, first: usize, fds: &[i32]) -> Option<usize> {
        let last = fds.iter().rposition(|&fd| fd >= 0)?;
        self.wants_upto(first.checked_add(last)?)
    }

    /// Slots to hold index `idx`, if more than held.
    pub fn wants_upto(&self, idx: usize) -> Option<usize> {
        let end = idx.checked_add(1)?;
        (end > self.slots() && end <= MOST_FIXED).then(|| end.next_power_of_two().max(FIRST_SLOTS))
    }

    /// Words for `slots` slots, taken in pages: outside the module's lock.
    pub fn words_for(slots: usize) -> Option<ZeroedWords> {
        ZeroedWords::in_pages(slots.div_ceil(2))
    }

    /// The slots moved into `bigger` if it holds more; the words no longer
    /// used (to be dropped outside the lock).
    pub fn grow(&mut self, mut bigger: ZeroedWords) -> ZeroedWords {
        if bigger.len() <= self.words.len() {
            return bigger;
        }
        bigger[..self.words.len()].copy_from_slice(&self.words);
        std::mem::replace(&mut self.words, bigger)
    }

    /// `fds` registered from index `first` (-1: an empty slot, SKIP: left
    /// as it was), each descriptor's slot value given by `value` (the
    /// record + 1, NOT_A_FILE, 0 if unnamed). False if a file lay past the
    /// slots held.
    pub fn register(&mut self, first: usize, fds: &[i32], value: impl Fn(i32) -> u32) -> bool {
        let mut all = true;
        for (k, &fd) in fds.iter().enumerate().filter(|&(_, &fd)| fd != SKIP) {
            let v = if fd >= 0 { value(fd) } else { 0 };
            all &= self.put(first + k, v) || fd < 0;
        }
        all
    }

    /// Slot `idx` holds `v` (a slot value, as [`FixedFiles::value`]
    /// gives); false if it lies past the slots held.
    pub fn put(&mut self, idx: usize, v: u32) -> bool {
        let Some(w) = self.words.get_mut(idx / 2) else { return false };
        *w = *w & !(0xffff_ffff << (32 * (idx % 2))) | u64::from(v) << (32 * (idx % 2));
        true
    }

    /// Slot `idx` empty (its file closed by the ring).
    pub fn empty(&mut self, idx: i32) {
        if let Ok(i) = usize::try_from(idx) {
            self.register(i, &[-1], |_| 0);
        }
    }

    /// Every slot empty (IORING_UNREGISTER_FILES); the words, to be
    /// dropped outside the lock.
    pub fn unregister(&mut self) -> ZeroedWords {
        std::mem::replace(&mut self.words, ZeroedWords::empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grown(f: &mut FixedFiles, first: usize, fds: &[i32]) {
        if let Some(n) = f.wants(first, fds) {
            drop(f.grow(FixedFiles::words_for(n).unwrap()));
        }
    }

    /// Descriptor d names record 100 + d; descriptor 7 is a socket.
    fn value(fd: i32) -> u32 {
        if fd == 7 {
            NOT_A_FILE
        } else {
            100 + fd as u32 + 1
        }
    }

    /// A sparse table with files at indices 0, 257 and 70,000: each found,
    /// the slots between empty, no page taken for an all-empty update.
    #[test]
    fn files_registered_past_the_256th_slot_were_not_followed() {
        let mut f = FixedFiles::NONE;
        assert_eq!(f.wants(0, &[-1; 300]), None, "empty slots take no pages");
        for (first, fd) in [(0, 10), (257, 11), (70_000, 12)] {
            grown(&mut f, first, &[fd]);
            assert!(f.register(first, &[fd], value));
        }
        assert_eq!([0, 257, 70_000].map(|i| f.get(i)), [110, 111, 112].map(Slot::Record));
        assert_eq!([1, 256, 258, 69_999, 70_001, -1].map(|i| f.get(i)), [Slot::Empty; 6]);
        assert_eq!(f.slots(), 131_072);
    }

    /// An update with SKIP leaves the slot; -1 empties it; a slot's
    /// neighbour in its word is untouched either way; a socket's slot is
    /// not a file's.
    #[test]
    fn an_update_skipping_a_slot_emptied_it() {
        let mut f = FixedFiles::NONE;
        grown(&mut f, 0, &[3, 4, 5, 7]);
        assert!(f.register(0, &[3, 4, 5, 7], value));
        assert!(f.register(0, &[SKIP, -1, 9], value));
        assert_eq!([0, 1, 2].map(|i| f.get(i)), [Slot::Record(103), Slot::Empty, Slot::Record(109)]);
        assert_eq!(f.get(3), Slot::NotAFile);
    }

    /// Past the kernel's limit nothing is taken and the file is refused;
    /// descriptor 0 is a file.
    #[test]
    fn a_slot_past_the_kernels_limit_is_refused() {
        let mut f = FixedFiles::NONE;
        assert_eq!(f.wants(MOST_FIXED, &[0]), None);
        assert!(!f.register(MOST_FIXED, &[0], value));
        grown(&mut f, 5, &[0]);
        assert!(f.register(5, &[0], value));
        assert_eq!(f.get(5), Slot::Record(100));
        drop(f.unregister());
        assert_eq!(f.get(5), Slot::Empty);
    }
}
