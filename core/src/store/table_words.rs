//! A lookup table's zeroed words that know whether they were ever
//! written: every write goes through `DerefMut`, which marks them, so no
//! write can be missed. `zero()` of a table not written since it was
//! zeroed costs nothing: a forked child clears every module's record
//! index and handle table, most of them never used, and giving back each
//! one's pages was a system call (16 per child of a shell).

use crate::store::arena::ZeroedWords;

pub struct TableWords {
    words: ZeroedWords,
    written: bool,
}

impl TableWords {
    pub const fn empty() -> TableWords {
        TableWords { words: ZeroedWords::empty(), written: false }
    }

    /// `n` zeroed words, or None if they cannot be had.
    pub fn new(n: usize) -> Option<TableWords> {
        ZeroedWords::new(n).map(TableWords::from)
    }

    /// The same in pages, never the heap ([`ZeroedWords::in_pages`]).
    pub fn in_pages(n: usize) -> Option<TableWords> {
        ZeroedWords::in_pages(n).map(TableWords::from)
    }
}

impl From<ZeroedWords> for TableWords {
    fn from(words: ZeroedWords) -> TableWords {
        TableWords { words, written: false }
    }
}

impl TableWords {
    /// Every word zero again ([`ZeroedWords::zero`]), unless none was
    /// written since they last were.
    pub fn zero(&mut self) {
        if std::mem::take(&mut self.written) {
            self.words.zero();
        }
    }
}

impl std::ops::Deref for TableWords {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.words
    }
}

impl std::ops::DerefMut for TableWords {
    fn deref_mut(&mut self) -> &mut [u64] {
        self.written = true;
        &mut self.words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// zero() leaves words never written since the last zero() (a forked
    /// child's untouched tables); words written again after one must
    /// still be zeroed by the next, in a grandchild.
    #[test]
    fn words_written_after_a_zero_are_zeroed_again() {
        let mut t = TableWords::new(1024).unwrap();
        t.zero();
        t[3] = 7;
        t.zero();
        t.zero();
        assert_eq!(t[3], 0);
        t[5] = 8;
        t.zero();
        assert!(t.iter().all(|&w| w == 0));
    }
}
