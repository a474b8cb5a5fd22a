//! Open handles (MPI_File, hid_t) to record indices: an open-addressing
//! table of fixed size, allocated at attach, so that looking a handle up
//! in a wrapper's path never allocates.

use crate::contract::module::ModuleState;
use crate::contract::records::{RecordRt, RecordSet, Records};
use crate::store::table_words::TableWords;

/// Slot value of a removed entry (lookups go on past it).
const TOMB: u64 = u64::MAX;

/// Value bit of a handle a forked child inherited: its record index was
/// the parent's, and means nothing in the child's fresh record set.
const INHERITED: u64 = 1 << 63;

/// Slots of two words: the handle, and the record index + 1 (0: free,
/// TOMB: removed). Zeroed memory is an empty table, so the table is a
/// fresh mapping whose pages cost nothing until a handle lands there: a
/// process that never opens an HDF5 file pays no page fault for it.
#[derive(Default)]
pub struct HandleTable {
    slots: Option<TableWords>,
    /// Handles in the table: a forked child with none marks nothing (the
    /// scan read every page of the table, 16 page faults per child).
    live: usize,
}

impl HandleTable {
    pub const fn new() -> HandleTable {
        HandleTable { slots: None, live: 0 }
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
        HandleTable { slots: TableWords::new(2 * n.next_power_of_two()), live: 0 }
    }

    /// Whether no handle is in the table (inherited ones count).
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    fn len(&self) -> usize {
        self.slots.as_ref().map_or(0, |w| w.len() / 2)
    }

    fn start(&self, h: u64) -> usize {
        ((h ^ (h >> 17)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize & (self.len() - 1)
    }

    fn slot_of(&self, h: u64) -> Option<usize> {
        let w = self.slots.as_ref()?;
        let n = self.len();
        let mut s = self.start(h);
        for _ in 0..n {
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
        let n = self.len();
        let mut s = if n == 0 { return false } else { self.start(h) };
        let Some(w) = self.slots.as_mut() else { return false };
        for _ in 0..n {
            if w[2 * s + 1] == 0 || w[2 * s + 1] == TOMB {
                w[2 * s] = h;
                w[2 * s + 1] = i as u64 + 1;
                self.live += 1;
                return true;
            }
            s = (s + 1) & (n - 1);
        }
        false
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

    #[test]
    fn handles_map_unmap_and_reuse_slots() {
        let mut t = HandleTable::with_slots(8);
        for h in 0..8 {
            assert!(t.insert(h as u64 * 4096, h));
        }
        assert!(!t.insert(99, 1), "full");
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
