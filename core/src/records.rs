//! A module's record set: its slice of record memory, an id -> record
//! index, and per-record runtime state `R` that is not written to the log.
//! Creating a record registers its name with the core; when either the
//! module's records or the name memory run out, the module is marked
//! partial and the call goes unrecorded (the program is not affected).

use crate::arena::Slice;
use crate::runtime;

pub struct RecordSet<R> {
    module: usize,
    rank: i64,
    slice: Slice,
    count: usize,
    frozen: bool,
    keys: &'static mut [u64],
    /// Record index + 1 (0: empty).
    vals: &'static mut [u64],
    pub rt: Vec<R>,
}

impl<R: Default> RecordSet<R> {
    pub const fn new(module: usize) -> Self {
        RecordSet {
            module,
            rank: 0,
            slice: Slice::empty(0),
            count: 0,
            frozen: false,
            keys: &mut [],
            vals: &mut [],
            rt: Vec::new(),
        }
    }

    /// Take the reserved memory; allocate the index and runtime state now
    /// so that no later call allocates. If that memory cannot be had, the
    /// module keeps no records (and says so with its partial flag).
    pub fn attach(&mut self, mut slice: Slice, rank: i64) {
        let cap = slice.capacity;
        let slots = (cap * 2).max(16).next_power_of_two();
        // Zeroed memory: no pages touched until used, and no abort if an
        // absurd MAX_RECORDS asks for more than there is.
        let index = crate::arena::zeroed_words(slots).zip(crate::arena::zeroed_words(slots));
        let mut rt = Vec::new();
        match index {
            Some((k, v)) if rt.try_reserve_exact(cap).is_ok() => {
                self.keys = k;
                self.vals = v;
            }
            _ => {
                slice.capacity = 0;
                self.keys = &mut [];
                self.vals = &mut [];
            }
        }
        self.rt = rt;
        self.slice = slice;
        self.rank = rank;
        self.count = 0;
    }

    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether record `i` exists and may still be updated.
    #[inline]
    pub fn live(&self, i: usize) -> bool {
        i < self.count && !self.frozen
    }

    /// Shutdown: no more updates or new records (calls still in flight on
    /// other threads find the set frozen and record nothing).
    pub fn freeze(&mut self) {
        self.frozen = true;
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn rank(&self) -> i64 {
        self.rank
    }

    fn slot(&self, id: u64) -> usize {
        let mask = self.keys.len() - 1;
        // Id 0 would read as an empty slot; store it as 1 << 63.
        let key = if id == 0 { 1 << 63 } else { id };
        let mut i = (key as usize ^ (key >> 29) as usize) & mask;
        while self.keys[i] != 0 && self.keys[i] != key {
            i = (i + 1) & mask;
        }
        i
    }

    #[inline]
    pub fn find(&self, id: u64) -> Option<usize> {
        if self.keys.is_empty() {
            return None;
        }
        let v = self.vals[self.slot(id)];
        (v != 0).then(|| v as usize - 1)
    }

    /// The record for `id`, created (named `name`) if new. None when the
    /// module has no room or the name table is full (partial flag set).
    pub fn find_or_create(&mut self, id: u64, name: &[u8]) -> Option<usize> {
        if self.frozen {
            return None;
        }
        if let Some(i) = self.find(id) {
            return Some(i);
        }
        if self.count >= self.slice.capacity {
            runtime::set_partial(self.module);
            return None;
        }
        if !runtime::register_name(self.module, id, name) {
            return None;
        }
        let i = self.count;
        let w = self.slice.record_mut(i);
        w.iter_mut().for_each(|x| *x = 0);
        w[0] = id;
        w[1] = self.rank as u64;
        self.rt.push(R::default());
        self.count += 1;
        let s = self.slot(id);
        self.keys[s] = if id == 0 { 1 << 63 } else { id };
        self.vals[s] = i as u64 + 1;
        Some(i)
    }

    #[inline]
    pub fn words(&mut self, i: usize) -> &mut [u64] {
        self.slice.record_mut(i)
    }

    /// Record words and runtime state of record `i` together.
    #[inline]
    pub fn both(&mut self, i: usize) -> (&mut [u64], &mut R) {
        (self.slice.record_mut(i), &mut self.rt[i])
    }

    #[inline]
    pub fn record(&self, i: usize) -> &[u64] {
        self.slice.record(i)
    }

    /// Forget every record (forked child); the memory stays reserved.
    pub fn clear(&mut self) {
        let n = self.count * self.slice.rec_words;
        self.slice.words[..n].iter_mut().for_each(|x| *x = 0);
        self.keys.iter_mut().for_each(|k| *k = 0);
        self.vals.iter_mut().for_each(|v| *v = 0);
        self.rt.clear();
        self.count = 0;
        self.frozen = false;
    }

    /// Emit the records for which `keep` holds, in runs of consecutive
    /// records (all of them in one run when every record is kept).
    pub fn output(&self, emit: &mut dyn FnMut(&[u64]), keep: impl Fn(&[u64]) -> bool) {
        let rw = self.slice.rec_words;
        let mut start = 0;
        for i in 0..=self.count {
            if i == self.count || !keep(self.slice.record(i)) {
                if i > start {
                    emit(&self.slice.words[start * rw..i * rw]);
                }
                start = i + 1;
            }
        }
    }

    /// Apply `f` to every record's words (shutdown conversions).
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut [u64])) {
        for i in 0..self.count {
            f(self.slice.record_mut(i));
        }
    }
}
