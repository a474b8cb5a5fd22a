//! aio requests submitted and not yet returned: (aiocb address, record)
//! -> (submission tick, direction). Darshan keeps a list per record,
//! one entry per submission, and finds a request at `aio_return` in the
//! record its descriptor names then; a request never returned stays.
//! Open MPI's OMPIO has thousands in flight for one collective write, so
//! the table has no fixed size: an open-addressing table in pages of its
//! own (never the heap: it grows inside a wrapper), doubled when half
//! full, its pages taken and given back outside the module's lock
//! ([`Aio::wants`], [`Aio::grow`]). Deletion by backward shift
//! (`darshan_core::shift`), so that returned requests leave no tombstones.
//!
//! One entry per (aiocb, record): an aiocb submitted again before it was
//! returned replaces its earlier request, which Darshan keeps too and
//! finds at a second `aio_return` of the same aiocb, a request that had
//! already been returned; a program reusing one aiocb without returning
//! it would otherwise lengthen a probe run at every submission.

use darshan_core::arena::ZeroedWords;
use darshan_core::common::Tick;
use darshan_core::shift;

/// Words per entry: aiocb address, record index + direction, tick.
const WORDS: usize = 3;
/// Set in an entry's second word: the slot is taken.
const TAKEN: u64 = 1 << 63;
const WRITE: u64 = 1 << 62;
/// Slots at first, and at most (32 MiB: half a million requests in
/// flight; past that a request goes unrecorded, as in Darshan when its
/// allocation fails).
const FIRST_SLOTS: usize = 64;
const MOST_SLOTS: usize = 1 << 20;

