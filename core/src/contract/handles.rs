//! Open handles (MPI_File, hid_t) to record indices: an open-addressing
//! table allocated at attach, so that looking a handle up in a wrapper's
//! path never allocates. It doubles, in pages of its own, when three
//! quarters full: a program may hold any number of handles open (HDF5
//! datasets by the thousand), as Darshan's hash tables do.

use crate::contract::module::ModuleState;
use crate::contract::records::{RecordRt, RecordSet, Records};
use crate::store::table_words::TableWords;

/// Slot value of a removed entry (lookups go on past it).
const TOMB: u64 = u64::MAX;

/// Value bit of a handle a forked child inherited: its record index was
/// the parent's, and means nothing in the child's fresh record set.
const INHERITED: u64 = 1 << 63;

/// Slots a table may grow to (64 MiB): past that a new handle goes
/// unrecorded and the module's data is marked incomplete.
const MOST_SLOTS: usize = 1 << 22;

/// Counters of the handles in the table by a few bits of their hash (see
/// `HandleTable::filter`).
const FILTER: usize = 64;

/// A counter that reached this stays there: it no longer knows how many
/// handles it stands for, so it never says "none" again.
const STUCK: u8 = u8::MAX;

/// Slots of two words: the handle, and the record index + 1 (0: free,
/// TOMB: removed). Zeroed memory is an empty table, so the table is a
/// fresh mapping whose pages cost nothing until a handle lands there: a
/// process that never opens an HDF5 file pays no page fault for it.
pub struct HandleTable {
    slots: Option<TableWords>,
    /// Handles in the table: a forked child with none marks nothing (the
    /// scan read every page of the table, 16 page faults per child).
    live: usize,
    /// How many handles in the table have each value of the hash's top six
    /// bits: a counting filter, 64 bytes in the module's state.
    /// Most lookups are of handles that were never put here: h5py closes
    /// each dataspace, type and property list through `H5Idec_ref`, seven
    /// per sample read, and each asked the dataset and file tables. A
    /// zero answers them without touching the table, whose slot for a
    /// fresh handle is a random line of 64 KiB that a Python process has
    /// long pushed out of the cache (0.5-0.8 % of a sample's time in that
    /// one load).
    filter: [u8; FILTER],
    /// Slots it may grow to.
    most: usize,
}

impl Default for HandleTable {
    fn default() -> HandleTable {
        HandleTable::new()
    }
}

impl HandleTable {
    pub const fn new() -> HandleTable {
        HandleTable { slots: None, live: 0, filter: [0; FILTER], most: MOST_SLOTS }
    }

    /// The table of a module given room for `records` records: `slots`
    /// slots, none when the module keeps no records (disabled).
    pub fn for_records(records: usize, slots: usize) -> HandleTable {
        HandleTable::with_slots(if records > 0 { slots } else { 0 })
    }

    /// A table of `n` slots (rounded up to a power of two), or an empty one
    /// (every lookup misses) if the memory cannot be had.
    pub fn with_slots(n: usize) -> HandleTable {
        if n == 0 {
            return HandleTable::new();
        }
        // In pages, never the heap, whatever the size: a table that grows
        // inside a wrapper gives its old words back there.
        HandleTable { slots: TableWords::in_pages(2 * n.next_power_of_two()), ..HandleTable::new() }
    }

    /// Whether the table has slots (not so before they are taken, when
    /// the module keeps no records, or when its memory was not to be had).
    pub fn has_slots(&self) -> bool {
        self.slots.is_some()
    }

    /// Whether no handle is in the table (inherited ones count).
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    fn len(&self) -> usize {
        self.slots.as_ref().map_or(0, |w| w.len() / 2)
    }

