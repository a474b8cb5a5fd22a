//! A zeroed block of words reserved as a size and taken at its first
//! use: tables most processes never use (H5D's and PNETCDF_VAR's access
//! tuples, io_uring's requests in flight) held address space in every
//! process, which `mlockall` made resident and `ulimit -v` counted. The
//! block is taken in pages ([`ZeroedWords::in_pages`]), never from the
//! heap, since the first use is inside a wrapper, and it is asked for
//! once: a block that cannot be had is not asked for again on every call.

use crate::store::arena::ZeroedWords;

#[derive(Default)]
pub struct LazyWords {
    words: Option<ZeroedWords>,
    /// Words to take at the first use (0: none, or already asked for).
    want: usize,
}

impl LazyWords {
    /// No words, ever.
    pub const fn none() -> LazyWords {
        LazyWords { words: None, want: 0 }
    }

    /// `n` words, taken at the first [`LazyWords::get_or_take`].
    pub const fn of(n: usize) -> LazyWords {
        LazyWords { words: None, want: n }
    }

    /// The words, taken now if they were not; None if none are wanted or
    /// they could not be had.
    pub fn get_or_take(&mut self) -> Option<&mut ZeroedWords> {
        if self.words.is_none() && self.want > 0 {
            self.words = ZeroedWords::in_pages(std::mem::take(&mut self.want));
        }
        self.words.as_mut()
    }

    /// The words if they were taken.
    pub fn taken(&self) -> Option<&ZeroedWords> {
        self.words.as_ref()
    }

    pub fn taken_mut(&mut self) -> Option<&mut ZeroedWords> {
        self.words.as_mut()
    }

    /// Address space taken so far, in bytes.
    pub fn bytes(&self) -> usize {
        self.taken().map_or(0, |w| w.len() * 8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_taken_at_its_first_use_in_pages_of_its_own_and_asked_for_once() {
        let mut w = LazyWords::of(10);
        assert_eq!((w.bytes(), w.taken().is_none()), (0, true), "nothing before the first use");
        let p = w.get_or_take().unwrap().as_ptr() as usize;
        assert_eq!(p % 4096, 0, "80 bytes in a page of their own, not from the heap");
        w.get_or_take().unwrap()[9] = 7;
        assert_eq!((w.bytes(), w.taken().unwrap()[9]), (80, 7), "the same block again");
        let mut absurd = LazyWords::of(usize::MAX / 4);
        assert!(absurd.get_or_take().is_none() && absurd.get_or_take().is_none());
        assert!(LazyWords::none().get_or_take().is_none());
    }
}
