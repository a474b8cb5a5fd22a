//! Variable-length records (LUSTRE; DXT's layout is of the same kind): a
//! module's reservation used as a bump allocator. Each record is a run of
//! words in the log's layout starting with its id and rank; the module
//! says how long a record is from its own words (`len_of`), so the
//! records are back to back in the memory — and in the crash-safe file,
//! which a reader walks the same way.
//!
//! A record's size is fixed when it is made (Darshan sizes a LUSTRE
//! record from the layout first seen). When the reservation is full, a
//! new record is refused and the module marked partial.

use crate::contract::env::Env;
use crate::contract::records::Records;
use crate::store::arena::Slice;
use crate::store::id_index::IdIndex;
use crate::store::ledger::{Ledger, GRANT_CHUNK};

pub struct VarRecordSet {
    module: usize,
    rank: i64,
    /// Where grants and flags go (given at attach).
    ledger: Option<&'static Ledger>,
    /// The reservation; its backed prefix covers `..used`.
    words: Slice,
    used: usize,
    /// Words of DARSHAN_MODMEM granted at the first record (None before).
    granted: Option<usize>,
    count: usize,
    frozen: bool,
    /// Record id -> word offset: made at the first record (LUSTRE's is
    /// 512 KiB, which every process had, and only a file on Lustre gives
    /// it a record), for `index_for` entries (0 once asked for).
    index: IdIndex,
    index_for: usize,
    len_of: fn(&[u64]) -> usize,
    /// The shortest record: the index is sized for as many as fit.
    min_words: usize,
}

impl VarRecordSet {
    /// `len_of`: a record's length in words from its words (at least 2);
    /// `min_words`: the shortest a record can be.
    pub const fn new(module: usize, len_of: fn(&[u64]) -> usize, min_words: usize) -> Self {
        VarRecordSet {
            module,
            rank: 0,
            ledger: None,
            words: Slice::empty(0),
            used: 0,
            granted: None,
            count: 0,
            frozen: false,
            index: IdIndex::empty(),
            index_for: 0,
            len_of,
            min_words,
        }
    }

    /// Take the reserved memory; the index, sized for as many records
    /// of `min_words` as fit, is made at the first record.
    pub fn attach(&mut self, slice: Slice, env: &Env) {
        self.index = IdIndex::empty();
        self.index_for = slice.reserved_len() / self.min_words.max(2);
        self.words = slice;
        self.rank = env.rank;
        self.ledger = Some(env.ledger);
        self.used = 0;
        self.granted = None;
        self.count = 0;
    }

