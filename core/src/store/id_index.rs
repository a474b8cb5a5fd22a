//! Record id -> position, for a module's records (`RecordSet`: record
//! index; `VarRecordSet`: word offset). Open addressing, key and value
//! side by side (a lookup or insert touches one cache line and one page),
//! in zeroed mapped memory allocated once at start-up: slot `s` holds the
//! id at `2s` and the position + 1 at `2s + 1` (0: empty). A slot is
//! taken when its value is set, so every id, 0 included, is its own key.

use crate::store::table_words::TableWords;

pub struct IdIndex {
    words: TableWords,
}

impl IdIndex {
    pub const fn empty() -> IdIndex {
        IdIndex { words: TableWords::empty() }
    }

    /// An index for up to `most` entries (at most half full), or None if
    /// its memory cannot be had (an absurd MAX_RECORDS must not abort).
    pub fn for_entries(most: usize) -> Option<IdIndex> {
        Self::sized(most, TableWords::new)
    }

    /// The same in pages, never the heap: an index made at a first
    /// record, inside a wrapper.
    pub fn in_pages(most: usize) -> Option<IdIndex> {
        Self::sized(most, TableWords::in_pages)
    }

    fn sized(most: usize, take: fn(usize) -> Option<TableWords>) -> Option<IdIndex> {
        let slots = most.checked_mul(2)?.max(16).next_power_of_two();
        slots.checked_mul(2).and_then(take).map(|words| IdIndex { words })
    }

    /// Entries it takes while at most half full.
    pub fn capacity(&self) -> usize {
        self.words.len() / 4
    }

    /// The word offset of `id`'s slot (its key; the value follows).
    fn slot(&self, id: u64) -> usize {
        let mask = self.words.len() / 2 - 1;
        let mut i = (id as usize ^ (id >> 29) as usize) & mask;
        while self.words[2 * i + 1] != 0 && self.words[2 * i] != id {
            i = (i + 1) & mask;
        }
        2 * i
    }

    #[inline]
    pub fn find(&self, id: u64) -> Option<usize> {
        if self.words.is_empty() {
            return None;
        }
        let v = self.words[self.slot(id) + 1];
        (v != 0).then(|| v as usize - 1)
    }

    /// Map `id` to `pos` (the caller keeps it at most half full).
    pub fn insert(&mut self, id: u64, pos: usize) {
        let s = self.slot(id);
        self.words[s] = id;
        self.words[s + 1] = pos as u64 + 1;
    }

    /// Empty again, its pages given back if it was written (a forked
    /// child).
    pub fn clear(&mut self) {
        self.words.zero();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index once stored id 0 as 1 << 63 (0 marked an empty slot), so
    /// the two ids were one record.
    #[test]
    fn ids_0_and_1_shl_63_are_two_entries() {
        let mut ix = IdIndex::for_entries(16).unwrap();
        for (i, id) in [0u64, 1 << 63, 1, u64::MAX].into_iter().enumerate() {
            assert_eq!(ix.find(id), None);
            ix.insert(id, i);
        }
        for (i, id) in [0u64, 1 << 63, 1, u64::MAX].into_iter().enumerate() {
            assert_eq!(ix.find(id), Some(i), "id {id:#x}");
        }
        assert_eq!(ix.find(2), None);
        ix.clear();
        assert_eq!(ix.find(0), None);
    }
}
