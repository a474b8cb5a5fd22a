//! A vector whose room is reserved once, in memory whose pages cost
//! nothing until a value lands on them.
//!
//! The runtime reserves, at start-up, room for every record a module may
//! keep (its per-record state, its spill blocks), so that a wrapper never
//! allocates. Reserved with `Vec::try_reserve_exact`, that room came from
//! the C heap: a block under 128 KiB moved the heap's top (a `brk`) and
//! the allocator wrote its next header past it, a page fault per block;
//! a larger one was a mapping of its own whose header was a page fault
//! too. Every process paid 15 page faults and 4 system calls for room
//! that a process like `/bin/true` never uses. Here the room is a
//! [`ZeroedWords`] block, carved from the map pool: untouched until used.

use std::marker::PhantomData;

use crate::store::arena::ZeroedWords;

/// At most `capacity` values of `T`, pushed in order; a push never
/// allocates (it fails once the room is used up).
pub struct FixedVec<T> {
    /// The room: whole words, 8-aligned (a mapped block is page-aligned).
    room: ZeroedWords,
    len: usize,
    cap: usize,
    _values: PhantomData<T>,
}

impl<T> FixedVec<T> {
    /// No room (before a module knows its capacity).
    pub const fn empty() -> FixedVec<T> {
        FixedVec { room: ZeroedWords::empty(), len: 0, cap: 0, _values: PhantomData }
    }

    /// Room for `cap` values, or None if it cannot be had (or `T` needs
    /// an alignment above a word's, which no runtime type does).
    pub fn with_capacity(cap: usize) -> Option<FixedVec<T>> {
        if std::mem::align_of::<T>() > 8 {
            return None;
        }
        let words = cap.checked_mul(std::mem::size_of::<T>())?.div_ceil(8);
        Some(FixedVec { room: ZeroedWords::new(words)?, len: 0, cap, _values: PhantomData })
    }

    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Appends `v`, or gives it back when the room is used up.
    #[allow(unsafe_code)]
    pub fn push(&mut self, v: T) -> Result<(), T> {
        if self.len == self.cap {
            return Err(v);
        }
        // SAFETY: len < cap, and the room holds cap values of T (its
        // words were counted from cap * size_of::<T>() and it is aligned
        // for T, checked in with_capacity); the slot past the last value
        // holds none, so nothing is overwritten without being dropped.
        unsafe { self.room.as_mut_ptr().cast::<T>().add(self.len).write(v) };
        self.len += 1;
        Ok(())
    }

    /// Drops every value; the room stays reserved.
    #[allow(unsafe_code)]
    pub fn clear(&mut self) {
        let values: *mut [T] = &mut **self;
        // Emptied first, so that a value's drop that panics leaves no
        // value to be dropped twice.
        self.len = 0;
        // SAFETY: `values` are the initialised values, no longer reachable
        // through self (len is 0); each is dropped once, here.
        unsafe { std::ptr::drop_in_place(values) };
    }
}

impl<T> std::ops::Deref for FixedVec<T> {
    type Target = [T];
    #[allow(unsafe_code)]
    fn deref(&self) -> &[T] {
        // SAFETY: the first len slots hold initialised values of T, in
        // room aligned for T (an empty room's pointer is dangling but
        // aligned, and len is 0 then unless T is zero-sized).
        unsafe { std::slice::from_raw_parts(self.room.as_ptr().cast::<T>(), self.len) }
    }
}

impl<T> std::ops::DerefMut for FixedVec<T> {
    #[allow(unsafe_code)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in deref, and we have self mutably.
        unsafe { std::slice::from_raw_parts_mut(self.room.as_mut_ptr().cast::<T>(), self.len) }
    }
}

impl<T> Drop for FixedVec<T> {
    fn drop(&mut self) {
        // The values first; then the room goes with `room`'s own drop.
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn pushes_up_to_its_capacity_and_drops_each_value_once() {
        let counted = Rc::new(());
        let mut v = FixedVec::with_capacity(3).unwrap();
        for _ in 0..3 {
            assert!(v.push(Rc::clone(&counted)).is_ok());
        }
        assert!(v.push(Rc::clone(&counted)).is_err(), "a fourth value has no room");
        assert_eq!((v.len(), v.capacity(), Rc::strong_count(&counted)), (3, 3, 4));
        v.clear();
        assert_eq!((v.len(), Rc::strong_count(&counted)), (0, 1));
        v.push(Rc::clone(&counted)).unwrap();
        drop(v);
        assert_eq!(Rc::strong_count(&counted), 1);
    }

    #[test]
    fn values_of_odd_sizes_are_where_they_were_put() {
        let mut v: FixedVec<(u8, u16, [u8; 3])> = FixedVec::with_capacity(5000).unwrap();
        for i in 0..5000u16 {
            v.push((i as u8, i, [1, 2, i as u8])).unwrap();
        }
        v[4999].1 = 7;
        assert!(v.iter().take(4999).enumerate().all(|(i, x)| *x == (i as u8, i as u16, [1, 2, i as u8])));
        assert_eq!(v[4999].1, 7);
        let none: FixedVec<u64> = FixedVec::empty();
        assert!(none.is_empty() && none.capacity() == 0);
        assert!(FixedVec::<u64>::with_capacity(usize::MAX / 4).is_none(), "room that cannot be had is refused");
    }
}