    /// The index, made now if it is not yet (asked for once, in pages:
    /// this is inside a wrapper); false if its memory cannot be had.
    fn indexed(&mut self) -> bool {
        let most = std::mem::take(&mut self.index_for);
        if most > 0 {
            self.index = IdIndex::in_pages(most).unwrap_or_else(IdIndex::empty);
        }
        self.index.capacity() > 0
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn rank(&self) -> i64 {
        self.rank
    }

    pub fn freeze(&mut self) {
        self.frozen = true;
    }

    pub fn frozen(&self) -> bool {
        self.frozen
    }

    /// The word offset of `id`'s record.
    pub fn find(&self, id: u64) -> Option<usize> {
        self.index.find(id)
    }

    /// A new zeroed record of `len` words for `id`: id, rank, then the
    /// words `head` (what `len_of` reads, so that the record is whole
    /// from the start); its word offset; None when frozen, when it exists, or when there is no
    /// room (the module is then marked partial). Records have no name of
    /// their own: they share another module's (LUSTRE: POSIX's).
    pub fn create(&mut self, id: u64, len: usize, head: &[u64]) -> Option<usize> {
        if self.frozen || self.find(id).is_some() || len < 2 + head.len() {
            return None;
        }
        let ledger = self.ledger?;
        if !self.indexed() {
            ledger.set_partial(self.module);
            return None;
        }
        let off = self.used;
        // DARSHAN_MODMEM a chunk at a time (GRANT_CHUNK records
        // of 512 words), as the fixed-size modules take it.
        let mut room = self.granted.unwrap_or(0);
        let need = off.saturating_add(len);
        while need > room && room < self.words.reserved_len() {
            let left = self.words.reserved_len() - room;
            let more = ledger.grant(8, left.min((GRANT_CHUNK * 512).max(len)));
            if more == 0 {
                break;
            }
            room = (room + more).min(self.words.reserved_len());
        }
        self.granted = Some(room);
        // Never past the module's own words, whatever was granted.
        let fits = need <= room && need <= self.words.reserved_len() && self.count < self.index.capacity();
        if !fits {
            if ledger.enabled(self.module) {
                if room < self.words.reserved_len() && need <= self.words.reserved_len() {
                    ledger.set_starved(self.module);
                } else {
                    ledger.set_partial(self.module);
                }
            }
            return None;
        }
        if !self.words.back(off + len) {
            ledger.set_partial(self.module);
            return None;
        }
        let w = &mut self.words[off..off + len];
        w.iter_mut().for_each(|x| *x = 0);
        w[0] = id;
        w[1] = self.rank as u64;
        w[2..2 + head.len()].copy_from_slice(head);
        self.used += len;
        self.count += 1;
        ledger.record_added(self.module, len * 8);
        self.index.insert(id, off);
        Some(off)
    }

    /// The record at word offset `off`.
    pub fn record(&self, off: usize) -> &[u64] {
        let len = (self.len_of)(&self.words[off..self.used]).min(self.used - off);
        &self.words[off..off + len]
    }

    pub fn record_mut(&mut self, off: usize) -> &mut [u64] {
        let len = (self.len_of)(&self.words[off..self.used]).min(self.used - off);
        &mut self.words[off..off + len]
    }

    /// Every record, in the order they were made.
    pub fn iter(&self) -> impl Iterator<Item = &[u64]> {
        split(&self.words[..self.used], self.len_of)
    }

    /// Forget every record (forked child); the memory stays reserved.
    pub fn clear(&mut self) {
        self.words[..self.used].iter_mut().for_each(|x| *x = 0);
        self.words.forget_backing();
        self.index.clear();
        self.used = 0;
        self.count = 0;
        self.frozen = false;
    }
}

/// The records of `run` (records back to back; `len` gives the length in
/// words of the one a slice starts with), whatever their lengths; a
/// length past the end (a damaged record) ends the run there.
pub fn split(mut run: &[u64], len: impl Fn(&[u64]) -> usize) -> impl Iterator<Item = &[u64]> {
    std::iter::from_fn(move || {
        if run.is_empty() {
            return None;
        }
        let (rec, rest) = run.split_at(len(run).clamp(1, run.len()));
        run = rest;
        Some(rec)
    })
}

impl Records for VarRecordSet {
    fn attach(&mut self, slice: Slice, env: &Env) {
        VarRecordSet::attach(self, slice, env)
    }
    /// Variable-length records hold no ticks: frozen, with the rank.
    fn finalize(&mut self, ctx: &crate::contract::records::FinalizeCtx, _ticks: std::ops::Range<usize>) {
        self.freeze();
        if self.rank != ctx.rank {
            Records::set_rank(self, ctx.rank);
        }
    }
    /// No reduction rules apply to records of different layouts; a module
    /// that has them marks its shared records itself (LUSTRE).
    fn reduce(
        &mut self,
        _shared: &[u64],
        _comm: &dyn crate::counting::collective::Comm,
        _rules: &dyn crate::contract::records::Reducer,
    ) {
    }
    fn fork_child(&mut self) {
        self.clear()
    }
    fn set_rank(&mut self, rank: i64) {
        self.rank = rank;
        let lens: Vec<usize> = self.iter().map(<[u64]>::len).collect();
        let mut off = 0;
        for len in lens {
            self.words[off + 1] = rank as u64;
            off += len;
        }
    }
    fn output_all(&self, emit: &mut dyn FnMut(&[u64])) {
        if self.used > 0 {
            emit(&self.words[..self.used]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::arena::RecordArena;

    fn len_of(w: &[u64]) -> usize {
        2 + w.get(2).copied().unwrap_or(0) as usize + 1
    }

    #[test]
    fn records_of_different_sizes_are_back_to_back_and_found_again() {
        let mut arena = RecordArena::new(4096).unwrap();
        let mut set = VarRecordSet::new(8, len_of, 3);
        set.attach(arena.reserve(16, 4), &Env::for_tests());
        let a = set.create(10, 4, &[1]).unwrap();
        let b = set.create(20, 6, &[3]).unwrap();
        assert_eq!((a, b), (0, 4));
        assert_eq!(set.find(20), Some(4));
        assert!(set.create(20, 6, &[3]).is_none(), "an id is made once");
        let lens: Vec<usize> = set.iter().map(|r| r.len()).collect();
        assert_eq!(lens, vec![4, 6]);
        set.set_rank(-1);
        assert!(set.iter().all(|r| r[1] == u64::MAX));
    }

    #[test]
    fn an_idle_lustre_module_took_half_a_mib_of_index_in_every_process() {
        let mut arena = RecordArena::new(1 << 20).unwrap();
        let mut set = VarRecordSet::new(8, len_of, 3);
        set.attach(arena.reserve(512, 200), &Env::for_tests());
        assert_eq!(set.index.capacity(), 0, "no index before the first record");
        assert_eq!(set.find(7), None);
        set.create(7, 4, &[1]).unwrap();
        assert!(set.index.capacity() >= 512 * 200 / 3, "sized for the shortest records that fit");
        assert_eq!(set.find(7), Some(0));
    }

    #[test]
    fn a_record_past_the_reservation_is_refused() {
        let mut arena = RecordArena::new(4096).unwrap();
        let mut set = VarRecordSet::new(8, len_of, 3);
        set.attach(arena.reserve(4, 2), &Env::for_tests());
        assert!(set.create(1, 5, &[2]).is_some());
        assert!(set.create(2, 4, &[1]).is_none(), "8 words reserved, 5 used");
        assert!(set.create(3, 3, &[0]).is_some());
        set.clear();
        assert!(set.is_empty() && set.find(1).is_none());
    }
}