    fn mixed(h: u64) -> u64 {
        (h ^ (h >> 17)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The first slot looked at for `h`. Handles that differ only in their
    /// two low bits start in the same group of four slots, one cache line:
    /// HDF5 numbers the ids of a kind one after another, and h5py opens a
    /// dataset per sample read, so four opens in a row land in one line
    /// instead of four random lines of a 64 KiB table that the program's
    /// own work has pushed out of the cache. The rest of the hash spreads
    /// the groups as before (aligned pointers and fds probe no further).
    /// A group index of 12 bits serves tables of up to 16,384 slots; a
    /// table grown past that takes as many more as it needs.
    fn start(&self, h: u64) -> usize {
        let group_bits = (self.len().trailing_zeros() as usize).saturating_sub(2).max(12);
        (((Self::mixed(h >> 2) >> (64 - group_bits)) << 2) as usize | (h & 3) as usize) & (self.len() - 1)
    }

    /// `h`'s counter in the filter: the top six bits of `h`'s mixed hash
    /// (the slot's start hashes `h >> 2`: handles of one group of four
    /// slots still fall on different counters).
    fn counter(h: u64) -> usize {
        (Self::mixed(h) >> 58) as usize
    }

    /// False only if `h` is certainly not in the table.
    fn present(&self, h: u64) -> bool {
        self.filter[Self::counter(h)] != 0
    }

    fn slot_of(&self, h: u64) -> Option<usize> {
        if !self.present(h) {
            return None;
        }
        let w = self.slots.as_ref()?;
        let n = self.len();
        let mut s = self.start(h);
        for _ in 0..n {
            #[cfg(test)]
            tests::PROBES.with(|p| p.set(p.get() + 1));
            let (k, v) = (w[2 * s], w[2 * s + 1]);
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

    /// The record index of handle `h` (an MPI_File, a hid_t).
    pub fn get(&self, h: u64) -> Option<usize> {
        let w = self.slots.as_ref()?;
        let v = w[2 * self.slot_of(h)? + 1];
        (v & INHERITED == 0).then(|| v as usize - 1)
    }

    /// Whether `h` was open in the parent when this (forked) process was
    /// made and has not been opened or closed since.
    pub fn inherited(&self, h: u64) -> bool {
        let Some(w) = self.slots.as_ref() else { return false };
        self.slot_of(h).is_some_and(|s| w[2 * s + 1] & INHERITED != 0)
    }

    /// In a forked child: every handle is kept, marked as the parent's
    /// ([`get`](Self::get) misses it, [`inherited`](Self::inherited) says
    /// so), so that a stream the child goes on using can be told from one
    /// it never had.
    pub fn mark_inherited(&mut self) {
        if self.live == 0 {
            return;
        }
        let Some(w) = self.slots.as_mut() else { return };
        for s in 0..w.len() / 2 {
            let v = w[2 * s + 1];
            if v != 0 && v != TOMB {
                w[2 * s + 1] = v | INHERITED;
            }
        }
    }

    /// Map `h` to record `i`; false if the table is full (the caller marks
    /// its data incomplete: calls on this handle go unrecorded).
    pub fn insert(&mut self, h: u64, i: usize) -> bool {
        if let Some(s) = self.slot_of(h) {
            if let Some(w) = self.slots.as_mut() {
                w[2 * s + 1] = i as u64 + 1;
            }
            return true;
        }
        if 4 * (self.live + 1) > 3 * self.len() {
            self.grow();
        }
        let n = self.len();
        let mut s = if n == 0 { return false } else { self.start(h) };
        let Some(w) = self.slots.as_mut() else { return false };
        for _ in 0..n {
            if w[2 * s + 1] == 0 || w[2 * s + 1] == TOMB {
                w[2 * s] = h;
                w[2 * s + 1] = i as u64 + 1;
                self.live += 1;
                let c = &mut self.filter[Self::counter(h)];
                *c = c.saturating_add(1);
                return true;
            }
            s = (s + 1) & (n - 1);
        }
        false
    }

    /// Twice the slots, the handles moved over (tombstones left behind).
    /// Inside a wrapper, under the module's lock: the new table is taken
    /// in pages (never the heap) and the old one given back, two system
    /// calls at each doubling, a handful in a process's life. A table
    /// switched off (no slots: the module keeps no records) stays so.
    #[cold]
    fn grow(&mut self) {
        let n = self.len();
        if n == 0 || 2 * n > self.most {
            return;
        }
        let Some(words) = TableWords::in_pages(4 * n) else { return };
        let Some(old) = self.slots.replace(words) else { return };
        for e in old.chunks_exact(2).filter(|e| e[1] != 0 && e[1] != TOMB) {
            let mut s = self.start(e[0]);
            let Some(w) = self.slots.as_mut() else { return };
            while w[2 * s + 1] != 0 {
                s = (s + 1) & (2 * n - 1);
            }
            w[2 * s..2 * s + 2].copy_from_slice(e);
        }
    }

    /// The record of handle `h` if it is still live in `set` (not dropped
    /// by a fork).
    pub fn record<R: RecordRt>(&self, h: u64, set: &RecordSet<R>) -> Option<usize> {
        let i = self.get(h)?;
        set.live(i).then_some(i)
    }

    /// The close of handle `h`: its record, if still live in `set`, and
    /// the handle unmapped.
    pub fn close<R: RecordRt>(&mut self, h: u64, set: &RecordSet<R>) -> Option<usize> {
        let i = self.record(h, set)?;
        self.remove(h);
        Some(i)
    }

    /// Map `h` to record `i` of `set`; when the table is full the handle
    /// goes unrecorded and the module's data is marked incomplete.
    pub fn open<R: RecordRt>(&mut self, h: u64, i: usize, set: &RecordSet<R>) {
        if !self.insert(h, i) {
            set.mark_partial();
        }
    }

    /// Unmap `h`. Its slot becomes a tombstone, and when the next slot is
    /// free, so do it and the tombstones just before it: a program that
    /// opens and closes handle after handle (h5py opens a dataset per
    /// access) would otherwise leave the table all tombstones, and every
    /// lookup of an unknown handle would scan all of it.
    pub fn remove(&mut self, h: u64) {
        let Some(s) = self.slot_of(h) else { return };
        let n = self.len();
        let Some(w) = self.slots.as_mut() else { return };
        w[2 * s + 1] = TOMB;
        self.live -= 1;
        let c = &mut self.filter[Self::counter(h)];
        if *c != STUCK {
            *c -= 1;
        }
        if w[2 * ((s + 1) & (n - 1)) + 1] != 0 {
            return;
        }
        let mut t = s;
        while w[2 * t + 1] == TOMB {
            w[2 * t] = 0;
            w[2 * t + 1] = 0;
            t = (t + n - 1) & (n - 1);
        }
    }

    /// Forget every handle (a forked child): the table's pages given back
    /// ([`TableWords::zero`]: only if it was written), not written over.
    pub fn clear(&mut self) {
        if let Some(w) = self.slots.as_mut() {
            w.zero();
        }
        self.live = 0;
        self.filter = [0; FILTER];
    }
}

/// The state of a module whose records are found through open handles
/// and that keeps nothing else (H5F, PnetCDF files): its records and its
/// handle table, attached and reset together.
pub struct HandleRecords<R> {
    pub set: RecordSet<R>,
    pub handles: HandleTable,
    /// Handles the table holds (when the module has room for records).
    slots: usize,
}

impl<R: RecordRt> HandleRecords<R> {
    /// Records of `module` found through a table of `slots` handles.
    pub const fn new(module: usize, slots: usize) -> HandleRecords<R> {
        HandleRecords { set: RecordSet::new(module), handles: HandleTable::new(), slots }
    }

    /// Map handle `h` to record `i` (see [`HandleTable::open`]).
    pub fn open(&mut self, h: u64, i: usize) {
        self.handles.open(h, i, &self.set);
    }
}

/// A handle-based module's whole state through the module contract's
/// default hooks (its `Module` impl is `spec` and `records`): the records,
/// and the handle table sized for them at attach (none if the module got
/// no room) and emptied in a forked child.
impl<R: RecordRt + Send> ModuleState for HandleRecords<R> {
    fn records(&mut self) -> Option<&mut dyn Records> {
        Some(&mut self.set)
    }
    fn attach_own(&mut self, capacity: usize) {
        self.handles = HandleTable::for_records(capacity, self.slots);
    }
    fn fork_own(&mut self) {
        self.handles.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::HashMap;

    thread_local! {
        /// Slots [`HandleTable::slot_of`] read on this thread.
        pub static PROBES: Cell<usize> = const { Cell::new(0) };
    }

    fn probes() -> usize {
        PROBES.with(Cell::get)
    }

    /// h5py's pattern: one dataset open at a time while dataspaces, types
    /// and property lists (never in the table) are closed around it.
    #[test]
    fn handles_never_put_in_the_table_were_looked_for_in_it() {
        let mut t = HandleTable::with_slots(4096);
        let dataset = |i: u64| (5 << 56) | i;
        let other = |i: u64| (4 << 56) | i;
        let (mut looked, mut shared) = (0, 0);
        for i in 1..5_000u64 {
            assert!(t.insert(dataset(i), 0));
            for j in 0..7 {
                let before = probes();
                assert_eq!(t.get(other(7 * i + j)), None);
                looked += usize::from(probes() > before);
                shared += usize::from(HandleTable::counter(other(7 * i + j)) == HandleTable::counter(dataset(i)));
            }
            assert_eq!(t.get(dataset(i)), Some(0));
            t.remove(dataset(i));
        }
        assert_eq!(looked, shared, "only a handle whose counter a live one shares is looked for");
        assert!(shared < 35_000 / 32, "{shared} of 35,000 shared a counter with the one live handle");
    }

    /// The mean and longest probe of `keys` all put in a table of 4096.
    fn probes_of(keys: impl Iterator<Item = u64>) -> (f64, usize) {
        let mut t = HandleTable::with_slots(4096);
        let (mut all, mut most, mut n) = (0, 0, 0);
        for h in keys {
            assert!(t.insert(h, 0));
            let before = probes();
            assert_eq!(t.get(h), Some(0));
            let p = probes() - before;
            (all, most, n) = (all + p, most.max(p), n + 1);
        }
        (all as f64 / n as f64, most)
    }

    /// Consecutive HDF5 ids share cache lines; handles of other shapes
    /// (aligned pointers, fds, PnetCDF ids) still find their slot in a
    /// probe or two at a quarter full.
    #[test]
    fn consecutive_hdf5_ids_were_spread_over_a_cache_line_each() {
        let t = HandleTable::with_slots(4096);
        let line = |h: u64| t.start(h) / 4;
        let ids: Vec<u64> = (1..=400u64).map(|i| (5 << 56) | i).collect();
        let lines: std::collections::HashSet<usize> = ids.iter().map(|&h| line(h)).collect();
        assert!(lines.len() <= 101, "400 consecutive ids on {} lines", lines.len());
        for (name, keys) in [
            (
                "HDF5 ids of four kinds",
                (1..=250u64).flat_map(|i| [1u64, 2, 5, 7].map(|k| (k << 56) | i)).collect::<Vec<_>>(),
            ),
            ("16-byte aligned pointers", (0..1000u64).map(|i| 0x55d0_0000_0000 + 16 * i).collect()),
            ("page-aligned addresses", (0..1000u64).map(|i| 0x7f00_0000_0000 + 4096 * i).collect()),
            ("fds", (3..1003u64).collect()),
            ("PnetCDF ids", (0..1000u64).map(|i| i << 16).collect()),
        ] {
            let (mean, most) = probes_of(keys.into_iter());
            assert!(mean < 2.0 && most <= 12, "{name}: mean {mean:.2}, longest {most}");
        }
    }

    /// Every answer is the one a map gives, through counters that share
    /// handles, one stuck at its maximum, removals, re-insertions, a
    /// forked child's marks and its clearing.
    #[test]
    fn the_filter_never_hides_a_handle_that_is_in_the_table() {
        let mut t = HandleTable::with_slots(2048);
        let mut model: HashMap<u64, usize> = HashMap::new();
        // 300 handles on counter 0: it sticks at 255.
        let same: Vec<u64> = (1u64..).filter(|&h| HandleTable::counter(h) == 0).take(300).collect();
        for (i, &h) in same.iter().enumerate() {
            assert!(t.insert(h, i));
            model.insert(h, i);
        }
        assert_eq!(t.filter[0], STUCK);
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for step in 0..200_000usize {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let h = if x.is_multiple_of(3) { same[(x >> 8) as usize % same.len()] } else { (x >> 8) % 3_000 };
            match (x >> 40) % 4 {
                0 | 1 if model.len() < 1_500 => {
                    assert!(t.insert(h, step));
                    model.insert(h, step);
                }
                2 => {
                    t.remove(h);
                    model.remove(&h);
                }
                _ => {}
            }
            assert_eq!(t.get(h), model.get(&h).copied(), "step {step}, handle {h}");
        }
        for h in (0..3_000).chain(same.iter().copied()) {
            assert_eq!(t.get(h), model.get(&h).copied(), "handle {h}");
        }
        t.mark_inherited();
        for h in (0..3_000).chain(same.iter().copied()) {
            assert_eq!(t.get(h), None);
            assert_eq!(t.inherited(h), model.contains_key(&h), "handle {h} inherited");
        }
        t.clear();
        assert!(t.filter.iter().all(|&c| c == 0), "a child's table starts with empty counters");
    }

    #[test]
    fn handles_map_unmap_and_reuse_slots() {
        let mut t = HandleTable { most: 8, ..HandleTable::with_slots(8) };
        for h in 0..8 {
            assert!(t.insert(h as u64 * 4096, h));
        }
        assert!(!t.insert(99, 1), "full, and it may not grow");
        assert_eq!(t.get(3 * 4096), Some(3));
        t.remove(3 * 4096);
        assert_eq!(t.get(3 * 4096), None);
        assert_eq!(t.get(7 * 4096), Some(7), "found past a removed slot");
        assert!(t.insert(99, 1), "a removed slot is reused");
        assert_eq!(t.get(99), Some(1));
        assert_eq!(HandleTable::with_slots(0).get(1), None);
        t.clear();
        assert_eq!(t.get(99), None, "a forked child starts with no handle");
        assert!(t.insert(5, 2) && t.get(5) == Some(2), "and can map new ones");
        t.clear();
        assert_eq!(t.get(5), None, "which its own child does not inherit");
    }

    /// The table held 4,096 handles: an HDF5 program with 5,000 datasets
    /// open had the last 904 unrecorded (H5D marked incomplete; C 3.5.0
    /// recorded all 5,000). It doubles instead; inherited marks, removed
    /// handles and the filter survive the move.
    #[test]
    fn handles_past_the_tables_size_went_unrecorded() {
        let mut t = HandleTable::with_slots(4096);
        let dataset = |i: u64| (5 << 56) | i;
        for i in 0..5_000u64 {
            assert!(t.insert(dataset(i), i as usize), "handle {i}");
        }
        assert!(t.len() >= 8192);
        for i in (0..5_000u64).step_by(3) {
            t.remove(dataset(i));
        }
        t.mark_inherited();
        for i in 5_000..40_000u64 {
            assert!(t.insert(dataset(i), i as usize), "handle {i}");
        }
        for i in 0..40_000u64 {
            let (got, inherited) = (t.get(dataset(i)), t.inherited(dataset(i)));
            let want = (i >= 5_000).then_some(i as usize);
            assert_eq!((got, inherited), (want, i < 5_000 && i % 3 != 0), "handle {i}");
        }
        assert_eq!(t.get(dataset(40_000)), None);
    }

    fn used_slots(t: &HandleTable) -> usize {
        let w = t.slots.as_ref().unwrap();
        (0..t.len()).filter(|&s| w[2 * s + 1] != 0).count()
    }

    #[test]
    fn handles_opened_and_closed_one_after_another_leave_no_tombstones() {
        let mut t = HandleTable::with_slots(64);
        for h in 1..10_000u64 {
            assert!(t.insert(h << 20, 1));
            t.remove(h << 20);
        }
        assert_eq!(used_slots(&t), 0, "every lookup of an unknown handle would scan them");
        // With handles still open around them, removals keep the others.
        for h in 0..40u64 {
            assert!(t.insert(h, h as usize));
        }
        for h in (0..40u64).step_by(2) {
            t.remove(h);
        }
        for h in 0..40u64 {
            assert_eq!(t.get(h), (h % 2 == 1).then_some(h as usize), "handle {h}");
        }
        for h in (1..40u64).step_by(2) {
            t.remove(h);
        }
        assert_eq!(used_slots(&t), 0);
    }
}