/// The slot a request's (aiocb, record) hashes to in a table of `slots`.
fn home_in(key: usize, record: usize, slots: usize) -> usize {
    let h = (key as u64 ^ (record as u64).rotate_left(32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 32) as usize & (slots - 1)
}

/// The record index in an entry's second word.
fn record_of(meta: u64) -> usize {
    (meta & !(TAKEN | WRITE)) as usize
}

pub struct Aio {
    words: Option<ZeroedWords>,
    live: usize,
}

impl Aio {
    pub const fn new() -> Aio {
        Aio { words: None, live: 0 }
    }

    fn slots(&self) -> usize {
        self.words.as_ref().map_or(0, |w| w.len() / WORDS)
    }

    fn home(&self, key: usize, record: usize) -> usize {
        home_in(key, record, self.slots())
    }

    /// Slots a table must have to take one more request, if this one
    /// cannot (None: it can, or it may grow no further).
    pub fn wants(&self) -> Option<usize> {
        let n = self.slots();
        let want = if n == 0 { FIRST_SLOTS } else { 2 * n };
        (2 * (self.live + 1) > n && want <= MOST_SLOTS).then_some(want)
    }

    /// Words for a table of `slots`, taken in pages: outside the lock.
    pub fn words_for(slots: usize) -> Option<ZeroedWords> {
        ZeroedWords::in_pages(slots * WORDS)
    }

    /// Move the requests into `bigger` if it has more slots than this
    /// table; the words no longer used (to be dropped outside the lock).
    pub fn grow(&mut self, bigger: ZeroedWords) -> Option<ZeroedWords> {
        if bigger.len() / WORDS <= self.slots() {
            return Some(bigger);
        }
        let old = self.words.replace(bigger);
        self.live = 0;
        if let Some(w) = &old {
            for e in w.chunks_exact(WORDS).filter(|e| e[1] & TAKEN != 0) {
                self.insert(e[0] as usize, record_of(e[1]), e[1] & WRITE != 0, e[2] as Tick);
            }
        }
        old
    }

    /// Follow a request; false if the table has no room for it (the
    /// caller grows it, [`Aio::wants`], and tries again).
    pub fn insert(&mut self, key: usize, record: usize, write: bool, tm1: Tick) -> bool {
        let n = self.slots();
        if 2 * (self.live + 1) > n && self.find(key, record).is_none() {
            return false;
        }
        let mut s = self.home(key, record);
        let Some(w) = self.words.as_mut() else { return false };
        let meta = TAKEN | if write { WRITE } else { 0 } | record as u64;
        while w[s * WORDS + 1] & TAKEN != 0
            && (w[s * WORDS] != key as u64 || w[s * WORDS + 1] & !WRITE != TAKEN | record as u64)
        {
            s = (s + 1) & (n - 1);
        }
        self.live += usize::from(w[s * WORDS + 1] & TAKEN == 0);
        w[s * WORDS..s * WORDS + WORDS].copy_from_slice(&[key as u64, meta, tm1 as u64]);
        true
    }

    fn find(&self, key: usize, record: usize) -> Option<usize> {
        let (n, w) = (self.slots(), self.words.as_ref()?);
        let mut s = self.home(key, record);
        while w[s * WORDS + 1] & TAKEN != 0 {
            if w[s * WORDS] == key as u64 && w[s * WORDS + 1] & !WRITE == TAKEN | record as u64 {
                return Some(s);
            }
            s = (s + 1) & (n - 1);
        }
        None
    }

    /// The request of `key` on `record` (submission tick, whether a
    /// write), no longer followed.
    pub fn take(&mut self, key: usize, record: usize) -> Option<(Tick, bool)> {
        let s = self.find(key, record)?;
        let w = self.words.as_ref()?;
        let found = (w[s * WORDS + 2] as Tick, w[s * WORDS + 1] & WRITE != 0);
        self.remove_at(s);
        Some(found)
    }

    fn remove_at(&mut self, s: usize) {
        let n = self.slots();
        let Some(w) = self.words.as_mut() else { return };
        shift::remove(w, WORDS, s, |e| (e[1] & TAKEN != 0).then(|| home_in(e[0] as usize, record_of(e[1]), n)));
        self.live -= 1;
    }

    /// Nothing in flight (a forked child: its parent's requests are not
    /// its own). The pages are kept, given back to the system zeroed.
    pub fn clear(&mut self) {
        if std::mem::take(&mut self.live) > 0 {
            if let Some(w) = self.words.as_mut() {
                w.zero();
            }
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Insert, growing the table as the module does.
    fn add(t: &mut Aio, key: usize, record: usize, write: bool, tm1: Tick) {
        while !t.insert(key, record, write, tm1) {
            let want = t.wants().expect("room to grow");
            drop(t.grow(Aio::words_for(want).unwrap()));
        }
    }

    /// The table held 64 requests and dropped every one past them, for
    /// the rest of the process once 64 were never returned: Open MPI's
    /// OMPIO had 1.8 million writes of a collective counted as 56,278.
    #[test]
    fn requests_past_the_64th_in_flight_were_not_followed() {
        let mut t = Aio::new();
        for k in 1..=5000 {
            add(&mut t, k * 64, k % 3, k % 2 == 0, k as Tick);
        }
        assert_eq!(t.len(), 5000);
        for k in (1..=5000).rev() {
            assert_eq!(t.take(k * 64, k % 3), Some((k as Tick, k % 2 == 0)), "request {k}");
        }
        assert_eq!((t.len(), t.take(64, 1)), (0, None));
    }

    /// A request is found in the record its descriptor names at return,
    /// as Darshan looks in that record's list; one aiocb submitted again
    /// before its return replaces the earlier request of that record.
    #[test]
    fn a_request_belongs_to_its_record_and_an_aiocb_again_replaces_it() {
        let mut t = Aio::new();
        add(&mut t, 0x1000, 1, true, 10);
        add(&mut t, 0x1000, 2, false, 11);
        add(&mut t, 0x1000, 1, false, 12);
        assert_eq!(t.len(), 2);
        assert_eq!(t.take(0x1000, 3), None);
        assert_eq!(t.take(0x1000, 1), Some((12, false)));
        assert_eq!(t.take(0x1000, 1), None);
        assert_eq!(t.take(0x1000, 2), Some((11, false)));
    }

    /// Entries removed from the middle of probe runs that wrap around the
    /// table's end: every other one is still found (backward shift).
    #[test]
    fn removals_inside_wrapping_runs_lose_no_other_request() {
        let mut t = Aio::new();
        let keys: Vec<usize> = (0..31).map(|k| k * 0x1_0000 + 8).collect();
        for &k in &keys {
            add(&mut t, k, 0, true, k as Tick);
        }
        for &k in keys.iter().step_by(2) {
            assert!(t.take(k, 0).is_some());
        }
        for &k in keys.iter().skip(1).step_by(2) {
            assert_eq!(t.take(k, 0), Some((k as Tick, true)), "key {k:#x}");
        }
        assert_eq!(t.len(), 0);
    }

    /// A forked child follows none of its parent's requests.
    #[test]
    fn a_cleared_table_follows_nothing_and_takes_new_requests() {
        let mut t = Aio::new();
        add(&mut t, 8, 0, true, 1);
        t.clear();
        assert_eq!((t.len(), t.take(8, 0)), (0, None));
        add(&mut t, 16, 0, false, 2);
        assert_eq!(t.take(16, 0), Some((2, false)));
    }
}
